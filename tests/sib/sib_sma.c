// SPDX-License-Identifier: GPL-2.0
/*
 * The subnet management agent of every HCA port (IBA 14.2): ib_core hands
 * process_mad the SMPs that reach QP0, LID-routed or directed-route (the
 * hop pointer already handled, C14-9), and the SMA answers SubnGet and
 * SubnSet of NodeInfo, NodeDescription, PortInfo, P_KeyTable, GUIDInfo,
 * SLtoVLMappingTable and VLArbitrationTable, and answers any other
 * attribute or method with the status that says so, as an HCA's firmware
 * does.  SMInfo and traps are for an SM running on the port (OpenSM's MAD
 * agent), and answers for whoever asked: those go on to the MAD agents.
 * Performance management MADs go to the PMA.
 *
 * process_mad may run where sleeping is not allowed: a SubnSet changes
 * the port under sib_fabric.lock, raises the events a real port raises
 * (ib_dispatch_event() is atomic-safe) and leaves SA bookkeeping to the
 * SA's work.
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include "sib.h"
#include "sib_smp_wire.h"

/* PortInfo encodings (IBA 14.2.5.6). */
#define SMA_SLS			16
#define SMA_RESP_TIME		8	/* 4.096 us << 8: about 1 ms */
#define SMA_SUBNET_TIMEOUT	14	/* the built-in SM's, as its SA's path lifetimes */
#define SMA_SM_CLASS_VERSION	1
#define SMA_GUIDS_PER_BLOCK	8
#define SMA_PKEYS_PER_BLOCK	32

#define STATUS_BAD_VERSION	IB_MGMT_MAD_STATUS_BAD_VERSION
#define STATUS_BAD_METHOD	IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD
#define STATUS_UNSUPPORTED	IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB
#define STATUS_INVALID		IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE

/*
 * GUIDInfo at power-on: entry 0 the port GUID, the aliases unassigned
 * until the SM sets them; the built-in SM has assigned its own before the
 * port first comes up: the port GUID with the index in bits 39:32.
 */
static void sma_guids_init(struct sib_port *port)
{
	u32 i;

	memset(port->guids, 0, sizeof(port->guids));
	port->guids[0] = port->guid;
	for (i = 1; i < sib_gids && !sib_sm_external; i++)
		port->guids[i] = cpu_to_be64(be64_to_cpu(port->guid) |
					     (u64)i << SIB_ALIAS_GUID_SHIFT);
}

/* Power-on values, before any SM writes. */
void sib_sma_init_port(struct sib_port *port)
{
	struct sib_port_mgmt *m = &port->mgmt;

	memset(m, 0, sizeof(*m));
	/* An external SM is not known until it sets itself here. */
	m->sm_lid = sib_sm_external ? 0 : SIB_SM_LID;
	m->subnet_timeout = SMA_SUBNET_TIMEOUT;
	m->down_default = SIB_PI_DOWN_POLLING;
	m->width_enabled = SIB_PI_WIDTHS;
	m->speed_enabled = SIB_PI_SPEEDS;
	m->speed_ext_enabled = SIB_PI_SPEEDS_EXT;
	INIT_WORK(&port->sa_sync_work, sib_sm_sa_sync_work);
	sma_guids_init(port);
}

/* An answer starts as a copy of the request: TID, attribute, DR paths. */
void sib_smp_begin(const struct ib_smp *in, struct ib_smp *out)
{
	memcpy(out, in, sizeof(*out));
	memset(out->data, 0, sizeof(out->data));
}

/* GetResp with the status; directed-route answers travel back (D bit). */
void sib_smp_end(struct ib_smp *out, u16 status)
{
	__be16 dir = out->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE ?
		     IB_SMP_DIRECTION : 0;

	out->method = IB_MGMT_METHOD_GET_RESP;
	out->status = cpu_to_be16(status) | dir;
}

/* One SMP being answered. */
struct sma_req {
	struct sib_dev *sdev;
	struct sib_port *port;		/* the port it came in on */
	const struct ib_smp *in;
	struct ib_smp *out;
	bool set;
};

