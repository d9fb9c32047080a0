// SPDX-License-Identifier: GPL-2.0
/*
 * A switch's subnet management agent (IBA 14.2.5): NodeInfo,
 * NodeDescription, SwitchInfo, PortInfo of every port, P_KeyTable of port
 * 0, SLtoVLMappingTable, VLArbitrationTable, LinearForwardingTable,
 * MulticastForwardingTable and, on switch 0 under sm=builtin, SMInfo.
 *
 * Under sm=builtin it shows what the built-in SM decided (the LFT the
 * min-hop way to each port's and switch's LID along the line, the MFT the
 * SA's groups: the ports towards every member) and takes no Set.  Under
 * sm=external it takes the Sets an SM sweeps with: port 0's LID, SM LID
 * and P_Keys; each external port's logical state, MTU and VLs; the
 * SwitchInfo fields an SM writes; the LFT and MFT the data path then
 * follows.  It has no SM of its own there: no IsSM, no SMInfo.
 *
 * Runs in the fabric's ordered work queue; what the data path reads is
 * written under sib_fabric.lock.
 */
#include <linux/bitfield.h>
#include <rdma/ib_mad.h>
#include "sib_switch.h"
#include "sib_smp_wire.h"

#define SW_DEVICE_ID		2
#define SW_LIFE_TIME		18	/* 4.096 us << 18 */
#define SW_MFT_PORTS		16	/* ports per MFT position */
#define SW_SM_PRIORITY		0
#define SW_SM_MASTER		3	/* SMInfo SMState (IBA 14.2.5.13) */
#define SW_SLS			16

#define STATUS_BAD_VERSION	IB_MGMT_MAD_STATUS_BAD_VERSION
#define STATUS_BAD_METHOD	IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD
#define STATUS_UNSUPPORTED	IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB
#define STATUS_INVALID		IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE

/* SMInfo (IBA 14.2.5.13). */
#define SMI_GUID		0
#define SMI_SM_KEY		8
#define SMI_ACT_COUNT		16
#define SMI_PRIO_STATE		20

/* PortInfo's attribute modifier: the port; bit 31, extended speeds. */
#define SW_PI_PORT		GENMASK(7, 0)
#define SW_PI_SM_EXT_SPEEDS	BIT(31)

/* SLtoVLMappingTable's: input and output port. */
#define SW_SL2VL_IN		GENMASK(15, 8)
#define SW_SL2VL_OUT		GENMASK(7, 0)

/* VLArbitrationTable's: block 1 low, 3 high (8 entries: no 2 or 4). */
#define SW_VLARB_BLOCK		GENMASK(31, 16)
#define SW_VLARB_PORT		GENMASK(15, 0)
#define SW_VLARB_LOW		1
#define SW_VLARB_HIGH		3

/* MulticastForwardingTable's: 16 ports a position, 32 MLIDs a block. */
#define SW_MFT_POSITION		GENMASK(31, 28)
#define SW_MFT_BLOCK		GENMASK(8, 0)

/* Power-on values: what an external SM finds before it sets anything. */
void sib_switch_sma_init(struct sib_switch *sw)
{
	u32 p;

	sw->pkeys[0] = IB_DEFAULT_PKEY_FULL;
	sw->subnet_timeout = SW_LIFE_TIME;
	sw->life_time = SW_LIFE_TIME;
	sw->default_mcast_primary = SW_NO_PORT;
	sw->default_mcast_other = SW_NO_PORT;
	memset(sw->lft, SW_NO_PORT, sizeof(sw->lft));
	for (p = 1; p <= sw->nports; p++) {
		struct sib_sw_port *sp = &sw->port[p];

		sp->neighbor_mtu = ib_mtu_int_to_enum(sib_port_mtu);
		sp->oper_vls = SIB_PI_VL_CAP;
		sp->down_default = SIB_PI_DOWN_POLLING;
		sp->width_enabled = SIB_PI_WIDTHS;
		sp->speed_enabled = SIB_PI_SPEEDS;
		sp->speed_ext_enabled = SIB_PI_SPEEDS_EXT;
	}
}

