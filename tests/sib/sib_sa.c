// SPDX-License-Identifier: GPL-2.0
/*
 * The subnet administrator behind the SM's LID (IBA 15.2): takes the MADs
 * sent to it, answers ClassPortInfo, PathRecord, PortInfoRecord and
 * GUIDInfoRecord here and hands MCMemberRecord to the group store
 * (sib_sa_mcast.c).  Paths and ports are read from the fabric on every
 * query.
 *
 * Records are read and written in their big-endian wire layout, through
 * the codecs in sib_sa_wire.h.  A GetTable answer is an RMPP transfer of
 * as many segments as its records need, all sent at once: the receiver
 * (ib_core) opens a window of 64 segments after the first.
 */
#include <linux/slab.h>
#include <rdma/ib_smi.h>
#include "sib_sa.h"
#include "sib_smp_wire.h"
#include "sib_switch.h"

#define SA_RESP_TIME		16	/* 4.096 us << 16: OpenSM's 200 ms */
/* ClassPortInfo CapabilityMask: the SA class's own bits */
#define SA_CAP_UD_MULTICAST	BIT(9)	/* MCMemberRecord joins */
#define SA_CAP_PIR_CAPMASK_MATCH BIT(13) /* PortInfoRecord, bitwise CapMask */

/* The answer: records at a fixed stride, one for a Get. */

bool sib_sa_table_query(const struct sa_ctx *ctx)
{
	return ctx->table;
}

/* Where the next record goes; NULL when no more fit (or, for a Get, one). */
u8 *sib_sa_slot(struct sa_ctx *ctx)
{
	u32 max = ctx->table ? SA_TABLE_MAX / ctx->stride : 1;
	u8 *base = ctx->table ? ctx->records : ctx->resp.data;

	if (ctx->nrec >= max) {
		ctx->overflow = true;
		return NULL;
	}
	return base + ctx->nrec++ * ctx->stride;
}

/*
 * How a query ends, by what it found.  A Get needs exactly one record; a
 * GetTable may find none (as OpenSM answers), and answers
 * ERR_NO_RESOURCES only when its records outgrow SA_TABLE_MAX.
 */
u16 sib_sa_found(const struct sa_ctx *ctx)
{
	if (ctx->overflow)
		return ctx->table ? SA_ERR_NO_RESOURCES :
				    SA_ERR_TOO_MANY_RECORDS;
	return ctx->nrec || ctx->table ? 0 : SA_ERR_NO_RECORDS;
}

/* ClassPortInfo: what the SA can do. */
static u16 sa_class_port_info(struct sa_ctx *ctx)
{
	struct ib_class_port_info cpi = {
		.base_version = IB_MGMT_BASE_VERSION,
		.class_version = IB_SA_CLASS_VERSION,
	};

	/* Not redirected: the answer names QP1 and its Q_Key, as OpenSM does. */
	cpi.redirect_qp = cpu_to_be32(1);
	cpi.redirect_qkey = cpu_to_be32(IB_QP1_QKEY);
	cpi.trap_qkey = cpu_to_be32(IB_QP1_QKEY);
	cpi.capability_mask = cpu_to_be16(SA_CAP_UD_MULTICAST |
					  SA_CAP_PIR_CAPMASK_MATCH);
	ib_set_cpi_capmask2(&cpi, IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT);
	ib_set_cpi_resp_time(&cpi, SA_RESP_TIME);
	memcpy(ctx->resp.data, &cpi, sizeof(cpi));
	return 0;
}

/*
 * PathRecord.  A path runs between two end ports: HCA ports, and the
 * switches' management ports (port 0), as OpenSM lists them.  With LMC > 0
 * there is a path for each LID of one end's block and each of the
 * other's, ranked as OpenSM does (osm_sa_path_record.c): first the pairs
 * with the same path bits at both ends (preference 0), then the rest
 * (preference 2).  A Get has the first, path bits sa_path_bits (default
 * 0, the base LIDs, as OpenSM); a GetTable has them all, or NumbPath of
 * them.
 */
struct sa_end {
	const struct sib_port *port;	/* NULL: the switch's port 0 */
	const u16 *pkeys;		/* its P_KeyTable */
	union ib_gid gid;		/* its GID 0, or the one a request named */
	u16 lid;			/* its base LID */
	u8 lmc;
	u16 named;			/* the LID the request names, or 0 */
	enum ib_mtu mtu;
};