/* NodeInfo (IBA 14.2.5.3) as seen through one of the HCA's ports. */
void sib_sma_node_info(struct sib_port *port, struct ib_node_info *ni)
{
	struct sib_dev *sdev = port->sdev;
	const struct ib_device_attr *attrs = &sdev->ibdev.attrs;

	memset(ni, 0, sizeof(*ni));
	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = SMA_SM_CLASS_VERSION;
	ni->node_type = RDMA_NODE_IB_CA;
	ni->num_ports = sdev->nports;
	ni->sys_guid = attrs->sys_image_guid;
	ni->node_guid = sdev->ibdev.node_guid;
	ni->port_guid = port->guid;
	ni->partition_cap = cpu_to_be16(SIB_PKEY_TABLE_LEN);
	ni->device_id = cpu_to_be16(attrs->vendor_part_id);
	ni->revision = cpu_to_be32(attrs->hw_ver);
	ni->local_port_num = port->port_num;
	ni->vendor_id[0] = (attrs->vendor_id >> 16) & 0xff;
	ni->vendor_id[1] = (attrs->vendor_id >> 8) & 0xff;
	ni->vendor_id[2] = attrs->vendor_id & 0xff;
}

static u16 sma_node_info(struct sma_req *r)
{
	if (r->set)
		return STATUS_UNSUPPORTED;	/* read-only */
	sib_sma_node_info(r->port, (struct ib_node_info *)r->out->data);
	return 0;
}

static u16 sma_node_desc(struct sma_req *r)
{
	if (r->set)
		return STATUS_UNSUPPORTED;
	BUILD_BUG_ON(sizeof(r->sdev->ibdev.node_desc) > IB_SMP_DATA_SIZE);
	memcpy(r->out->data, r->sdev->ibdev.node_desc,
	       sizeof(r->sdev->ibdev.node_desc));
	return 0;
}

/* The port an attribute modifier names: 0 is the one the SMP came in on. */
static struct sib_port *sma_port_of(struct sma_req *r, u32 num)
{
	if (!num)
		return r->port;
	if (num > r->sdev->nports)
		return NULL;
	return sib_port(r->sdev, num);
}

static u16 sat16(u64 v)
{
	return min_t(u64, v, U16_MAX);
}

/* Under sib_fabric.lock: the port as PortInfo shows it. */
static void sma_portinfo_get(struct sib_port *port, u8 local_port,
			     struct sib_portinfo *pi)
{
	const struct sib_port_mgmt *m = &port->mgmt;
	enum ib_port_state state = port->state;

	lockdep_assert_held(&sib_fabric.lock);
	memset(pi, 0, sizeof(*pi));
	pi->mkey = m->mkey;
	pi->gid_prefix = SIB_SUBNET_PREFIX;
	pi->lid = port->lid;
	pi->lmc = port->lmc;
	pi->sm_lid = m->sm_lid;
	pi->cap_mask = port->cap_flags;
	pi->mkey_lease = m->mkey_lease;
	pi->local_port = local_port;
	pi->width_enabled = m->width_enabled;
	pi->width_supported = SIB_PI_WIDTHS;
	pi->width_active = SIB_PI_WIDTH_4X;
	pi->speed_supported = SIB_PI_SPEEDS;
	pi->state = state;
	if (state != IB_PORT_DOWN)
		pi->phys_state = SIB_PI_PHYS_LINK_UP;
	else
		pi->phys_state = m->disabled ? SIB_PI_PHYS_DISABLED :
					       SIB_PI_PHYS_POLLING;
	pi->down_default = m->down_default;
	pi->mkey_protect = m->mkey_protect;
	pi->speed_active = SIB_PI_SPEED_QDR;
	pi->speed_enabled = m->speed_enabled;
	pi->neighbor_mtu = port->active_mtu;
	pi->sm_sl = m->sm_sl;
	pi->vl_cap = SIB_PI_VL_CAP;
	pi->vl_high_limit = m->vl_high_limit;
	pi->vlarb_high_cap = SIB_VLARB_CAP;
	pi->vlarb_low_cap = SIB_VLARB_CAP;
	pi->mtu_cap = IB_MTU_4096;
	pi->oper_vls = SIB_PI_VL_CAP;
	pi->pkey_violations =
		sat16(sib_counter_sum(port, SIB_CNT_PKEY_VIOLATIONS));
	pi->qkey_violations =
		sat16(sib_counter_sum(port, SIB_CNT_QKEY_VIOLATIONS));
	pi->guid_cap = sib_gids;
	pi->subnet_timeout = m->subnet_timeout;
	pi->resp_time = SMA_RESP_TIME;
	pi->error_thresholds = m->error_thresholds;
	pi->speed_ext_active = SIB_PI_SPEED_EXT_EDR;
	pi->speed_ext_supported = SIB_PI_SPEEDS_EXT;
	pi->speed_ext_enabled = m->speed_ext_enabled;
}