struct sw_req {
	struct sib_switch *sw;
	const struct ib_smp *in;
	struct ib_smp *out;
	u32 in_port;			/* the port the SMP came in on */
	bool set;
};

/* NodeInfo, the SMP having come in on local_port. */
void sib_switch_node_info(struct sib_switch *sw, u8 local_port,
			  struct ib_node_info *ni)
{
	memset(ni, 0, sizeof(*ni));
	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = SW_CLASS_VERSION;
	ni->node_type = RDMA_NODE_IB_SWITCH;
	ni->num_ports = sw->nports;
	ni->sys_guid = sib_switch_guid(sw);
	ni->node_guid = sib_switch_guid(sw);
	ni->port_guid = sib_switch_guid(sw);	/* port 0's */
	ni->partition_cap = cpu_to_be16(SIB_PKEY_TABLE_LEN);
	ni->device_id = cpu_to_be16(SW_DEVICE_ID);
	ni->revision = cpu_to_be32(1);
	ni->local_port_num = local_port;
	ni->vendor_id[1] = (SIB_VENDOR_ID >> 8) & 0xff;
	ni->vendor_id[2] = SIB_VENDOR_ID & 0xff;
}

static u16 sw_node_info(struct sw_req *r)
{
	if (r->set)
		return STATUS_UNSUPPORTED;	/* read-only */
	sib_switch_node_info(r->sw, r->in_port,
			     (struct ib_node_info *)r->out->data);
	return 0;
}

static u16 sw_node_desc(struct sw_req *r)
{
	if (r->set)
		return STATUS_UNSUPPORTED;
	strscpy(r->out->data, sib_switch_desc(r->sw), sizeof(r->out->data));
	return 0;
}

/* Under rcu_read_lock(): the highest LID the built-in SM routes. */
static u16 sw_builtin_lft_top(void)
{
	u16 lid, top = SIB_SM_LID;
	u32 s;

	for (lid = SIB_FIRST_LID; lid <= SIB_MAX_LID; lid++)
		if (sib_port_by_lid(lid))
			top = lid;
	for (s = 0; s < sib_fabric.nswitches; s++)
		top = max(top, sib_switch_lid(&sib_fabric.sw[s]));
	return top;
}

/* Under sib_fabric.lock and rcu_read_lock(). */
static void sw_switch_info_get(struct sib_switch *sw, u8 *p)
{
	bool ext = sib_sm_external;

	put_unaligned_be16(ext ? SIB_SW_LFT_CAP : SIB_MAX_LID + 1,
			   p + SWI_LFT_CAP);
	put_unaligned_be16(SIB_MAX_MLIDS, p + SWI_MFT_CAP);
	put_unaligned_be16(ext ? sw->lft_top : sw_builtin_lft_top(),
			   p + SWI_LFT_TOP);
	p[SWI_DEFAULT_PORT] = sw->default_port;
	p[SWI_DEFAULT_MCAST_PRI] = sw->default_mcast_primary;
	p[SWI_DEFAULT_MCAST_NOT] = sw->default_mcast_other;
	p[SWI_LIFE_STATE] = FIELD_PREP(SWI_LIFE_TIME, sw->life_time) |
			    (sw->state_change ? SWI_STATE_CHANGE : 0);
	put_unaligned_be16(SIB_MLID_BASE + SIB_MAX_MLIDS - 1, p + SWI_MFT_TOP);
}

/*
 * SwitchInfo (IBA 14.2.5.4).  A Set writes LinearFDBTop, the default
 * ports and LifeTimeValue, and clears PortStateChange with a 1.
 */