#define SA_PREF_SAME_BITS	0	/* OpenSM: redundant both ways */
#define SA_PREF_OTHER		2	/* not redundant either way */

static void sa_end_of_port(const struct sib_port *port, struct sa_end *end)
{
	end->port = port;
	end->pkeys = port->pkeys;
	end->gid = sib_port_gid(port);
	end->lid = READ_ONCE(port->lid);
	end->lmc = READ_ONCE(port->lmc);
	end->named = 0;
	end->mtu = READ_ONCE(port->active_mtu);
}

/* A switch's port 0, once it has a LID; it has no link of its own. */
static bool sa_end_of_switch(struct sib_switch *sw, struct sa_end *end)
{
	end->port = NULL;
	end->pkeys = sw->pkeys;
	end->gid.global.subnet_prefix = cpu_to_be64(SIB_SUBNET_PREFIX);
	end->gid.global.interface_id = sib_switch_guid(sw);
	end->lid = sib_switch_lid(sw);
	end->lmc = 0;
	end->named = 0;
	end->mtu = ib_mtu_int_to_enum(sib_port_mtu);
	return end->lid != 0;
}

/*
 * Under rcu_read_lock(): the index-th end port: the HCA ports by fabric
 * index, then the switches'; false past the last or for one not ACTIVE.
 */
static bool sa_end_nth(u32 index, struct sa_end *end)
{
	u32 s = index - SIB_FABRIC_PORTS;
	struct sib_port *port;

	if (index >= SIB_FABRIC_PORTS)
		return s < sib_fabric.nswitches &&
		       sa_end_of_switch(&sib_fabric.sw[s], end);
	port = index < SIB_FABRIC_PORTS ? sib_port_by_index(index) : NULL;
	if (!port || READ_ONCE(port->state) != IB_PORT_ACTIVE)
		return false;
	sa_end_of_port(port, end);
	return true;
}

#define SA_END_PORTS	(SIB_FABRIC_PORTS + SIB_MAX_SWITCHES)

/* The end's LID with those path bits (masked to its LMC). */
static u16 sa_end_lid(const struct sa_end *end, u32 path_bits)
{
	return sib_lid_with_bits(end->lid, end->lmc, path_bits);
}

static bool sa_end_has_lid(const struct sa_end *end, u16 lid)
{
	return sib_lid_in_block(end->lid, end->lmc, lid);
}

/* Any of an HCA port's GIDs (gids=) names it; the switch has one. */
static bool sa_end_has_gid(const struct sa_end *end, const union ib_gid *gid)
{
	if (!end->port)
		return sa_gid_eq(&end->gid, gid);
	return sib_port_gid_index(end->port, gid) >= 0;
}

/*
 * Under rcu_read_lock(): one end of a path, by GID, else LID, else the
 * asker.  A path named by an alias GID has that GID, as OpenSM answers.
 */
static u16 sa_path_end(bool by_gid, const union ib_gid *gid, bool by_lid,
		       u16 lid, struct sib_port *asker, struct sa_end *out)
{
	struct sa_end end;
	u32 i;

	if (!by_gid && !by_lid) {
		if (!asker)
			return SA_ERR_INSUFFICIENT_COMPONENTS;
		if (READ_ONCE(asker->state) != IB_PORT_ACTIVE)
			return SA_ERR_NO_RECORDS;
		sa_end_of_port(asker, out);
		return 0;
	}
	for (i = 0; i < SA_END_PORTS; i++) {
		if (!sa_end_nth(i, &end) ||
		    (by_gid && !sa_end_has_gid(&end, gid)) ||
		    (by_lid && !sa_end_has_lid(&end, lid)))
			continue;
		*out = end;
		out->named = by_lid ? lid : 0;
		if (by_gid)
			out->gid = *gid;
		return 0;
	}
	return SA_ERR_NO_RECORDS;
}

/* Both ends hold the partition, and at least one as a full member. */
static bool sa_pkey_shared(const struct sa_end *a, const struct sa_end *b,
			   u16 pkey)
{
	int ia = sib_pkey_table_find(a->pkeys, pkey);
	int ib = sib_pkey_table_find(b->pkeys, pkey);

	return ia >= 0 && ib >= 0 &&
	       sib_pkey_match(READ_ONCE(a->pkeys[ia]), READ_ONCE(b->pkeys[ib]));
}

