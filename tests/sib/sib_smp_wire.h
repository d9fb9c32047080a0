/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subnet management attributes on the wire (IBA 14.2.5): PortInfo and
 * SwitchInfo by byte offset and the fields packed inside bytes, with
 * codecs between the big-endian layout and plain structs.  NodeInfo has
 * its packed struct in ib_smi.h.  Like sib_sa_wire.h, it needs only the
 * headers below.
 */
#ifndef SIB_SMP_WIRE_H
#define SIB_SMP_WIRE_H

#include <linux/bitfield.h>
#include <linux/string.h>
#include <linux/types.h>
#include "tests_compat.h"

/* PortInfo (IBA 14.2.5.6), 64 bytes. */
#define PI_MKEY			0
#define PI_GID_PREFIX		8
#define PI_LID			16
#define PI_SM_LID		18
#define PI_CAP_MASK		20
#define PI_MKEY_LEASE		26
#define PI_LOCAL_PORT		28
#define PI_WIDTH_ENABLED	29
#define PI_WIDTH_SUPPORTED	30
#define PI_WIDTH_ACTIVE		31
#define PI_SPEED_STATE		32
#define  PI_SPEED_SUPPORTED	GENMASK(7, 4)
#define  PI_STATE		GENMASK(3, 0)
#define PI_PHYS			33
#define  PI_PHYS_STATE		GENMASK(7, 4)
#define  PI_DOWN_DEFAULT	GENMASK(3, 0)
#define PI_PROTECT_LMC		34
#define  PI_MKEY_PROTECT	GENMASK(7, 6)
#define  PI_LMC			GENMASK(2, 0)
#define PI_SPEED		35
#define  PI_SPEED_ACTIVE	GENMASK(7, 4)
#define  PI_SPEED_ENABLED	GENMASK(3, 0)
#define PI_MTU_SMSL		36
#define  PI_NEIGHBOR_MTU	GENMASK(7, 4)
#define  PI_SM_SL		GENMASK(3, 0)
#define PI_VL_CAP		37
#define  PI_VL_CAP_VLS		GENMASK(7, 4)
#define PI_VL_HIGH_LIMIT	38
#define PI_VLARB_HIGH_CAP	39
#define PI_VLARB_LOW_CAP	40
#define PI_MTU_CAP		41
#define  PI_MTU_CAP_MTU		GENMASK(3, 0)
#define PI_STALL_HOQ		42
#define  PI_VL_STALL		GENMASK(7, 5)
#define  PI_HOQ_LIFE		GENMASK(4, 0)
#define PI_OPER_VLS		43
#define  PI_OPER_VLS_VLS	GENMASK(7, 4)
#define  PI_ENFORCE		GENMASK(3, 0)	/* partition enforcement, raw filters */
#define PI_MKEY_VIOLATIONS	44
#define PI_PKEY_VIOLATIONS	46
#define PI_QKEY_VIOLATIONS	48
#define PI_GUID_CAP		50
#define PI_REREG_TIMEOUT	51
#define  PI_CLIENT_REREG	BIT(7)
#define  PI_SUBNET_TIMEOUT	GENMASK(4, 0)
#define PI_RESP_TIME		52
#define  PI_RESP_TIME_VALUE	GENMASK(4, 0)
#define PI_ERROR_THRESHOLDS	53
#define PI_SPEED_EXT		62
#define  PI_SPEED_EXT_ACTIVE	GENMASK(7, 4)
#define  PI_SPEED_EXT_SUPPORTED	GENMASK(3, 0)
#define PI_SPEED_EXT_EN		63
#define  PI_SPEED_EXT_ENABLED	GENMASK(4, 0)

/*
 * PortInfo values every port of the fabric shares: 4x links at QDR and
 * EDR speeds, VL0 only; and what a Set may write in the fields.
 */