static u16 sw_switch_info(struct sw_req *r)
{
	const u8 *in = r->in->data;
	u16 top = get_unaligned_be16(in + SWI_LFT_TOP);
	struct sib_switch *sw = r->sw;
	unsigned long flags;
	u16 status = 0;

	rcu_read_lock();
	spin_lock_irqsave(&sib_fabric.lock, flags);
	if (r->set && top >= SIB_SW_LFT_CAP) {
		status = STATUS_INVALID;
	} else if (r->set) {
		WRITE_ONCE(sw->lft_top, top);
		sw->default_port = in[SWI_DEFAULT_PORT];
		sw->default_mcast_primary = in[SWI_DEFAULT_MCAST_PRI];
		sw->default_mcast_other = in[SWI_DEFAULT_MCAST_NOT];
		sw->life_time = FIELD_GET(SWI_LIFE_TIME, in[SWI_LIFE_STATE]);
		if (in[SWI_LIFE_STATE] & SWI_STATE_CHANGE)
			sw->state_change = false;
	}
	sw_switch_info_get(sw, r->out->data);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	rcu_read_unlock();
	return status;
}

/* Under sib_fabric.lock and rcu_read_lock(): port 0 or an external port. */
static void sw_port_info_get(struct sib_switch *sw, u32 port_num,
			     u8 local_port, struct sib_portinfo *pi)
{
	const struct sib_sw_port *sp = &sw->port[port_num];
	struct sib_port *hca = sib_switch_hca(sw, port_num);
	bool ext = sib_sm_external;
	bool disabled;

	memset(pi, 0, sizeof(*pi));
	pi->local_port = local_port;
	pi->width_supported = SIB_PI_WIDTHS;
	pi->width_active = SIB_PI_WIDTH_4X;
	pi->speed_supported = SIB_PI_SPEEDS;
	pi->speed_active = SIB_PI_SPEED_QDR;
	pi->speed_ext_active = SIB_PI_SPEED_EXT_EDR;
	pi->speed_ext_supported = SIB_PI_SPEEDS_EXT;
	pi->vl_cap = SIB_PI_VL_CAP;
	pi->vlarb_high_cap = SIB_VLARB_CAP;
	pi->vlarb_low_cap = SIB_VLARB_CAP;
	/*
	 * The switch is built for the fabric's link MTU (mtu=): an SM that
	 * takes the smaller MTUCap of a link's ends gives the HCA that one.
	 */
	pi->mtu_cap = ib_mtu_int_to_enum(sib_port_mtu);
	pi->state = sib_switch_port_state(sw, port_num);
	if (!port_num) {
		/* The management port: LID, SM and capabilities live here. */
		pi->gid_prefix = SIB_SUBNET_PREFIX;
		pi->lid = sib_switch_lid(sw);
		pi->sm_lid = ext ? sw->sm_lid : SIB_SM_LID;
		pi->sm_sl = sw->sm_sl;
		pi->mkey = sw->mkey;
		pi->mkey_lease = sw->mkey_lease;
		pi->mkey_protect = sw->mkey_protect;
		pi->cap_mask = IB_PORT_EXTENDED_SPEEDS_SUP |
			       IB_PORT_SYS_IMAGE_GUID_SUP;
		if (!ext && !sw->index)
			pi->cap_mask |= IB_PORT_SM;
		pi->guid_cap = 1;
		pi->subnet_timeout = sw->subnet_timeout;
		pi->width_enabled = SIB_PI_WIDTHS;
		pi->speed_enabled = SIB_PI_SPEEDS;
		pi->speed_ext_enabled = SIB_PI_SPEEDS_EXT;
		pi->neighbor_mtu = pi->mtu_cap;
		pi->oper_vls = SIB_PI_VL_CAP;
		pi->down_default = SIB_PI_DOWN_POLLING;
		pi->phys_state = SIB_PI_PHYS_LINK_UP;
		return;
	}
	pi->subnet_timeout = SW_LIFE_TIME;
	if (ext) {
		pi->neighbor_mtu = sp->neighbor_mtu;
		pi->oper_vls = sp->oper_vls;
		pi->vl_high_limit = sp->vl_high_limit;
		pi->hoq_life = sp->hoq_life;
		pi->vl_stall = sp->vl_stall;
		pi->down_default = sp->down_default;
		pi->width_enabled = sp->width_enabled;
		pi->speed_enabled = sp->speed_enabled;
		pi->speed_ext_enabled = sp->speed_ext_enabled;
		disabled = sp->disabled;
	} else {
		pi->neighbor_mtu = hca ? READ_ONCE(hca->active_mtu) :
					 pi->mtu_cap;
		pi->oper_vls = SIB_PI_VL_CAP;
		pi->down_default = SIB_PI_DOWN_POLLING;
		pi->width_enabled = SIB_PI_WIDTHS;
		pi->speed_enabled = SIB_PI_SPEEDS;
		pi->speed_ext_enabled = SIB_PI_SPEEDS_EXT;
		disabled = hca && READ_ONCE(hca->mgmt.disabled);
	}
	if (pi->state != IB_PORT_DOWN)
		pi->phys_state = SIB_PI_PHYS_LINK_UP;
	else
		pi->phys_state = disabled ? SIB_PI_PHYS_DISABLED :
					    SIB_PI_PHYS_POLLING;
}