/* The requested P_Key, or else the first one the ends share. */
static int sa_path_pkey(const struct sa_end *sp, const struct sa_end *dp,
			bool given, u16 want, u16 *pkey)
{
	u16 i;

	if (given) {
		*pkey = want;
		return sa_pkey_shared(sp, dp, want) ? 0 : -ENOENT;
	}
	for (i = 0; i < SIB_PKEY_TABLE_LEN; i++) {
		u16 entry = READ_ONCE(sp->pkeys[i]);

		if (sib_pkey_valid(entry) && sa_pkey_shared(sp, dp, entry)) {
			*pkey = entry;
			return 0;
		}
	}
	return -ENOENT;
}

/* The path from sp's LID slid to dp's dlid, if the request allows it. */
static u16 sa_path_fill(const struct sa_ctx *ctx, const struct sa_path *req,
			const struct sa_end *sp, const struct sa_end *dp,
			u16 slid, u16 dlid, struct sa_path *pr)
{
	ib_sa_comp_mask cm = ctx->comp;
	/* A port's path to itself crosses no link: OpenSM gives it 0. */
	u8 life = sp->lid == dp->lid ? 0 : SA_PKT_LIFE;
	int mtu;

	if ((cm & IB_SA_PATH_REC_RAW_TRAFFIC) && req->raw_traffic)
		return SA_ERR_NO_RECORDS;

	memset(pr, 0, sizeof(*pr));
	if (sa_path_pkey(sp, dp, !!(cm & IB_SA_PATH_REC_PKEY), req->pkey,
			 &pr->pkey))
		return SA_ERR_NO_RECORDS;
	mtu = sa_sel_pick(sa_req_sel(cm, IB_SA_PATH_REC_MTU_SELECTOR,
				     IB_SA_PATH_REC_MTU, req->mtu),
			  req->mtu.val, IB_MTU_256, min(sp->mtu, dp->mtu));
	if (mtu < 0 ||
	    !sa_rate_ok(sa_req_sel(cm, IB_SA_PATH_REC_RATE_SELECTOR,
				   IB_SA_PATH_REC_RATE, req->rate),
			SA_RATE, req->rate.val) ||
	    !sa_sel_ok(sa_req_sel(cm, IB_SA_PATH_REC_PACKET_LIFE_TIME_SELECTOR,
				  IB_SA_PATH_REC_PACKET_LIFE_TIME, req->life),
		       life, req->life.val))
		return SA_ERR_NO_RECORDS;

	if (cm & IB_SA_PATH_REC_SERVICE_ID)
		memcpy(pr->service_id, req->service_id, sizeof(pr->service_id));
	pr->dgid = dp->gid;
	pr->sgid = sp->gid;
	pr->dlid = dlid;
	pr->slid = slid;
	if (cm & IB_SA_PATH_REC_FLOW_LABEL)
		pr->flow_label = req->flow_label;
	if (cm & IB_SA_PATH_REC_HOP_LIMIT)
		pr->hop_limit = req->hop_limit;
	if (cm & IB_SA_PATH_REC_TRAFFIC_CLASS)
		pr->tclass = req->tclass;
	if (cm & IB_SA_PATH_REC_QOS_CLASS)
		pr->qos_class = req->qos_class;
	if (cm & IB_SA_PATH_REC_SL)
		pr->sl = req->sl;
	/* NumbPath asks for paths; an answer leaves it 0, as OpenSM's do. */
	pr->reversible = true;
	pr->mtu = sa_exactly(mtu);
	pr->rate = sa_exactly(SA_RATE);
	pr->life = sa_exactly(life);
	return 0;
}

/* Under rcu_read_lock(): a request's source end (by default the asker). */
static u16 sa_path_src(const struct sa_ctx *ctx, const struct sa_path *req,
		       struct sib_port *asker, struct sa_end *end)
{
	return sa_path_end(!!(ctx->comp & IB_SA_PATH_REC_SGID), &req->sgid,
			   !!(ctx->comp & IB_SA_PATH_REC_SLID), req->slid,
			   asker, end);
}

/* Under rcu_read_lock(): a request's destination end. */
static u16 sa_path_dst(const struct sa_ctx *ctx, const struct sa_path *req,
		       struct sa_end *end)
{
	return sa_path_end(!!(ctx->comp & IB_SA_PATH_REC_DGID), &req->dgid,
			   !!(ctx->comp & IB_SA_PATH_REC_DLID), req->dlid,
			   NULL, end);
}