/* PortInfo as the SM reads it through the port itself: for the SA. */
void sib_sma_portinfo(struct sib_port *port, struct sib_portinfo *pi)
{
	unsigned long flags;

	spin_lock_irqsave(&sib_fabric.lock, flags);
	sma_portinfo_get(port, port->port_num, pi);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
}

/* An "enabled" mask a Set may write: no change, all, or supported bits. */
static bool sma_mask_ok(u8 want, u8 all, u8 supported)
{
	return !want || want == all || !(want & ~supported);
}

/*
 * The link fields of a PortInfo SubnSet, at an HCA's or a switch's port
 * in state cur whose MTUCap is mtu_cap: legal transitions (INIT -> ARMED
 * -> ACTIVE, IBA 7.2, or Down), states and masks the port has.
 */
bool sib_portinfo_link_valid(const struct sib_portinfo *req,
			     enum ib_port_state cur, u8 mtu_cap)
{
	switch (req->state) {
	case SIB_PI_STATE_NOP:
	case IB_PORT_DOWN:
		break;
	case IB_PORT_ARMED:
		if (cur != IB_PORT_INIT && cur != IB_PORT_ARMED)
			return false;
		break;
	case IB_PORT_ACTIVE:
		if (cur != IB_PORT_ARMED && cur != IB_PORT_ACTIVE)
			return false;
		break;
	default:
		return false;
	}
	if (req->phys_state != SIB_PI_PHYS_NOP &&
	    req->phys_state != SIB_PI_PHYS_POLLING &&
	    req->phys_state != SIB_PI_PHYS_DISABLED)
		return false;
	if (req->down_default > SIB_PI_DOWN_POLLING)
		return false;
	if (!sma_mask_ok(req->width_enabled, SIB_PI_WIDTH_ALL, SIB_PI_WIDTHS) ||
	    !sma_mask_ok(req->speed_enabled, SIB_PI_SPEED_ALL, SIB_PI_SPEEDS) ||
	    (req->speed_ext_enabled != SIB_PI_SPEED_EXT_OFF &&
	     !sma_mask_ok(req->speed_ext_enabled, SIB_PI_SPEED_EXT_ALL,
			  SIB_PI_SPEEDS_EXT)))
		return false;
	if (req->neighbor_mtu < IB_MTU_256 || req->neighbor_mtu > mtu_cap)
		return false;
	return req->oper_vls <= SIB_PI_VL_CAP;
}

/*
 * Under sib_fabric.lock: may the port take lid as the base LID of a block
 * of 2^lmc?  The base must be aligned to the block (IBA 7.11.1).
 */
static bool sma_lid_ok(struct sib_port *port, u16 lid, u8 lmc)
{
	lockdep_assert_held(&sib_fabric.lock);
	if (sib_lid_path_bits(lid, lmc))
		return false;
	/* An external SM may give any unicast LIDs: its LFT routes them. */
	if (sib_sm_external)
		return lid && lid + sib_lmc_span(lmc) - 1 <= SIB_LID_UCAST_TOP;
	/* The built-in SM's fabric routes its own range, its own LMC. */
	return lmc == port->lmc && !sib_sm_lid_check(port, lid);
}

/* Under sib_fabric.lock: would the SubnSet be valid?  Nothing changes if not. */
static bool sma_portinfo_valid(struct sib_port *port,
			       const struct sib_portinfo *req)
{
	lockdep_assert_held(&sib_fabric.lock);
	if (!sma_lid_ok(port, req->lid, req->lmc))
		return false;
	if (!req->sm_lid || req->sm_lid > SIB_LID_UCAST_TOP)
		return false;
	if (req->gid_prefix != SIB_SUBNET_PREFIX)
		return false;
	return sib_portinfo_link_valid(req, port->state, IB_MTU_4096);
}

/* What a SubnSet changed, for the events raised after the lock. */
struct sma_changes {
	bool down;
	bool lid;
	bool sm;
	bool active;
	bool rereg;
};

/*
 * The link goes down, and unless the SM disabled it, trains again at
 * once: the port is back in INIT, waiting for the SM to arm it.
 */