/* PortInfo as the SM on port 0 reads it: for the SA. */
void sib_switch_portinfo(struct sib_switch *sw, u32 port_num,
			 struct sib_portinfo *pi)
{
	unsigned long flags;

	rcu_read_lock();
	spin_lock_irqsave(&sib_fabric.lock, flags);
	sw_port_info_get(sw, port_num, 0, pi);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	rcu_read_unlock();
}

/* Under sib_fabric.lock: port 0's LID, SM and M_Key, as an SM sets them. */
static bool sw_port0_set(struct sib_switch *sw,
			 const struct sib_portinfo *req)
{
	lockdep_assert_held(&sib_fabric.lock);
	if (!req->lid || req->lid > SIB_LID_UCAST_TOP || req->lmc ||
	    !req->sm_lid || req->sm_lid > SIB_LID_UCAST_TOP ||
	    req->gid_prefix != SIB_SUBNET_PREFIX)
		return false;
	WRITE_ONCE(sw->lid, req->lid);
	WRITE_ONCE(sw->sm_lid, req->sm_lid);
	sw->sm_sl = req->sm_sl;
	sw->mkey = req->mkey;
	sw->mkey_lease = req->mkey_lease;
	sw->mkey_protect = req->mkey_protect;
	sw->subnet_timeout = req->subnet_timeout;
	return true;
}

/*
 * Under sib_fabric.lock: an external port's link fields.  Returns false
 * if the Set is not valid (nothing changes); *hca_down when the HCA's end
 * of the link went down with it.
 */
static bool sw_port_set(struct sib_switch *sw, u32 port_num,
			const struct sib_portinfo *req, bool *hca_down)
{
	struct sib_sw_port *sp = &sw->port[port_num];
	struct sib_port *hca = sib_switch_hca(sw, port_num);
	bool retrain, relink;
	u32 peer_port;

	lockdep_assert_held(&sib_fabric.lock);
	if (!sib_portinfo_link_valid(req, sp->state,
				     ib_mtu_int_to_enum(sib_port_mtu)))
		return false;
	sp->neighbor_mtu = req->neighbor_mtu;
	if (req->oper_vls)
		sp->oper_vls = req->oper_vls;
	sp->vl_high_limit = req->vl_high_limit;
	sp->hoq_life = req->hoq_life;
	sp->vl_stall = req->vl_stall;
	if (req->down_default)
		sp->down_default = req->down_default;
	if (req->width_enabled)
		sp->width_enabled = req->width_enabled == SIB_PI_WIDTH_ALL ?
				    SIB_PI_WIDTHS : req->width_enabled;
	if (req->speed_enabled)
		sp->speed_enabled = req->speed_enabled == SIB_PI_SPEED_ALL ?
				    SIB_PI_SPEEDS : req->speed_enabled;
	if (req->speed_ext_enabled)
		sp->speed_ext_enabled =
			req->speed_ext_enabled == SIB_PI_SPEED_EXT_ALL ?
			SIB_PI_SPEEDS_EXT : req->speed_ext_enabled;

	/* Down, Disabled and Polling act on the link, so on both ends. */
	if (req->phys_state == SIB_PI_PHYS_DISABLED ||
	    req->phys_state == SIB_PI_PHYS_POLLING)
		sp->disabled = req->phys_state == SIB_PI_PHYS_DISABLED;
	retrain = req->phys_state != SIB_PI_PHYS_DISABLED;
	relink = req->phys_state != SIB_PI_PHYS_NOP ||
		 (req->state == IB_PORT_DOWN && !sp->disabled);
	if (hca && relink)
		*hca_down = sib_link_update_locked(hca, retrain);
	else if (!hca && relink && sib_switch_peer(sw, port_num, &peer_port))
		sib_switch_isl_update_locked(sw, port_num, retrain);
	else if (!hca && sp->disabled)
		sib_switch_port_state_locked(sw, port_num, IB_PORT_DOWN);
	if (req->state == IB_PORT_ARMED || req->state == IB_PORT_ACTIVE)
		WRITE_ONCE(sp->state, req->state);
	return true;
}