/* Add the path from sp's slid to dp's dlid; false when no more fit. */
static bool sa_path_add(struct sa_ctx *ctx, const struct sa_path *req,
			const struct sa_end *sp, const struct sa_end *dp,
			u16 slid, u16 dlid, u8 pref, u32 *left)
{
	struct sa_path pr;
	u8 *slot;

	if (sa_path_fill(ctx, req, sp, dp, slid, dlid, &pr))
		return true;
	slot = sib_sa_slot(ctx);
	if (!slot)
		return false;
	pr.preference = pref;
	sa_path_encode(&pr, slot);
	return --*left;
}

/*
 * Under rcu_read_lock(): a GetTable's paths between two ends, in OpenSM's
 * order, NumbPath of them when the request says; false when full.
 */
static bool sa_path_pair(struct sa_ctx *ctx, const struct sa_path *req,
			 const struct sa_end *sp, const struct sa_end *dp)
{
	u32 ns = sp->named ? 1 : sib_lmc_span(sp->lmc);
	u32 nd = dp->named ? 1 : sib_lmc_span(dp->lmc);
	u16 s0 = sp->named ?: sp->lid, d0 = dp->named ?: dp->lid;
	u32 left = U32_MAX, i, j;

	if (ctx->comp & IB_SA_PATH_REC_NUMB_PATH)
		left = req->numb_path;
	if (!left)
		return true;
	for (i = 0; i < min(ns, nd); i++)
		if (!sa_path_add(ctx, req, sp, dp, s0 + i, d0 + i,
				 SA_PREF_SAME_BITS, &left))
			return !ctx->overflow;
	for (i = 0; i < ns; i++)
		for (j = 0; j < nd; j++)
			if (i != j &&
			    !sa_path_add(ctx, req, sp, dp, s0 + i, d0 + j,
					 SA_PREF_OTHER, &left))
				return !ctx->overflow;
	return true;
}

/*
 * Under rcu_read_lock(): GetTable.  An end the request does not name is
 * every end port, as OpenSM answers: no components at all, every path of
 * the subnet.
 */
static void sa_path_table(struct sa_ctx *ctx, const struct sa_path *req)
{
	ib_sa_comp_mask cm = ctx->comp;
	bool s_named = cm & (IB_SA_PATH_REC_SGID | IB_SA_PATH_REC_SLID);
	bool d_named = cm & (IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_DLID);
	struct sa_end src, dst;
	u32 si, di;

	if ((s_named && sa_path_src(ctx, req, NULL, &src)) ||
	    (d_named && sa_path_dst(ctx, req, &dst)))
		return;
	for (di = 0; di < (d_named ? 1 : SA_END_PORTS); di++) {
		if (!d_named && !sa_end_nth(di, &dst))
			continue;
		for (si = 0; si < (s_named ? 1 : SA_END_PORTS); si++) {
			if (!s_named && !sa_end_nth(si, &src))
				continue;
			if (!sa_path_pair(ctx, req, &src, &dst))
				return;
		}
	}
}

/*
 * Get: the source defaults to the asker's port, the destination must be
 * named; the path is the first of the pair (see above).  GetTable: above.
 */
static u16 sa_path_query(struct sa_ctx *ctx)
{
	u32 bits = READ_ONCE(sib_fabric.sa_path_bits);
	struct sa_end src, dst;
	struct sa_path req, pr;
	u16 status;
	u8 *slot;

	ctx->stride = PR_SIZE;
	sa_path_decode(ctx->req.data, &req);
	rcu_read_lock();
	if (ctx->table) {
		sa_path_table(ctx, &req);
		status = 0;
	} else {
		status = sa_path_src(ctx, &req, ctx->src->port, &src);
		if (!status)
			status = sa_path_dst(ctx, &req, &dst);
		if (!status)
			status = sa_path_fill(ctx, &req, &src, &dst,
					      src.named ?: sa_end_lid(&src, bits),
					      dst.named ?: sa_end_lid(&dst, bits),
					      &pr);
	}
	rcu_read_unlock();
	if (status)
		return status;
	if (!ctx->table) {
		slot = sib_sa_slot(ctx);
		if (slot)
			sa_path_encode(&pr, slot);
	}
	return sib_sa_found(ctx);
}

/*
 * PortInfoRecord (IBA 15.2.5.3): every port the SM knows, the switches'
 * included, as its SMA shows it (M_Key zeroed: no requester is trusted).
 * The SA matches on LID, port, SM LID, port state and CapabilityMask
 * (bitwise when the attribute modifier's bit 31 says so, as saquery -s
 * asks for IsSM); a request naming any other component is refused.
 */
