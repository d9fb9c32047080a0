/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SA records on the wire (IBA 15.2.5.16-17): byte offsets, the fields
 * packed inside words, and codecs between the big-endian layout and plain
 * structs.  It needs only the headers below, so that a userspace test
 * (tests/sib/unit) builds this very code against stand-ins for them.
 */
#ifndef SIB_SA_WIRE_H
#define SIB_SA_WIRE_H

#include <linux/bitfield.h>
#include <linux/string.h>
#include <linux/types.h>
#include "tests_compat.h"
#include <rdma/ib_verbs.h>

/* A selector and its 6-bit value share a byte. */
#define SA_SEL			GENMASK(7, 6)
#define SA_VAL			GENMASK(5, 0)

struct sa_sel {
	u8 sel;
	u8 val;
};

/* PathRecord (IBA 15.2.5.16): byte offsets, and fields inside words. */
#define PR_SIZE			64
#define PR_SERVICE_ID		0
#define PR_DGID			8
#define PR_SGID			24
#define PR_DLID			40
#define PR_SLID			42
#define PR_FLOW			44
#define  PR_RAW_TRAFFIC		BIT(31)
#define  PR_FLOW_LABEL		GENMASK(27, 8)
#define  PR_HOP_LIMIT		GENMASK(7, 0)
#define PR_TCLASS		48
#define PR_NUMB			49
#define  PR_REVERSIBLE		BIT(7)
#define  PR_NUMB_PATH		GENMASK(6, 0)
#define PR_PKEY			50
#define PR_QOS			52
#define  PR_QOS_CLASS		GENMASK(15, 4)
#define  PR_SL			GENMASK(3, 0)
#define PR_MTU			54
#define PR_RATE			55
#define PR_LIFE			56
#define PR_PREFERENCE		57

/* MCMemberRecord (IBA 15.2.5.17). */
#define MCM_SIZE		52
#define MCM_STRIDE		56	/* table entries are 8-byte aligned */
#define MCM_MGID		0
#define MCM_PORT_GID		16
#define MCM_QKEY		32
#define MCM_MLID		36
#define MCM_MTU			38
#define MCM_TCLASS		39
#define MCM_PKEY		40
#define MCM_RATE		42
#define MCM_LIFE		43
#define MCM_SL_FLOW		44
#define  MCM_SL			GENMASK(31, 28)
#define  MCM_FLOW_LABEL		GENMASK(27, 8)
#define  MCM_HOP_LIMIT		GENMASK(7, 0)
#define MCM_SCOPE_STATE		48
#define  MCM_SCOPE		GENMASK(7, 4)
#define  MCM_JOIN_STATE		GENMASK(3, 0)
#define MCM_PROXY		49
#define  MCM_PROXY_JOIN		BIT(7)

/* A PathRecord, unpacked. */
struct sa_path {
	u8 service_id[8];
	union ib_gid dgid;
	union ib_gid sgid;
	u16 dlid;
	u16 slid;
	bool raw_traffic;
	u32 flow_label;
	u8 hop_limit;
	u8 tclass;
	bool reversible;
	u8 numb_path;
	u16 pkey;
	u16 qos_class;
	u8 sl;
	struct sa_sel mtu;
	struct sa_sel rate;
	struct sa_sel life;
	u8 preference;
};

/* An MCMemberRecord, unpacked; a group keeps its attributes in one. */
struct sa_mcm {
	union ib_gid mgid;
	union ib_gid port_gid;
	u32 qkey;
	u16 mlid;
	struct sa_sel mtu;
	u8 tclass;
	u16 pkey;
	struct sa_sel rate;
	struct sa_sel life;
	u8 sl;
	u32 flow_label;
	u8 hop_limit;
	u8 scope;
	u8 join_state;
	bool proxy_join;
};

static inline struct sa_sel sa_sel_get(u8 byte)
{
	struct sa_sel s = {
		.sel = FIELD_GET(SA_SEL, byte),
		.val = FIELD_GET(SA_VAL, byte),
	};

	return s;
}

static inline u8 sa_sel_put(struct sa_sel s)
{
	return FIELD_PREP(SA_SEL, s.sel) | FIELD_PREP(SA_VAL, s.val);
}

static inline void sa_path_decode(const u8 *p, struct sa_path *r)
{
	u32 flow = get_unaligned_be32(p + PR_FLOW);
	u16 qos = get_unaligned_be16(p + PR_QOS);

	memcpy(r->service_id, p + PR_SERVICE_ID, sizeof(r->service_id));
	memcpy(r->dgid.raw, p + PR_DGID, sizeof(r->dgid.raw));
	memcpy(r->sgid.raw, p + PR_SGID, sizeof(r->sgid.raw));
	r->dlid = get_unaligned_be16(p + PR_DLID);
	r->slid = get_unaligned_be16(p + PR_SLID);
	r->raw_traffic = FIELD_GET(PR_RAW_TRAFFIC, flow);
	r->flow_label = FIELD_GET(PR_FLOW_LABEL, flow);
	r->hop_limit = FIELD_GET(PR_HOP_LIMIT, flow);
	r->tclass = p[PR_TCLASS];
	r->reversible = FIELD_GET(PR_REVERSIBLE, p[PR_NUMB]);
	r->numb_path = FIELD_GET(PR_NUMB_PATH, p[PR_NUMB]);
	r->pkey = get_unaligned_be16(p + PR_PKEY);
	r->qos_class = FIELD_GET(PR_QOS_CLASS, qos);
	r->sl = FIELD_GET(PR_SL, qos);
	r->mtu = sa_sel_get(p[PR_MTU]);
	r->rate = sa_sel_get(p[PR_RATE]);
	r->life = sa_sel_get(p[PR_LIFE]);
	r->preference = p[PR_PREFERENCE];
}