static u16 sw_port_info(struct sw_req *r)
{
	struct sib_switch *sw = r->sw;
	u32 mod = be32_to_cpu(r->in->attr_mod);
	u32 port_num = FIELD_GET(SW_PI_PORT, mod);
	struct sib_port *hca = NULL;
	struct sib_portinfo pi;
	bool hca_down = false;
	unsigned long flags;
	u16 status = 0;

	if (port_num > sw->nports || (mod & ~(SW_PI_PORT | SW_PI_SM_EXT_SPEEDS)))
		return STATUS_INVALID;
	rcu_read_lock();
	spin_lock_irqsave(&sib_fabric.lock, flags);
	if (r->set) {
		sib_portinfo_decode(r->in->data, &pi);
		if (!(mod & SW_PI_SM_EXT_SPEEDS))
			pi.speed_ext_enabled = 0;
		if (port_num ? !sw_port_set(sw, port_num, &pi, &hca_down) :
			       !sw_port0_set(sw, &pi))
			status = STATUS_INVALID;
	}
	sw_port_info_get(sw, port_num, r->in_port, &pi);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	if (hca_down) {
		hca = sib_switch_hca(sw, port_num);
		if (hca)
			sib_link_lost(hca);
	}
	rcu_read_unlock();
	sib_portinfo_encode(&pi, r->out->data);
	return status;
}

/* P_KeyTable (IBA 14.2.5.7) of port 0; external ports enforce none. */
static u16 sw_pkey_table(struct sw_req *r)
{
	const __be16 *in = (const __be16 *)r->in->data;
	__be16 *out = (__be16 *)r->out->data;
	struct sib_switch *sw = r->sw;
	unsigned long flags;
	int i;

	if (be32_to_cpu(r->in->attr_mod))
		return STATUS_INVALID;	/* port 0, block 0 only */
	spin_lock_irqsave(&sib_fabric.lock, flags);
	for (i = 0; r->set && i < SIB_PKEY_TABLE_LEN; i++)
		sw->pkeys[i] = be16_to_cpu(in[i]);
	for (i = 0; i < SIB_PKEY_TABLE_LEN; i++)
		out[i] = cpu_to_be16(sw->pkeys[i]);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	return 0;
}