#define PIR_SIZE		72
#define PIR_LID			0
#define PIR_PORT_NUM		2
#define PIR_PORT_INFO		4
#define PIR_COMP_LID		IB_SA_COMP_MASK(0)
#define PIR_COMP_PORT_NUM	IB_SA_COMP_MASK(1)
#define PIR_COMP_OPTIONS	IB_SA_COMP_MASK(2)
#define PIR_COMP_SM_LID		IB_SA_COMP_MASK(6)
#define PIR_COMP_CAP_MASK	IB_SA_COMP_MASK(7)
#define PIR_COMP_PORT_STATE	IB_SA_COMP_MASK(15)
#define PIR_COMP_KNOWN		(PIR_COMP_LID | PIR_COMP_PORT_NUM |	\
				 PIR_COMP_OPTIONS | PIR_COMP_SM_LID |	\
				 PIR_COMP_CAP_MASK | PIR_COMP_PORT_STATE)
#define PIR_CAP_MASK_BITWISE	BIT(31)

struct sa_pir_want {
	ib_sa_comp_mask comp;
	bool bitwise;
	u16 lid;
	u8 port_num;
	struct sib_portinfo pi;
};

static void sa_pir_add(struct sa_ctx *ctx, const struct sa_pir_want *w,
		       u16 lid, u8 port_num, struct sib_portinfo *pi)
{
	u32 caps = w->pi.cap_mask;
	u8 *slot;

	if (((w->comp & PIR_COMP_LID) && lid != w->lid) ||
	    ((w->comp & PIR_COMP_PORT_NUM) && port_num != w->port_num) ||
	    ((w->comp & PIR_COMP_SM_LID) && pi->sm_lid != w->pi.sm_lid) ||
	    ((w->comp & PIR_COMP_PORT_STATE) && pi->state != w->pi.state))
		return;
	if ((w->comp & PIR_COMP_CAP_MASK) &&
	    (w->bitwise ? (pi->cap_mask & caps) != caps : pi->cap_mask != caps))
		return;
	slot = sib_sa_slot(ctx);
	if (!slot)
		return;
	pi->mkey = 0;
	put_unaligned_be16(lid, slot + PIR_LID);
	slot[PIR_PORT_NUM] = port_num;
	sib_portinfo_encode(pi, slot + PIR_PORT_INFO);
}

static u16 sa_portinfo_query(struct sa_ctx *ctx)
{
	struct sa_pir_want w = {
		.comp = ctx->comp,
		.bitwise = be32_to_cpu(ctx->req.mad_hdr.attr_mod) &
			   PIR_CAP_MASK_BITWISE,
		.lid = get_unaligned_be16(ctx->req.data + PIR_LID),
		.port_num = ctx->req.data[PIR_PORT_NUM],
	};
	struct sib_portinfo pi;
	struct sib_switch *sw;
	struct sib_port *port;
	u32 i, s;

	ctx->stride = PIR_SIZE;
	if (w.comp & ~PIR_COMP_KNOWN)
		return SA_ERR_REQ_INVALID;
	sib_portinfo_decode(ctx->req.data + PIR_PORT_INFO, &w.pi);
	rcu_read_lock();
	for (i = 0; i < SIB_FABRIC_PORTS; i++) {
		port = sib_port_by_index(i);
		if (!port || READ_ONCE(port->state) == IB_PORT_DOWN)
			continue;
		sib_sma_portinfo(port, &pi);
		sa_pir_add(ctx, &w, READ_ONCE(port->lid), port->port_num, &pi);
	}
	rcu_read_unlock();
	for (s = 0; s < sib_fabric.nswitches; s++) {
		sw = &sib_fabric.sw[s];
		for (i = 0; i <= sw->nports; i++) {
			sib_switch_portinfo(sw, i, &pi);
			sa_pir_add(ctx, &w, sib_switch_lid(sw), i, &pi);
		}
	}
	return sib_sa_found(ctx);
}

/*
 * NodeRecord (IBA 15.2.5.2): one per HCA port (its LID, the NodeInfo
 * read through it) and one for each switch, at its port 0's LID.  The SA
 * matches on LID, NodeType, NodeGUID and PortGUID; a request naming any
 * other component is refused.
 */