static inline void sa_path_encode(const struct sa_path *r, u8 *p)
{
	memset(p, 0, PR_SIZE);
	memcpy(p + PR_SERVICE_ID, r->service_id, sizeof(r->service_id));
	memcpy(p + PR_DGID, r->dgid.raw, sizeof(r->dgid.raw));
	memcpy(p + PR_SGID, r->sgid.raw, sizeof(r->sgid.raw));
	put_unaligned_be16(r->dlid, p + PR_DLID);
	put_unaligned_be16(r->slid, p + PR_SLID);
	put_unaligned_be32(FIELD_PREP(PR_RAW_TRAFFIC, r->raw_traffic) |
			   FIELD_PREP(PR_FLOW_LABEL, r->flow_label) |
			   FIELD_PREP(PR_HOP_LIMIT, r->hop_limit),
			   p + PR_FLOW);
	p[PR_TCLASS] = r->tclass;
	p[PR_NUMB] = FIELD_PREP(PR_REVERSIBLE, r->reversible) |
		     FIELD_PREP(PR_NUMB_PATH, r->numb_path);
	put_unaligned_be16(r->pkey, p + PR_PKEY);
	put_unaligned_be16(FIELD_PREP(PR_QOS_CLASS, r->qos_class) |
			   FIELD_PREP(PR_SL, r->sl), p + PR_QOS);
	p[PR_MTU] = sa_sel_put(r->mtu);
	p[PR_RATE] = sa_sel_put(r->rate);
	p[PR_LIFE] = sa_sel_put(r->life);
	p[PR_PREFERENCE] = r->preference;
}

static inline void sa_mcm_decode(const u8 *p, struct sa_mcm *r)
{
	u32 word = get_unaligned_be32(p + MCM_SL_FLOW);

	memcpy(r->mgid.raw, p + MCM_MGID, sizeof(r->mgid.raw));
	memcpy(r->port_gid.raw, p + MCM_PORT_GID, sizeof(r->port_gid.raw));
	r->qkey = get_unaligned_be32(p + MCM_QKEY);
	r->mlid = get_unaligned_be16(p + MCM_MLID);
	r->mtu = sa_sel_get(p[MCM_MTU]);
	r->tclass = p[MCM_TCLASS];
	r->pkey = get_unaligned_be16(p + MCM_PKEY);
	r->rate = sa_sel_get(p[MCM_RATE]);
	r->life = sa_sel_get(p[MCM_LIFE]);
	r->sl = FIELD_GET(MCM_SL, word);
	r->flow_label = FIELD_GET(MCM_FLOW_LABEL, word);
	r->hop_limit = FIELD_GET(MCM_HOP_LIMIT, word);
	r->scope = FIELD_GET(MCM_SCOPE, p[MCM_SCOPE_STATE]);
	r->join_state = FIELD_GET(MCM_JOIN_STATE, p[MCM_SCOPE_STATE]);
	r->proxy_join = FIELD_GET(MCM_PROXY_JOIN, p[MCM_PROXY]);
}

static inline void sa_mcm_encode(const struct sa_mcm *r, u8 *p)
{
	memset(p, 0, MCM_SIZE);
	memcpy(p + MCM_MGID, r->mgid.raw, sizeof(r->mgid.raw));
	memcpy(p + MCM_PORT_GID, r->port_gid.raw, sizeof(r->port_gid.raw));
	put_unaligned_be32(r->qkey, p + MCM_QKEY);
	put_unaligned_be16(r->mlid, p + MCM_MLID);
	p[MCM_MTU] = sa_sel_put(r->mtu);
	p[MCM_TCLASS] = r->tclass;
	put_unaligned_be16(r->pkey, p + MCM_PKEY);
	p[MCM_RATE] = sa_sel_put(r->rate);
	p[MCM_LIFE] = sa_sel_put(r->life);
	put_unaligned_be32(FIELD_PREP(MCM_SL, r->sl) |
			   FIELD_PREP(MCM_FLOW_LABEL, r->flow_label) |
			   FIELD_PREP(MCM_HOP_LIMIT, r->hop_limit),
			   p + MCM_SL_FLOW);
	p[MCM_SCOPE_STATE] = FIELD_PREP(MCM_SCOPE, r->scope) |
			     FIELD_PREP(MCM_JOIN_STATE, r->join_state);
	p[MCM_PROXY] = FIELD_PREP(MCM_PROXY_JOIN, r->proxy_join);
}

/* IPoIB's IPv4 broadcast group of a partition: ff12:401b:PPPP::ffff:ffff. */
static inline void sa_ipoib_bcast_mgid(union ib_gid *mgid, u16 pkey)
{
	static const u8 tmpl[16] = {
		0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0,
		0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};

	memcpy(mgid->raw, tmpl, sizeof(tmpl));
	put_unaligned_be16(pkey, &mgid->raw[4]);
}

#endif /* SIB_SA_WIRE_H */