/* SLtoVLMappingTable (IBA 14.2.5.8) from one port to another: VL0 or 15. */
static u16 sw_sl2vl(struct sw_req *r)
{
	u32 mod = be32_to_cpu(r->in->attr_mod);
	u32 in_port = FIELD_GET(SW_SL2VL_IN, mod);
	u32 out_port = FIELD_GET(SW_SL2VL_OUT, mod);
	struct sib_switch *sw = r->sw;
	unsigned long flags;
	u8 *table;
	int i;

	if (in_port > sw->nports || out_port > sw->nports ||
	    (mod & ~(SW_SL2VL_IN | SW_SL2VL_OUT)))
		return STATUS_INVALID;
	for (i = 0; r->set && i < SW_SLS; i++) {
		u8 vl = (r->in->data[i / 2] >> (i % 2 ? 0 : 4)) & 0xf;

		if (vl >= SIB_PI_VL_CAP && vl != SIB_PI_VL_DROP)
			return STATUS_INVALID;
	}
	table = sw->port[out_port].sl2vl[in_port];
	spin_lock_irqsave(&sib_fabric.lock, flags);
	if (r->set)
		memcpy(table, r->in->data, sizeof(sw->port[0].sl2vl[0]));
	memcpy(r->out->data, table, sizeof(sw->port[0].sl2vl[0]));
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	return 0;
}

/* VLArbitrationTable (IBA 14.2.5.9) of an external port. */
static u16 sw_vlarb(struct sw_req *r)
{
	u32 mod = be32_to_cpu(r->in->attr_mod);
	u32 block = FIELD_GET(SW_VLARB_BLOCK, mod);
	u32 port_num = FIELD_GET(SW_VLARB_PORT, mod);
	struct sib_switch *sw = r->sw;
	unsigned long flags;
	u8 *table;
	int i;

	if ((block != SW_VLARB_LOW && block != SW_VLARB_HIGH) || !port_num ||
	    port_num > sw->nports)
		return STATUS_INVALID;
	for (i = 0; r->set && i < SIB_VLARB_CAP; i++)
		if ((r->in->data[2 * i] & 0xf) == SIB_PI_VL_DROP)
			return STATUS_INVALID;
	table = sw->port[port_num].vlarb[block == SW_VLARB_HIGH];
	spin_lock_irqsave(&sib_fabric.lock, flags);
	if (r->set)
		memcpy(table, r->in->data, 2 * SIB_VLARB_CAP);
	memcpy(r->out->data, table, 2 * SIB_VLARB_CAP);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	return 0;
}

/* LinearForwardingTable (IBA 14.2.5.10): 64 LIDs a block, a port each. */
static u16 sw_lft(struct sw_req *r)
{
	u32 block = be32_to_cpu(r->in->attr_mod);
	u32 cap = sib_sm_external ? SIB_SW_LFT_CAP : SIB_MAX_LID + 1;
	struct sib_switch *sw = r->sw;
	u8 *entries = sw->lft + block * SIB_LFT_BLOCK;
	unsigned long flags;
	u32 i;

	if (block >= DIV_ROUND_UP(cap, SIB_LFT_BLOCK))
		return STATUS_INVALID;
	if (!sib_sm_external) {
		rcu_read_lock();
		for (i = 0; i < SIB_LFT_BLOCK; i++)
			r->out->data[i] = sib_switch_builtin_lft(sw, block * SIB_LFT_BLOCK + i);
		rcu_read_unlock();
		return 0;
	}
	spin_lock_irqsave(&sib_fabric.lock, flags);
	for (i = 0; r->set && i < SIB_LFT_BLOCK; i++)
		WRITE_ONCE(entries[i], r->in->data[i]);
	memcpy(r->out->data, entries, SIB_LFT_BLOCK);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	return 0;
}

/*
 * MulticastForwardingTable (IBA 14.2.5.12): the modifier's bits 31:28
 * pick 16 ports, bits 8:0 a block of 32 MLIDs; each entry is the mask of
 * the ports the MLID goes out of.
 */