#define NR_SIZE			112	/* 108 bytes, to a multiple of 8 */
#define NR_LID			0
#define NR_NODE_INFO		4
#define NR_NODE_DESC		44
#define NR_COMP_LID		IB_SA_COMP_MASK(0)
#define NR_COMP_NODE_TYPE	IB_SA_COMP_MASK(4)
#define NR_COMP_NODE_GUID	IB_SA_COMP_MASK(7)
#define NR_COMP_PORT_GUID	IB_SA_COMP_MASK(8)
#define NR_COMP_KNOWN		(NR_COMP_LID | NR_COMP_NODE_TYPE |	\
				 NR_COMP_NODE_GUID | NR_COMP_PORT_GUID)

static void sa_nr_add(struct sa_ctx *ctx, u16 lid,
		      const struct ib_node_info *ni, const char *desc)
{
	const struct ib_node_info *want = (const void *)(ctx->req.data +
							 NR_NODE_INFO);
	ib_sa_comp_mask comp = ctx->comp;
	u8 *slot;

	if (((comp & NR_COMP_LID) &&
	     lid != get_unaligned_be16(ctx->req.data + NR_LID)) ||
	    ((comp & NR_COMP_NODE_TYPE) && ni->node_type != want->node_type) ||
	    ((comp & NR_COMP_NODE_GUID) && ni->node_guid != want->node_guid) ||
	    ((comp & NR_COMP_PORT_GUID) && ni->port_guid != want->port_guid))
		return;
	slot = sib_sa_slot(ctx);
	if (!slot)
		return;
	put_unaligned_be16(lid, slot + NR_LID);
	memcpy(slot + NR_NODE_INFO, ni, sizeof(*ni));
	strscpy(slot + NR_NODE_DESC, desc, IB_DEVICE_NODE_DESC_MAX);
}

static u16 sa_node_query(struct sa_ctx *ctx)
{
	struct ib_node_info ni;
	struct sib_switch *sw;
	struct sib_port *port;
	u32 i;

	ctx->stride = NR_SIZE;
	if (ctx->comp & ~NR_COMP_KNOWN)
		return SA_ERR_REQ_INVALID;
	rcu_read_lock();
	for (i = 0; i < SIB_FABRIC_PORTS; i++) {
		port = sib_port_by_index(i);
		if (!port || READ_ONCE(port->state) == IB_PORT_DOWN)
			continue;
		sib_sma_node_info(port, &ni);
		sa_nr_add(ctx, READ_ONCE(port->lid), &ni,
			  port->sdev->ibdev.node_desc);
	}
	rcu_read_unlock();
	for (i = 0; i < sib_fabric.nswitches; i++) {
		sw = &sib_fabric.sw[i];
		sib_switch_node_info(sw, 0, &ni);
		sa_nr_add(ctx, sib_switch_lid(sw), &ni, sib_switch_desc(sw));
	}
	return sib_sa_found(ctx);
}

/*
 * GUIDInfoRecord (IBA 15.2.5.18): an HCA port's GUIDInfo block 0, its
 * gids= entries (the port GUID, then its aliases; 0 unassigned), at its
 * LID.  The SA matches on LID and BlockNum; aliases are the SM's to
 * assign, so a Set or Delete is refused.
 */
#define GIR_SIZE		72
#define GIR_LID			0
#define GIR_BLOCK		2
#define GIR_GUIDS		8
#define GIR_COMP_KNOWN		(IB_SA_GUIDINFO_REC_LID |		\
				 IB_SA_GUIDINFO_REC_BLOCK_NUM)

static u16 sa_guidinfo_query(struct sa_ctx *ctx)
{
	u16 lid = get_unaligned_be16(ctx->req.data + GIR_LID);
	ib_sa_comp_mask comp = ctx->comp;
	struct sib_port *port;
	__be64 guid;
	u32 i, k;
	u8 *slot;

	ctx->stride = GIR_SIZE;
	if (comp & ~GIR_COMP_KNOWN)
		return SA_ERR_REQ_INVALID;
	if ((comp & IB_SA_GUIDINFO_REC_BLOCK_NUM) && ctx->req.data[GIR_BLOCK])
		return sib_sa_found(ctx);	/* only block 0 exists */
	rcu_read_lock();
	for (i = 0; i < SIB_FABRIC_PORTS; i++) {
		port = sib_port_by_index(i);
		if (!port || READ_ONCE(port->state) == IB_PORT_DOWN ||
		    ((comp & IB_SA_GUIDINFO_REC_LID) &&
		     lid != READ_ONCE(port->lid)))
			continue;
		slot = sib_sa_slot(ctx);
		if (!slot)
			break;
		put_unaligned_be16(READ_ONCE(port->lid), slot + GIR_LID);
		for (k = 0; k < sib_gids; k++) {
			guid = READ_ONCE(port->guids[k]);
			memcpy(slot + GIR_GUIDS + sizeof(guid) * k, &guid,
			       sizeof(guid));
		}
	}
	rcu_read_unlock();
	return sib_sa_found(ctx);
}