#define SIB_PI_WIDTHS		0x03	/* 1x and 4x */
#define SIB_PI_WIDTH_4X		0x02
#define SIB_PI_WIDTH_ALL	0xff	/* Set: every supported width */
#define SIB_PI_SPEEDS		0x07	/* 2.5, 5 and 10 Gb/s */
#define SIB_PI_SPEED_QDR	0x04	/* below the extended speed */
#define SIB_PI_SPEED_ALL	0x0f
#define SIB_PI_SPEEDS_EXT	0x03	/* FDR and EDR */
#define SIB_PI_SPEED_EXT_EDR	0x02
#define SIB_PI_SPEED_EXT_OFF	0x1e
#define SIB_PI_SPEED_EXT_ALL	0x1f
#define SIB_PI_STATE_NOP	0
#define SIB_PI_PHYS_NOP		0
#define SIB_PI_PHYS_POLLING	2
#define SIB_PI_PHYS_DISABLED	3
#define SIB_PI_PHYS_LINK_UP	5
#define SIB_PI_DOWN_POLLING	2
#define SIB_PI_VL_CAP		1	/* VL0 only, as query_port says */
#define SIB_PI_VL_DROP		15	/* an SL mapped to VL15 is dropped */

/* PortInfo, unpacked: what a Get shows and a Set asks for. */
struct sib_portinfo {
	u64 mkey;
	u64 gid_prefix;
	u16 lid;
	u16 sm_lid;
	u32 cap_mask;
	u16 mkey_lease;
	u8 local_port;
	u8 width_enabled;
	u8 width_supported;
	u8 width_active;
	u8 speed_supported;
	u8 state;
	u8 phys_state;
	u8 down_default;
	u8 mkey_protect;
	u8 lmc;
	u8 speed_active;
	u8 speed_enabled;
	u8 neighbor_mtu;
	u8 sm_sl;
	u8 vl_cap;
	u8 vl_high_limit;
	u8 vlarb_high_cap;
	u8 vlarb_low_cap;
	u8 mtu_cap;
	u8 vl_stall;
	u8 hoq_life;
	u8 oper_vls;
	u8 enforce;
	u16 mkey_violations;
	u16 pkey_violations;
	u16 qkey_violations;
	u8 guid_cap;
	bool client_rereg;
	u8 subnet_timeout;
	u8 resp_time;
	u8 error_thresholds;
	u8 speed_ext_active;
	u8 speed_ext_supported;
	u8 speed_ext_enabled;
};