static u16 sw_mft(struct sw_req *r)
{
	u32 mod = be32_to_cpu(r->in->attr_mod);
	u32 position = FIELD_GET(SW_MFT_POSITION, mod);
	u32 block = FIELD_GET(SW_MFT_BLOCK, mod);
	u32 shift = position * SW_MFT_PORTS;
	struct sib_switch *sw = r->sw;
	u32 ports = GENMASK(sw->nports, 0);
	const __be16 *in = (const __be16 *)r->in->data;
	__be16 *masks = (__be16 *)r->out->data;
	unsigned long flags;
	u32 i, index, mask;
	u16 mlid;

	if (block >= SIB_MAX_MLIDS / SIB_MFT_BLOCK ||
	    position > sw->nports / SW_MFT_PORTS)
		return STATUS_INVALID;
	spin_lock_irqsave(&sib_fabric.lock, flags);
	for (i = 0; i < SIB_MFT_BLOCK; i++) {
		index = block * SIB_MFT_BLOCK + i;
		if (r->set) {
			mask = sw->mft[index] & ~(0xffffU << shift);
			mask |= ((u32)be16_to_cpu(in[i]) << shift) & ports;
			WRITE_ONCE(sw->mft[index], mask);
		}
		mask = sib_sm_external ? sw->mft[index] : 0;
		masks[i] = cpu_to_be16(mask >> shift);
	}
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	rcu_read_lock();
	for (i = 0; !sib_sm_external && i < SIB_MFT_BLOCK; i++) {
		mlid = SIB_MLID_BASE + block * SIB_MFT_BLOCK + i;
		mask = sib_switch_builtin_mft(sw, sib_mft_members(mlid));
		masks[i] = cpu_to_be16(mask >> shift);
	}
	rcu_read_unlock();
	return 0;
}

/*
 * SMInfo: the built-in SM, master of the subnet, behind switch 0; none
 * elsewhere, nor under an external SM.
 */
static u16 sw_sm_info(struct sw_req *r)
{
	u8 *p = r->out->data;

	if (r->set || sib_sm_external || r->sw->index)
		return STATUS_UNSUPPORTED;
	put_unaligned_be64(SIB_SM_GUID, p + SMI_GUID);
	put_unaligned_be32(atomic_read(&r->sw->sm_act_count),
			   p + SMI_ACT_COUNT);
	p[SMI_PRIO_STATE] = SW_SM_PRIORITY << 4 | SW_SM_MASTER;
	return 0;
}

/* The status of the answer to an SMP for the switch; out holds the rest. */
u16 sib_switch_sma(struct sib_switch *sw, const struct ib_smp *in,
		   struct ib_smp *out, u32 in_port)
{
	struct sw_req r = {
		.sw = sw,
		.in = in,
		.out = out,
		.in_port = in_port,
		.set = in->method == IB_MGMT_METHOD_SET,
	};

	if (in->class_version != SW_CLASS_VERSION)
		return STATUS_BAD_VERSION;
	if (in->method != IB_MGMT_METHOD_GET && !r.set)
		return STATUS_BAD_METHOD;
	/* The built-in SM set everything already: its switch takes no Set. */
	if (r.set && !sib_sm_external)
		return STATUS_UNSUPPORTED;
	switch (in->attr_id) {
	case IB_SMP_ATTR_NODE_INFO:
		return sw_node_info(&r);
	case IB_SMP_ATTR_NODE_DESC:
		return sw_node_desc(&r);
	case IB_SMP_ATTR_SWITCH_INFO:
		return sw_switch_info(&r);
	case IB_SMP_ATTR_PORT_INFO:
		return sw_port_info(&r);
	case IB_SMP_ATTR_LINEAR_FORWARD_TABLE:
		return sw_lft(&r);
	case IB_SMP_ATTR_MCAST_FORWARD_TABLE:
		return sw_mft(&r);
	case IB_SMP_ATTR_PKEY_TABLE:
		return sw_pkey_table(&r);
	case IB_SMP_ATTR_SL_TO_VL_TABLE:
		return sw_sl2vl(&r);
	case IB_SMP_ATTR_VL_ARB_TABLE:
		return sw_vlarb(&r);
	case IB_SMP_ATTR_SM_INFO:
		return sw_sm_info(&r);
	default:
		return STATUS_UNSUPPORTED;
	}
}