/* MAD handling. */

/* Responses (an RMPP ACK of ours among them) and traps get no answer. */
static bool sa_wants_answer(u8 method)
{
	return !(method & IB_MGMT_METHOD_RESP) &&
	       method != IB_MGMT_METHOD_TRAP &&
	       method != IB_MGMT_METHOD_REPORT &&
	       method != IB_MGMT_METHOD_TRAP_REPRESS;
}

static u16 sa_dispatch(struct sa_ctx *ctx)
{
	u8 method = ctx->req.mad_hdr.method;
	bool get = method == IB_MGMT_METHOD_GET;

	switch (method) {
	case IB_MGMT_METHOD_GET:
	case IB_MGMT_METHOD_SET:
	case IB_SA_METHOD_GET_TABLE:
	case IB_SA_METHOD_DELETE:
		break;
	default:
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
	}

	switch (be16_to_cpu(ctx->req.mad_hdr.attr_id)) {
	case IB_SA_ATTR_CLASS_PORTINFO:
		if (get)
			return sa_class_port_info(ctx);
		break;
	case IB_SA_ATTR_PATH_REC:
		if (get || ctx->table)
			return sa_path_query(ctx);
		break;
	case IB_SA_ATTR_PORT_INFO_REC:
		if (get || ctx->table)
			return sa_portinfo_query(ctx);
		break;
	case IB_SA_ATTR_NODE_REC:
		if (get || ctx->table)
			return sa_node_query(ctx);
		break;
	case IB_SA_ATTR_GUID_INFO_REC:
		if (get || ctx->table)
			return sa_guidinfo_query(ctx);
		break;
	case IB_SA_ATTR_MC_MEMBER_REC:
		return sib_sa_mcm_request(ctx);
	}
	return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
}

static void sa_answer_header(struct sa_ctx *ctx)
{
	const struct ib_mad_hdr *in = &ctx->req.mad_hdr;
	struct ib_mad_hdr *out = &ctx->resp.mad_hdr;

	out->base_version = IB_MGMT_BASE_VERSION;
	out->mgmt_class = in->mgmt_class;
	out->class_version = in->class_version;
	if (in->mgmt_class == IB_MGMT_CLASS_SUBN_ADM)
		out->class_version = IB_SA_CLASS_VERSION;
	out->method = in->method == IB_MGMT_METHOD_SET ?
		      IB_MGMT_METHOD_GET_RESP : in->method | IB_MGMT_METHOD_RESP;
	out->tid = in->tid;
	out->attr_id = in->attr_id;
	out->attr_mod = in->attr_mod;
}

/*
 * A GetTable answer: RMPP DATA segments (IBA 13.6), each with the SA
 * header and the next IB_MGMT_SA_DATA bytes of records.  PayloadLength
 * counts the SA header once per segment: all segments' worth in the
 * first, the last's own in the last (ib_core's receiver reads that one),
 * none in between.
 */
static void sa_send_table(struct sa_ctx *ctx)
{
	u32 total = ctx->nrec * ctx->stride;
	u32 segs = max_t(u32, 1, DIV_ROUND_UP(total, IB_MGMT_SA_DATA));
	u32 pad = segs * IB_MGMT_SA_DATA - total;
	struct ib_rmpp_hdr *rmpp = &ctx->resp.rmpp_hdr;
	u32 seg, off, n, paylen;
	u8 flags;

	ctx->resp.sa_hdr.attr_offset = cpu_to_be16(ctx->nrec ?
						   ctx->stride / 8 : 0);
	rmpp->rmpp_version = IB_MGMT_RMPP_VERSION;
	rmpp->rmpp_type = IB_MGMT_RMPP_TYPE_DATA;
	for (seg = 1; seg <= segs; seg++) {
		off = (seg - 1) * IB_MGMT_SA_DATA;
		n = min_t(u32, IB_MGMT_SA_DATA, total - off);
		flags = IB_MGMT_RMPP_FLAG_ACTIVE;
		paylen = 0;
		if (seg == 1) {
			flags |= IB_MGMT_RMPP_FLAG_FIRST;
			paylen = segs * IB_MGMT_RMPP_DATA - pad;
		}
		if (seg == segs) {
			flags |= IB_MGMT_RMPP_FLAG_LAST;
			paylen = IB_MGMT_RMPP_DATA - pad;
		}
		rmpp->rmpp_rtime_flags = IB_MGMT_RMPP_NO_RESPTIME << 3 | flags;
		rmpp->seg_num = cpu_to_be32(seg);
		rmpp->paylen_newwin = cpu_to_be32(paylen);
		memset(ctx->resp.data, 0, sizeof(ctx->resp.data));
		memcpy(ctx->resp.data, ctx->records + off, n);
		sib_sm_send_mad(ctx->src, &ctx->resp, sizeof(ctx->resp));
	}
}