static void sma_link_bounce(struct sib_port *port, bool disable,
			    struct sma_changes *ch)
{
	/* Under an external SM, the switch's end follows the link too. */
	if (sib_sm_external) {
		WRITE_ONCE(port->mgmt.disabled, disable);
		ch->down |= sib_link_update_locked(port, true);
		return;
	}
	if (port->state != IB_PORT_DOWN)
		ch->down = true;
	WRITE_ONCE(port->mgmt.disabled, disable);
	WRITE_ONCE(port->state, disable ? IB_PORT_DOWN : IB_PORT_INIT);
}

/* Under sib_fabric.lock, after sma_portinfo_valid(). */
static void sma_portinfo_apply(struct sib_port *port,
			       const struct sib_portinfo *req,
			       struct sma_changes *ch)
{
	struct sib_port_mgmt *m = &port->mgmt;

	lockdep_assert_held(&sib_fabric.lock);
	m->mkey = req->mkey;
	m->mkey_lease = req->mkey_lease;
	m->mkey_protect = req->mkey_protect;
	ch->lid = sib_sm_move_lid(port, req->lid) > 0 || req->lmc != port->lmc;
	WRITE_ONCE(port->lmc, req->lmc);
	ch->sm = m->sm_lid != req->sm_lid || m->sm_sl != req->sm_sl;
	WRITE_ONCE(m->sm_lid, req->sm_lid);
	WRITE_ONCE(m->sm_sl, req->sm_sl);
	WRITE_ONCE(m->subnet_timeout, req->subnet_timeout);
	ch->rereg = req->client_rereg;
	if (req->width_enabled)
		m->width_enabled = req->width_enabled == SIB_PI_WIDTH_ALL ?
				   SIB_PI_WIDTHS : req->width_enabled;
	if (req->speed_enabled)
		m->speed_enabled = req->speed_enabled == SIB_PI_SPEED_ALL ?
				   SIB_PI_SPEEDS : req->speed_enabled;
	if (req->speed_ext_enabled)
		m->speed_ext_enabled =
			req->speed_ext_enabled == SIB_PI_SPEED_EXT_ALL ?
			SIB_PI_SPEEDS_EXT : req->speed_ext_enabled;
	if (req->down_default)
		m->down_default = req->down_default;
	m->vl_high_limit = req->vl_high_limit;
	m->error_thresholds = req->error_thresholds;
	/* The MTU the port sends with; the link does not retrain for it. */
	WRITE_ONCE(port->active_mtu, req->neighbor_mtu);

	if (req->phys_state == SIB_PI_PHYS_DISABLED)
		sma_link_bounce(port, true, ch);
	else if (req->phys_state == SIB_PI_PHYS_POLLING)
		sma_link_bounce(port, false, ch);
	switch (req->state) {
	case IB_PORT_DOWN:
		if (!m->disabled)
			sma_link_bounce(port, false, ch);
		break;
	case IB_PORT_ARMED:
		WRITE_ONCE(port->state, IB_PORT_ARMED);
		break;
	case IB_PORT_ACTIVE:
		ch->active = port->state != IB_PORT_ACTIVE;
		WRITE_ONCE(port->state, IB_PORT_ACTIVE);
		break;
	}
}

/* The events a real port raises for what changed, in the order it would. */
static void sma_raise(struct sib_port *port, const struct sma_changes *ch)
{
	if (ch->down)
		sib_link_lost(port);
	if (ch->lid)
		sib_port_event(port, IB_EVENT_LID_CHANGE);
	if (ch->sm)
		sib_port_event(port, IB_EVENT_SM_CHANGE);
	if (ch->active)
		sib_port_event(port, IB_EVENT_PORT_ACTIVE);
	if (ch->rereg)
		sib_port_event(port, IB_EVENT_CLIENT_REREGISTER);
}

/*
 * PortInfo's attribute modifier: the port in bits 7:0; in a Set, bit 31
 * says the SM knows extended speeds, else LinkSpeedExtEnabled is not its.
 */
#define SMA_PI_PORT		GENMASK(7, 0)
#define SMA_PI_SM_EXT_SPEEDS	BIT(31)