static inline void sib_portinfo_decode(const u8 *p, struct sib_portinfo *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->mkey = get_unaligned_be64(p + PI_MKEY);
	pi->gid_prefix = get_unaligned_be64(p + PI_GID_PREFIX);
	pi->lid = get_unaligned_be16(p + PI_LID);
	pi->sm_lid = get_unaligned_be16(p + PI_SM_LID);
	pi->cap_mask = get_unaligned_be32(p + PI_CAP_MASK);
	pi->mkey_lease = get_unaligned_be16(p + PI_MKEY_LEASE);
	pi->local_port = p[PI_LOCAL_PORT];
	pi->width_enabled = p[PI_WIDTH_ENABLED];
	pi->width_supported = p[PI_WIDTH_SUPPORTED];
	pi->width_active = p[PI_WIDTH_ACTIVE];
	pi->speed_supported = FIELD_GET(PI_SPEED_SUPPORTED, p[PI_SPEED_STATE]);
	pi->state = FIELD_GET(PI_STATE, p[PI_SPEED_STATE]);
	pi->phys_state = FIELD_GET(PI_PHYS_STATE, p[PI_PHYS]);
	pi->down_default = FIELD_GET(PI_DOWN_DEFAULT, p[PI_PHYS]);
	pi->mkey_protect = FIELD_GET(PI_MKEY_PROTECT, p[PI_PROTECT_LMC]);
	pi->lmc = FIELD_GET(PI_LMC, p[PI_PROTECT_LMC]);
	pi->speed_active = FIELD_GET(PI_SPEED_ACTIVE, p[PI_SPEED]);
	pi->speed_enabled = FIELD_GET(PI_SPEED_ENABLED, p[PI_SPEED]);
	pi->neighbor_mtu = FIELD_GET(PI_NEIGHBOR_MTU, p[PI_MTU_SMSL]);
	pi->sm_sl = FIELD_GET(PI_SM_SL, p[PI_MTU_SMSL]);
	pi->vl_cap = FIELD_GET(PI_VL_CAP_VLS, p[PI_VL_CAP]);
	pi->vl_high_limit = p[PI_VL_HIGH_LIMIT];
	pi->vlarb_high_cap = p[PI_VLARB_HIGH_CAP];
	pi->vlarb_low_cap = p[PI_VLARB_LOW_CAP];
	pi->mtu_cap = FIELD_GET(PI_MTU_CAP_MTU, p[PI_MTU_CAP]);
	pi->vl_stall = FIELD_GET(PI_VL_STALL, p[PI_STALL_HOQ]);
	pi->hoq_life = FIELD_GET(PI_HOQ_LIFE, p[PI_STALL_HOQ]);
	pi->oper_vls = FIELD_GET(PI_OPER_VLS_VLS, p[PI_OPER_VLS]);
	pi->enforce = FIELD_GET(PI_ENFORCE, p[PI_OPER_VLS]);
	pi->mkey_violations = get_unaligned_be16(p + PI_MKEY_VIOLATIONS);
	pi->pkey_violations = get_unaligned_be16(p + PI_PKEY_VIOLATIONS);
	pi->qkey_violations = get_unaligned_be16(p + PI_QKEY_VIOLATIONS);
	pi->guid_cap = p[PI_GUID_CAP];
	pi->client_rereg = FIELD_GET(PI_CLIENT_REREG, p[PI_REREG_TIMEOUT]);
	pi->subnet_timeout = FIELD_GET(PI_SUBNET_TIMEOUT, p[PI_REREG_TIMEOUT]);
	pi->resp_time = FIELD_GET(PI_RESP_TIME_VALUE, p[PI_RESP_TIME]);
	pi->error_thresholds = p[PI_ERROR_THRESHOLDS];
	pi->speed_ext_active = FIELD_GET(PI_SPEED_EXT_ACTIVE, p[PI_SPEED_EXT]);
	pi->speed_ext_supported = FIELD_GET(PI_SPEED_EXT_SUPPORTED,
					    p[PI_SPEED_EXT]);
	pi->speed_ext_enabled = FIELD_GET(PI_SPEED_EXT_ENABLED,
					  p[PI_SPEED_EXT_EN]);
}