/*
 * Faults debugfs asks for, by the SA requests' running count: every
 * sa_silent_every-th gets no answer (the asker's MAD layer sends it
 * again), every sa_busy_every-th a BUSY, as OpenSM answers when its queue
 * is full, and nothing done (ib_sa hands that to its caller as an error).
 */
enum sa_fault {
	SA_FAULT_NONE,
	SA_FAULT_BUSY,
	SA_FAULT_SILENT,
};

static bool sa_nth(u32 every, u32 seq)
{
	return every && seq % every == 0;
}

static enum sa_fault sa_fault(struct sib_port *port)
{
	u32 seq = atomic_inc_return(&sib_fabric.sa_seq);

	sib_count(port, SIB_CNT_SA_REQUESTS, 1);
	if (sa_nth(READ_ONCE(sib_fabric.sa_silent_every), seq)) {
		sib_count(port, SIB_CNT_SA_SILENT, 1);
		return SA_FAULT_SILENT;
	}
	if (sa_nth(READ_ONCE(sib_fabric.sa_busy_every), seq)) {
		sib_count(port, SIB_CNT_SA_BUSY, 1);
		return SA_FAULT_BUSY;
	}
	return SA_FAULT_NONE;
}

static void sa_answer(struct sa_ctx *ctx, u32 len, bool busy)
{
	const struct ib_mad_hdr *hdr = &ctx->req.mad_hdr;
	bool sa = hdr->mgmt_class == IB_MGMT_CLASS_SUBN_ADM;
	u16 status;

	sa_answer_header(ctx);
	ctx->table = sa && hdr->method == IB_SA_METHOD_GET_TABLE;
	ctx->stride = 8;
	if (hdr->base_version != IB_MGMT_BASE_VERSION || !sa ||
	    hdr->class_version != IB_SA_CLASS_VERSION) {
		status = IB_MGMT_MAD_STATUS_BAD_VERSION;
	} else if (busy) {
		status = IB_MGMT_MAD_STATUS_BUSY;
	} else if (len < IB_MGMT_MAD_SIZE) {
		status = IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	} else {
		ctx->comp = ctx->req.sa_hdr.comp_mask;
		ctx->resp.sa_hdr.comp_mask = ctx->comp;
		status = sa_dispatch(ctx);
	}
	if (status) {
		memset(ctx->resp.data, 0, sizeof(ctx->resp.data));
		ctx->nrec = 0;
	}
	ctx->resp.mad_hdr.status = cpu_to_be16(status);
}

void sib_sa_recv(const struct sib_mad_src *src, const void *mad, u32 len)
{
	const struct ib_mad_hdr *hdr = mad;
	enum sa_fault fault = SA_FAULT_NONE;
	struct sa_ctx *ctx;

	if (len < sizeof(*hdr) || !sa_wants_answer(hdr->method))
		return;
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_ADM)
		fault = sa_fault(src->port);
	if (fault == SA_FAULT_SILENT)
		return;
	/* Without memory there is no answer; the asker times out, retries. */
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return;
	memcpy(&ctx->req, mad, min_t(u32, len, sizeof(ctx->req)));
	ctx->src = src;
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_ADM &&
	    hdr->method == IB_SA_METHOD_GET_TABLE) {
		ctx->records = kvzalloc(SA_TABLE_MAX, GFP_KERNEL);
		if (!ctx->records)
			goto out;
	}
	sa_answer(ctx, len, fault == SA_FAULT_BUSY);
	if (ctx->table)
		sa_send_table(ctx);
	else
		sib_sm_send_mad(src, &ctx->resp, sizeof(ctx->resp));
out:
	kvfree(ctx->records);
	kfree(ctx);
}