static u16 sma_port_info(struct sma_req *r)
{
	u32 mod = be32_to_cpu(r->in->attr_mod);
	struct sib_port *port = sma_port_of(r, FIELD_GET(SMA_PI_PORT, mod));
	struct sma_changes ch = {};
	struct sib_portinfo pi;
	unsigned long flags;
	u16 status = 0;

	if (!port || (mod & ~(SMA_PI_PORT | SMA_PI_SM_EXT_SPEEDS)))
		return STATUS_INVALID;
	spin_lock_irqsave(&sib_fabric.lock, flags);
	if (r->set) {
		sib_portinfo_decode(r->in->data, &pi);
		if (!(mod & SMA_PI_SM_EXT_SPEEDS))
			pi.speed_ext_enabled = 0;
		if (sma_portinfo_valid(port, &pi))
			sma_portinfo_apply(port, &pi, &ch);
		else
			status = STATUS_INVALID;
	}
	sma_portinfo_get(port, r->port->port_num, &pi);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	sma_raise(port, &ch);
	sib_portinfo_encode(&pi, r->out->data);
	return status;
}

/* P_KeyTable (IBA 14.2.5.7): one block of 32, ours holds 16 entries. */
static u16 sma_pkey_table(struct sma_req *r)
{
	struct sib_port *port = r->port;
	__be16 *out = (__be16 *)r->out->data;
	const __be16 *in = (const __be16 *)r->in->data;
	bool changed = false;
	unsigned long flags;
	int i;

	if (be32_to_cpu(r->in->attr_mod) & 0xffff)
		return STATUS_INVALID;		/* only block 0 exists */
	spin_lock_irqsave(&sib_fabric.lock, flags);
	for (i = 0; r->set && i < SIB_PKEY_TABLE_LEN; i++) {
		u16 pkey = be16_to_cpu(in[i]);

		changed |= port->pkeys[i] != pkey;
		WRITE_ONCE(port->pkeys[i], pkey);
	}
	for (i = 0; i < SIB_PKEY_TABLE_LEN; i++)
		out[i] = cpu_to_be16(port->pkeys[i]);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	if (changed) {
		sib_sm_sa_sync(port, SIB_SA_SYNC_PARTITIONS);
		sib_port_event(port, IB_EVENT_PKEY_CHANGE);
	}
	return 0;
}

/*
 * GUIDInfo (IBA 14.2.5.5): one block of 8, gids= entries of it ours.
 * Entry 0 is the port GUID and read-only; a Set writes the aliases
 * (0: unassigned) and, if any changed, raises GID_CHANGE, so ib_core
 * reads the GID table again, as an HCA's driver has it do.
 */
static u16 sma_guid_info(struct sma_req *r)
{
	struct sib_port *port = r->port;
	const __be64 *in = (const __be64 *)r->in->data;
	__be64 *out = (__be64 *)r->out->data;
	bool changed = false;
	unsigned long flags;
	u32 i;

	BUILD_BUG_ON(SIB_MAX_GIDS > SMA_GUIDS_PER_BLOCK);
	if (be32_to_cpu(r->in->attr_mod))
		return STATUS_INVALID;		/* only block 0 exists */
	spin_lock_irqsave(&sib_fabric.lock, flags);
	for (i = 1; r->set && i < sib_gids; i++) {
		changed |= port->guids[i] != in[i];
		WRITE_ONCE(port->guids[i], in[i]);
	}
	for (i = 0; i < sib_gids; i++)
		out[i] = port->guids[i];
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	if (changed)
		sib_port_event(port, IB_EVENT_GID_CHANGE);
	return 0;
}

/* SLtoVLMappingTable (IBA 14.2.5.8): every SL to VL0, or to VL15 (drop). */
static u16 sma_sl2vl(struct sma_req *r)
{
	struct sib_port_mgmt *m = &r->port->mgmt;
	unsigned long flags;
	u16 status = 0;
	int i;

	spin_lock_irqsave(&sib_fabric.lock, flags);
	if (r->set) {
		for (i = 0; i < SMA_SLS; i++) {
			u8 vl = (r->in->data[i / 2] >> (i % 2 ? 0 : 4)) & 0xf;

			if (vl >= SIB_PI_VL_CAP && vl != SIB_PI_VL_DROP)
				status = STATUS_INVALID;
		}
		if (!status)
			memcpy(m->sl2vl, r->in->data, sizeof(m->sl2vl));
	}
	memcpy(r->out->data, m->sl2vl, sizeof(m->sl2vl));
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	return status;
}

