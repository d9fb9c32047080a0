// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric's one switch: not an ib_device, a fabric object every HCA
 * port is linked to (HCA port of fabric index N on switch port N + 1).
 * Its port 0 holds the SM's LID; behind it sit the SA, the switch's
 * subnet management agent and its PMA.
 *
 * The switch carries SMPs: directed-route ones hop by hop along their
 * initial and return paths (IBA 14.2.2, C14-9 and C14-13, the switch's
 * share of them), LID-routed ones to its own LID.  Its SMA answers
 * NodeInfo, NodeDescription, SwitchInfo, PortInfo of every port,
 * LinearForwardingTable, MulticastForwardingTable, P_KeyTable of port 0,
 * SLtoVLMappingTable, VLArbitrationTable and SMInfo (the built-in SM's).
 * Data packets still go straight to the port owning the LID, and the
 * forwarding tables show what the built-in SM assigned: the LFT each
 * port's LID, the MFT the forwarding masks the SA keeps.  The tables are
 * read-only here.  An external port's state is its HCA port's.
 *
 * Everything runs in the fabric's ordered work queue, as the SA does.
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_smi.h>
#include "sib.h"
#include "sib_smp_wire.h"

#define SW_CLASS_VERSION	1
#define SW_DEVICE_ID		2
#define SW_NO_PORT		0xff	/* LFT: not routed */
#define SW_LID_PERMISSIVE	0xffff
#define SW_LIFE_TIME		18	/* 4.096 us << 18 */
#define SW_WIDTHS		0x03
#define SW_WIDTH_4X		0x02
#define SW_SPEEDS		0x07
#define SW_SPEED_QDR		0x04
#define SW_SPEEDS_EXT		0x03
#define SW_SPEED_EXT_EDR	0x02
#define SW_PHYS_POLLING		2
#define SW_PHYS_DISABLED	3
#define SW_PHYS_LINK_UP		5
#define SW_MFT_PORTS		16	/* ports per MFT position */
#define SW_SM_PRIORITY		0
#define SW_SM_MASTER		3	/* SMInfo SMState (IBA 14.2.5.13) */
#define SW_PKEY_DEFAULT		0xffff

#define STATUS_BAD_VERSION	IB_MGMT_MAD_STATUS_BAD_VERSION
#define STATUS_BAD_METHOD	IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD
#define STATUS_UNSUPPORTED	IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB
#define STATUS_INVALID		IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE

/* SMInfo (IBA 14.2.5.13). */
#define SMI_GUID		0
#define SMI_SM_KEY		8
#define SMI_ACT_COUNT		16
#define SMI_PRIO_STATE		20

static struct sib_switch *sw = &sib_fabric.sw;

void sib_switch_init(u32 nports)
{
	memset(sw, 0, sizeof(*sw));
	sw->nports = nports;
}

/* Under rcu_read_lock(): the HCA port behind an external port, if any. */
static struct sib_port *sw_link(u32 port_num)
{
	if (!port_num || port_num > sw->nports)
		return NULL;
	return sib_port_by_index(port_num - 1);
}

/* Put an SMP on a link (out_port) or, LID-routed, to its LID. */
static void sw_send_smp(struct ib_smp *smp, u32 out_port, u16 dlid)
{
	struct ib_sge sge = { .addr = (uintptr_t)smp, .length = sizeof(*smp) };
	struct sib_pkt pkt = {
		.slid = out_port ? SW_LID_PERMISSIVE : SIB_SM_LID,
		.dlid = out_port ? SW_LID_PERMISSIVE : dlid,
		.pkey = SW_PKEY_DEFAULT,
		.length = sizeof(*smp),
		.num_sge = 1,
		.sg = &sge,
	};
	struct sib_port *dport;

	local_bh_disable();
	rcu_read_lock();
	dport = out_port ? sw_link(out_port) : sib_port_by_lid(dlid);
	if (dport)
		sib_deliver_at(&pkt, dport);
	rcu_read_unlock();
	local_bh_enable();
}

/* The SMA. */

struct sw_req {
	const struct ib_smp *in;
	struct ib_smp *out;
	u32 in_port;			/* the port the SMP came in on */
};

/* NodeInfo, the SMP having come in on local_port. */
void sib_switch_node_info(u8 local_port, struct ib_node_info *ni)
{
	memset(ni, 0, sizeof(*ni));
	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = SW_CLASS_VERSION;
	ni->node_type = RDMA_NODE_IB_SWITCH;
	ni->num_ports = sw->nports;
	ni->sys_guid = cpu_to_be64(SIB_SM_GUID);
	ni->node_guid = cpu_to_be64(SIB_SM_GUID);
	ni->port_guid = cpu_to_be64(SIB_SM_GUID);	/* port 0's */
	ni->partition_cap = cpu_to_be16(1);
	ni->device_id = cpu_to_be16(SW_DEVICE_ID);
	ni->revision = cpu_to_be32(1);
	ni->local_port_num = local_port;
	ni->vendor_id[1] = (SIB_VENDOR_ID >> 8) & 0xff;
	ni->vendor_id[2] = SIB_VENDOR_ID & 0xff;
}

static u16 sw_node_info(struct sw_req *r)
{
	sib_switch_node_info(r->in_port, (struct ib_node_info *)r->out->data);
	return 0;
}

static u16 sw_node_desc(struct sw_req *r)
{
	strscpy(r->out->data, SIB_SWITCH_DESC, sizeof(r->out->data));
	return 0;
}

/* Under rcu_read_lock(): the highest LID the built-in SM routes. */
static u16 sw_lft_top(void)
{
	u16 lid, top = SIB_SM_LID;

	for (lid = SIB_FIRST_LID; lid <= SIB_MAX_LID; lid++)
		if (sib_port_by_lid(lid))
			top = lid;
	return top;
}

static u16 sw_switch_info(struct sw_req *r)
{
	u8 *p = r->out->data;

	put_unaligned_be16(SIB_MAX_LID + 1, p + SWI_LFT_CAP);
	put_unaligned_be16(SIB_MAX_MLIDS, p + SWI_MFT_CAP);
	rcu_read_lock();
	put_unaligned_be16(sw_lft_top(), p + SWI_LFT_TOP);
	rcu_read_unlock();
	p[SWI_DEFAULT_PORT] = 0;
	p[SWI_DEFAULT_MCAST_PRI] = SW_NO_PORT;
	p[SWI_DEFAULT_MCAST_NOT] = SW_NO_PORT;
	p[SWI_LIFE_STATE] = FIELD_PREP(SWI_LIFE_TIME, SW_LIFE_TIME);
	put_unaligned_be16(SIB_MLID_BASE + SIB_MAX_MLIDS - 1, p + SWI_MFT_TOP);
	return 0;
}

/* Under rcu_read_lock(): PortInfo of port 0 or of an external port. */
static void sw_port_info_get(u32 port_num, u8 local_port,
			     struct sib_portinfo *pi)
{
	struct sib_port *hca = sw_link(port_num);
	enum ib_port_state state = IB_PORT_DOWN;

	memset(pi, 0, sizeof(*pi));
	pi->local_port = local_port;
	pi->width_enabled = SW_WIDTHS;
	pi->width_supported = SW_WIDTHS;
	pi->width_active = SW_WIDTH_4X;
	pi->speed_supported = SW_SPEEDS;
	pi->speed_active = SW_SPEED_QDR;
	pi->speed_enabled = SW_SPEEDS;
	pi->speed_ext_active = SW_SPEED_EXT_EDR;
	pi->speed_ext_supported = SW_SPEEDS_EXT;
	pi->speed_ext_enabled = SW_SPEEDS_EXT;
	pi->vl_cap = 1;
	pi->oper_vls = 1;
	pi->vlarb_high_cap = SIB_VLARB_CAP;
	pi->vlarb_low_cap = SIB_VLARB_CAP;
	/*
	 * The switch is built for the fabric's link MTU (mtu=): an SM that
	 * takes the smaller MTUCap of a link's ends gives the HCA that one.
	 */
	pi->mtu_cap = ib_mtu_int_to_enum(sib_port_mtu);
	pi->neighbor_mtu = pi->mtu_cap;
	pi->down_default = SW_PHYS_POLLING;
	pi->subnet_timeout = SW_LIFE_TIME;
	if (!port_num) {
		/* The management port: LID, SM and capabilities live here. */
		pi->gid_prefix = SIB_SUBNET_PREFIX;
		pi->lid = SIB_SM_LID;
		pi->sm_lid = SIB_SM_LID;
		pi->cap_mask = IB_PORT_SM | IB_PORT_EXTENDED_SPEEDS_SUP |
			       IB_PORT_SYS_IMAGE_GUID_SUP;
		pi->guid_cap = 1;
		state = IB_PORT_ACTIVE;
	} else if (hca) {
		state = READ_ONCE(hca->state);
		pi->neighbor_mtu = READ_ONCE(hca->active_mtu);
	}
	pi->state = state;
	if (state != IB_PORT_DOWN)
		pi->phys_state = SW_PHYS_LINK_UP;
	else if (hca && READ_ONCE(hca->mgmt.disabled))
		pi->phys_state = SW_PHYS_DISABLED;
	else
		pi->phys_state = SW_PHYS_POLLING;
}

/* PortInfo as the SM on port 0 reads it: for the SA. */
void sib_switch_portinfo(u32 port_num, struct sib_portinfo *pi)
{
	rcu_read_lock();
	sw_port_info_get(port_num, 0, pi);
	rcu_read_unlock();
}

static u16 sw_port_info(struct sw_req *r)
{
	u32 mod = be32_to_cpu(r->in->attr_mod);
	struct sib_portinfo pi;

	if (mod > sw->nports)
		return STATUS_INVALID;
	rcu_read_lock();
	sw_port_info_get(mod, r->in_port, &pi);
	rcu_read_unlock();
	sib_portinfo_encode(&pi, r->out->data);
	return 0;
}

/* LinearForwardingTable (IBA 14.2.5.10): 64 LIDs a block, a port each. */
static u16 sw_lft(struct sw_req *r)
{
	u32 block = be32_to_cpu(r->in->attr_mod);
	u32 i, lid;

	if (block > SIB_MAX_LID / SIB_LFT_BLOCK)
		return STATUS_INVALID;
	rcu_read_lock();
	for (i = 0; i < SIB_LFT_BLOCK; i++) {
		struct sib_port *port;

		lid = block * SIB_LFT_BLOCK + i;
		port = lid >= SIB_FIRST_LID ? sib_port_by_lid(lid) : NULL;
		if (lid == SIB_SM_LID)
			r->out->data[i] = 0;
		else
			r->out->data[i] = port ? port->fabric_index + 1 :
						 SW_NO_PORT;
	}
	rcu_read_unlock();
	return 0;
}

/*
 * MulticastForwardingTable (IBA 14.2.5.12): the modifier's bits 31:28
 * pick 16 ports, bits 8:0 a block of 32 MLIDs; each entry is the mask of
 * the ports the MLID goes out of.
 */
#define SW_MFT_POSITION		GENMASK(31, 28)
#define SW_MFT_BLOCK		GENMASK(8, 0)

static u16 sw_mft(struct sw_req *r)
{
	u32 mod = be32_to_cpu(r->in->attr_mod);
	u32 position = FIELD_GET(SW_MFT_POSITION, mod);
	u32 block = FIELD_GET(SW_MFT_BLOCK, mod);
	__be16 *masks = (__be16 *)r->out->data;
	u32 i, bit;

	if (block >= SIB_MAX_MLIDS / SIB_MFT_BLOCK ||
	    position > sw->nports / SW_MFT_PORTS)
		return STATUS_INVALID;
	for (i = 0; i < SIB_MFT_BLOCK; i++) {
		u16 mlid = SIB_MLID_BASE + block * SIB_MFT_BLOCK + i;
		u16 mask = 0;

		for (bit = 0; bit < SW_MFT_PORTS; bit++) {
			u32 port_num = position * SW_MFT_PORTS + bit;
			struct sib_port *hca;

			rcu_read_lock();
			hca = sw_link(port_num);
			if (hca && sib_mft_has(mlid, hca))
				mask |= BIT(bit);
			rcu_read_unlock();
		}
		masks[i] = cpu_to_be16(mask);
	}
	return 0;
}

/* Port 0 holds the default partition; external ports enforce none. */
static u16 sw_pkey_table(struct sw_req *r)
{
	__be16 *pkeys = (__be16 *)r->out->data;

	if (be32_to_cpu(r->in->attr_mod))
		return STATUS_INVALID;
	pkeys[0] = cpu_to_be16(SW_PKEY_DEFAULT);
	return 0;
}

/* Every SL on VL0, between any two ports: an all-zero table. */
static u16 sw_sl2vl(struct sw_req *r)
{
	u32 mod = be32_to_cpu(r->in->attr_mod);

	if (((mod >> 8) & 0xff) > sw->nports || (mod & 0xff) > sw->nports)
		return STATUS_INVALID;
	return 0;
}

/* External ports: blocks 1 (low) and 3 (high), all weights zero. */
static u16 sw_vlarb(struct sw_req *r)
{
	u32 mod = be32_to_cpu(r->in->attr_mod);
	u32 block = mod >> 16, port_num = mod & 0xffff;

	if ((block != 1 && block != 3) || !port_num || port_num > sw->nports)
		return STATUS_INVALID;
	return 0;
}

/* SMInfo: the built-in SM, master of the subnet. */
static u16 sw_sm_info(struct sw_req *r)
{
	u8 *p = r->out->data;

	put_unaligned_be64(SIB_SM_GUID, p + SMI_GUID);
	put_unaligned_be32(atomic_read(&sw->sm_act_count), p + SMI_ACT_COUNT);
	p[SMI_PRIO_STATE] = SW_SM_PRIORITY << 4 | SW_SM_MASTER;
	return 0;
}

static u16 sw_sma(struct sw_req *r)
{
	if (r->in->class_version != SW_CLASS_VERSION)
		return STATUS_BAD_VERSION;
	if (r->in->method != IB_MGMT_METHOD_GET)
		return r->in->method == IB_MGMT_METHOD_SET ?
		       STATUS_UNSUPPORTED : STATUS_BAD_METHOD;
	switch (r->in->attr_id) {
	case IB_SMP_ATTR_NODE_INFO:
		return sw_node_info(r);
	case IB_SMP_ATTR_NODE_DESC:
		return sw_node_desc(r);
	case IB_SMP_ATTR_SWITCH_INFO:
		return sw_switch_info(r);
	case IB_SMP_ATTR_PORT_INFO:
		return sw_port_info(r);
	case IB_SMP_ATTR_LINEAR_FORWARD_TABLE:
		return sw_lft(r);
	case IB_SMP_ATTR_MCAST_FORWARD_TABLE:
		return sw_mft(r);
	case IB_SMP_ATTR_PKEY_TABLE:
		return sw_pkey_table(r);
	case IB_SMP_ATTR_SL_TO_VL_TABLE:
		return sw_sl2vl(r);
	case IB_SMP_ATTR_VL_ARB_TABLE:
		return sw_vlarb(r);
	case IB_SMP_ATTR_SM_INFO:
		return sw_sm_info(r);
	default:
		return STATUS_UNSUPPORTED;
	}
}

/* Answer an SMP for the switch; false when none is due (not a request). */
static bool sw_answer(const struct ib_smp *in, struct ib_smp *out,
		      u32 in_port)
{
	struct sw_req r = { .in = in, .out = out, .in_port = in_port };

	if (sib_mad_for_agents(in->method))
		return false;	/* our SM takes no traps */
	sib_smp_begin(in, out);
	sib_smp_end(out, sw_sma(&r));
	atomic_inc(&sw->sm_act_count);
	return true;
}

/*
 * A directed-route SMP came in on in_port, the hop pointer as the sender
 * left it.  Requests (C14-9): record the way back, then either forward
 * along the initial path or, at its end, answer; answers (C14-13) go back
 * along the return path.  Only fully directed routes (permissive DrSLID
 * and DrDLID) are carried; what is not valid is dropped, as C14 says.
 */
static void sw_dr(struct ib_smp *smp, u32 in_port)
{
	u8 hop_cnt = smp->hop_cnt, hop_ptr = smp->hop_ptr;
	struct ib_smp *answer;
	u32 out_port;

	if (hop_cnt >= IB_SMP_MAX_PATH_HOPS ||
	    smp->dr_slid != IB_LID_PERMISSIVE ||
	    smp->dr_dlid != IB_LID_PERMISSIVE)
		return;
	if (smp->status & IB_SMP_DIRECTION) {
		if (hop_ptr < 2 || hop_ptr > hop_cnt)
			return;	/* hop 1 would be for our SM: it sent none */
		smp->hop_ptr = --hop_ptr;
		sw_send_smp(smp, smp->return_path[hop_ptr], 0);
		return;
	}
	if (!hop_ptr || hop_ptr > hop_cnt)
		return;
	smp->return_path[hop_ptr] = in_port;
	smp->hop_ptr = ++hop_ptr;
	if (hop_ptr <= hop_cnt) {
		sw_send_smp(smp, smp->initial_path[hop_ptr], 0);
		return;
	}
	/* The switch is the destination: answer back the way it came. */
	answer = kmalloc(sizeof(*answer), GFP_KERNEL);
	if (!answer)
		return;		/* the requester times out and retries */
	if (sw_answer(smp, answer, in_port)) {
		out_port = answer->return_path[hop_cnt];
		answer->hop_ptr = hop_cnt;
		sw_send_smp(answer, out_port, 0);
	}
	kfree(answer);
}

/* An SMP reached the switch: from the HCA port on in_port, from slid. */
void sib_switch_smp(struct ib_smp *smp, u32 len, u32 in_port, u16 slid)
{
	struct ib_smp *answer;

	if (len < sizeof(*smp) || !in_port || in_port > sw->nports ||
	    smp->base_version != IB_MGMT_BASE_VERSION)
		return;
	if (smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		sw_dr(smp, in_port);
		return;
	}
	if (smp->mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED)
		return;
	answer = kmalloc(sizeof(*answer), GFP_KERNEL);
	if (!answer)
		return;
	if (sw_answer(smp, answer, in_port))
		sw_send_smp(answer, 0, slid);
	kfree(answer);
}

/*
 * The PMA: an external port's counters are its link's, seen from the
 * switch's end (what the HCA sent, the switch received); port 0 has no
 * link.  Resets are the switch's own.
 */
static const enum sib_pma_field sw_mirror[SIB_PMA_NR_FIELDS] = {
	[SIB_PMA_XMIT_OCTETS] = SIB_PMA_RCV_OCTETS,
	[SIB_PMA_RCV_OCTETS] = SIB_PMA_XMIT_OCTETS,
	[SIB_PMA_XMIT_PKTS] = SIB_PMA_RCV_PKTS,
	[SIB_PMA_RCV_PKTS] = SIB_PMA_XMIT_PKTS,
	[SIB_PMA_XMIT_UCAST] = SIB_PMA_RCV_UCAST,
	[SIB_PMA_RCV_UCAST] = SIB_PMA_XMIT_UCAST,
	[SIB_PMA_XMIT_MCAST] = SIB_PMA_RCV_MCAST,
	[SIB_PMA_RCV_MCAST] = SIB_PMA_XMIT_MCAST,
	[SIB_PMA_LINK_DOWNED] = SIB_PMA_LINK_DOWNED,
	[SIB_PMA_XMIT_DISCARDS] = SIB_PMA_NR_FIELDS,
	[SIB_PMA_VL15_DROPPED] = SIB_PMA_NR_FIELDS,
};

static u64 sw_pma_raw(u32 port_num, enum sib_pma_field f)
{
	struct sib_port *hca;
	u64 raw = 0;

	if (sw_mirror[f] == SIB_PMA_NR_FIELDS)
		return 0;
	rcu_read_lock();
	hca = sw_link(port_num);
	if (hca)
		raw = sib_pma_raw(hca, sw_mirror[f]);
	rcu_read_unlock();
	return raw;
}

static u64 sw_pma_value(void *ctx, u32 port_num, enum sib_pma_field f)
{
	return sib_pma_since(sw_pma_raw(port_num, f),
			     READ_ONCE(sw->pma_base[port_num][f]));
}

static void sw_pma_reset(void *ctx, u32 port_num, enum sib_pma_field f)
{
	WRITE_ONCE(sw->pma_base[port_num][f], sw_pma_raw(port_num, f));
}

/* A performance management MAD reached the switch's QP1. */
void sib_switch_pma(const struct sib_mad_src *src, const void *mad, u32 len)
{
	const struct sib_pma_node node = {
		.first = 0,
		.last = sw->nports,
		.value = sw_pma_value,
		.reset = sw_pma_reset,
	};
	const struct ib_mad_hdr *hdr = mad;
	struct ib_mad *in, *out;

	if (len < sizeof(*in) || sib_mad_for_agents(hdr->method))
		return;
	in = kmemdup(mad, sizeof(*in), GFP_KERNEL);
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (in && out) {
		if (sib_pma_answer(&node, in, out) & IB_MAD_RESULT_REPLY)
			sib_sm_send_mad(src, out, sizeof(*out));
	}
	kfree(in);
	kfree(out);
}