static inline void sib_portinfo_encode(const struct sib_portinfo *pi, u8 *p)
{
	memset(p, 0, 64);
	put_unaligned_be64(pi->mkey, p + PI_MKEY);
	put_unaligned_be64(pi->gid_prefix, p + PI_GID_PREFIX);
	put_unaligned_be16(pi->lid, p + PI_LID);
	put_unaligned_be16(pi->sm_lid, p + PI_SM_LID);
	put_unaligned_be32(pi->cap_mask, p + PI_CAP_MASK);
	put_unaligned_be16(pi->mkey_lease, p + PI_MKEY_LEASE);
	p[PI_LOCAL_PORT] = pi->local_port;
	p[PI_WIDTH_ENABLED] = pi->width_enabled;
	p[PI_WIDTH_SUPPORTED] = pi->width_supported;
	p[PI_WIDTH_ACTIVE] = pi->width_active;
	p[PI_SPEED_STATE] = FIELD_PREP(PI_SPEED_SUPPORTED, pi->speed_supported) |
			    FIELD_PREP(PI_STATE, pi->state);
	p[PI_PHYS] = FIELD_PREP(PI_PHYS_STATE, pi->phys_state) |
		     FIELD_PREP(PI_DOWN_DEFAULT, pi->down_default);
	p[PI_PROTECT_LMC] = FIELD_PREP(PI_MKEY_PROTECT, pi->mkey_protect) |
			    FIELD_PREP(PI_LMC, pi->lmc);
	p[PI_SPEED] = FIELD_PREP(PI_SPEED_ACTIVE, pi->speed_active) |
		      FIELD_PREP(PI_SPEED_ENABLED, pi->speed_enabled);
	p[PI_MTU_SMSL] = FIELD_PREP(PI_NEIGHBOR_MTU, pi->neighbor_mtu) |
			 FIELD_PREP(PI_SM_SL, pi->sm_sl);
	p[PI_VL_CAP] = FIELD_PREP(PI_VL_CAP_VLS, pi->vl_cap);
	p[PI_VL_HIGH_LIMIT] = pi->vl_high_limit;
	p[PI_VLARB_HIGH_CAP] = pi->vlarb_high_cap;
	p[PI_VLARB_LOW_CAP] = pi->vlarb_low_cap;
	p[PI_MTU_CAP] = FIELD_PREP(PI_MTU_CAP_MTU, pi->mtu_cap);
	p[PI_STALL_HOQ] = FIELD_PREP(PI_VL_STALL, pi->vl_stall) |
			  FIELD_PREP(PI_HOQ_LIFE, pi->hoq_life);
	p[PI_OPER_VLS] = FIELD_PREP(PI_OPER_VLS_VLS, pi->oper_vls) |
			 FIELD_PREP(PI_ENFORCE, pi->enforce);
	put_unaligned_be16(pi->mkey_violations, p + PI_MKEY_VIOLATIONS);
	put_unaligned_be16(pi->pkey_violations, p + PI_PKEY_VIOLATIONS);
	put_unaligned_be16(pi->qkey_violations, p + PI_QKEY_VIOLATIONS);
	p[PI_GUID_CAP] = pi->guid_cap;
	p[PI_REREG_TIMEOUT] = FIELD_PREP(PI_CLIENT_REREG, pi->client_rereg) |
			      FIELD_PREP(PI_SUBNET_TIMEOUT, pi->subnet_timeout);
	p[PI_RESP_TIME] = FIELD_PREP(PI_RESP_TIME_VALUE, pi->resp_time);
	p[PI_ERROR_THRESHOLDS] = pi->error_thresholds;
	p[PI_SPEED_EXT] = FIELD_PREP(PI_SPEED_EXT_ACTIVE, pi->speed_ext_active) |
			  FIELD_PREP(PI_SPEED_EXT_SUPPORTED,
				     pi->speed_ext_supported);
	p[PI_SPEED_EXT_EN] = FIELD_PREP(PI_SPEED_EXT_ENABLED,
					pi->speed_ext_enabled);
}

/* SwitchInfo (IBA 14.2.5.4). */
#define SWI_LFT_CAP		0
#define SWI_RFT_CAP		2
#define SWI_MFT_CAP		4
#define SWI_LFT_TOP		6
#define SWI_DEFAULT_PORT	8
#define SWI_DEFAULT_MCAST_PRI	9
#define SWI_DEFAULT_MCAST_NOT	10
#define SWI_LIFE_STATE		11
#define  SWI_LIFE_TIME		GENMASK(7, 3)
#define  SWI_STATE_CHANGE	BIT(2)
#define SWI_LIDS_PER_PORT	12
#define SWI_ENFORCE_CAP		14
#define SWI_FLAGS		16
#define  SWI_ENHANCED_PORT0	BIT(3)
#define SWI_MFT_TOP		18

/* Forwarding table blocks (IBA 14.2.5.10, 14.2.5.12). */
#define SIB_LFT_BLOCK		64	/* one port byte per LID */
#define SIB_MFT_BLOCK		32	/* one 16-bit port mask per MLID */

#endif /* SIB_SMP_WIRE_H */