/*
 * VLArbitrationTable (IBA 14.2.5.9): block 1 holds low-priority entries
 * 0-31, block 3 high-priority 0-31; with 8 entries each, blocks 2 and 4
 * (entries 32-63) do not exist.
 */
#define SMA_VLARB_LOW		1
#define SMA_VLARB_HIGH		3

static u16 sma_vlarb(struct sma_req *r)
{
	u32 block = be32_to_cpu(r->in->attr_mod) >> 16;
	struct sib_port_mgmt *m = &r->port->mgmt;
	unsigned long flags;
	u16 status = 0;
	u8 *table;
	int i;

	if (block != SMA_VLARB_LOW && block != SMA_VLARB_HIGH)
		return STATUS_INVALID;
	table = m->vlarb[block == SMA_VLARB_HIGH];
	spin_lock_irqsave(&sib_fabric.lock, flags);
	if (r->set) {
		for (i = 0; i < SIB_VLARB_CAP; i++)
			if ((r->in->data[2 * i] & 0xf) == SIB_PI_VL_DROP)
				status = STATUS_INVALID;
		if (!status)
			memcpy(table, r->in->data, 2 * SIB_VLARB_CAP);
	}
	memcpy(r->out->data, table, 2 * SIB_VLARB_CAP);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	return status;
}

/* Answers, traps and their repression: for the MAD agents. */
bool sib_mad_for_agents(u8 method)
{
	return (method & IB_MGMT_METHOD_RESP) ||
	       method == IB_MGMT_METHOD_TRAP ||
	       method == IB_MGMT_METHOD_TRAP_REPRESS;
}

static u16 sma_unsupported(struct sma_req *r)
{
	return r->in->method == IB_MGMT_METHOD_GET || r->set ?
	       STATUS_UNSUPPORTED : STATUS_BAD_METHOD;
}

/* IB_MAD_RESULT_SUCCESS alone: not ours, the MAD agents may take it. */
static int sma_smp(struct sib_dev *sdev, u32 port_num, const struct ib_mad *in,
		   struct ib_mad *out)
{
	struct sma_req r = {
		.sdev = sdev,
		.port = sib_port(sdev, port_num),
		.in = (const struct ib_smp *)in,
		.out = (struct ib_smp *)out,
		.set = in->mad_hdr.method == IB_MGMT_METHOD_SET,
	};
	u16 (*handler)(struct sma_req *r);
	u16 status;

	if (sib_mad_for_agents(in->mad_hdr.method) ||
	    in->mad_hdr.attr_id == IB_SMP_ATTR_SM_INFO)
		return IB_MAD_RESULT_SUCCESS;
	switch (in->mad_hdr.method == IB_MGMT_METHOD_GET || r.set ?
		in->mad_hdr.attr_id : 0) {
	case IB_SMP_ATTR_NODE_INFO:
		handler = sma_node_info;
		break;
	case IB_SMP_ATTR_NODE_DESC:
		handler = sma_node_desc;
		break;
	case IB_SMP_ATTR_PORT_INFO:
		handler = sma_port_info;
		break;
	case IB_SMP_ATTR_PKEY_TABLE:
		handler = sma_pkey_table;
		break;
	case IB_SMP_ATTR_GUID_INFO:
		handler = sma_guid_info;
		break;
	case IB_SMP_ATTR_SL_TO_VL_TABLE:
		handler = sma_sl2vl;
		break;
	case IB_SMP_ATTR_VL_ARB_TABLE:
		handler = sma_vlarb;
		break;
	default:
		handler = sma_unsupported;
		break;
	}
	sib_smp_begin(r.in, r.out);
	if (in->mad_hdr.class_version != SMA_SM_CLASS_VERSION)
		status = STATUS_BAD_VERSION;
	else
		status = handler(&r);
	sib_smp_end(r.out, status);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

int sib_process_mad(struct ib_device *ibdev, int flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_size, u16 *out_pkey_index)
{
	struct sib_dev *sdev = to_sdev(ibdev);

	if (port_num < 1 || port_num > sdev->nports ||
	    in->mad_hdr.base_version != IB_MGMT_BASE_VERSION)
		return IB_MAD_RESULT_SUCCESS;
	switch (in->mad_hdr.mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		return sma_smp(sdev, port_num, in, out);
	case IB_MGMT_CLASS_PERF_MGMT:
		return sib_pma_mad(sdev, in, out);
	default:
		return IB_MAD_RESULT_SUCCESS;
	}
}
