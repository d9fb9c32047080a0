// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric's one switch: not an ib_device, a fabric object every HCA
 * port is linked to (HCA port of fabric index N on switch port N + 1).
 * Behind its port 0 sit its subnet management agent (sib_switch_sma.c),
 * its PMA and, under sm=builtin, the SA at LID 1.
 *
 * The switch carries SMPs: directed-route ones hop by hop along their
 * initial and return paths (IBA 14.2.2, C14-9 and C14-13, the switch's
 * share of them), LID-routed ones to its own LID.  Here too: its ports'
 * states, the forwarding tables the data path reads (sm=external), the
 * Trap 128 it sends an external SM when a link changes, and its PMA.
 *
 * Under sm=builtin, data packets go straight to the port owning the LID,
 * and an external port's state is its HCA port's.  Under sm=external the
 * fabric forwards by the LFT and MFT the SM programmed (sib_fabric.c).
 *
 * Everything but the data path's lookups runs in the fabric's ordered
 * work queue, as the SA does.
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include "sib_switch.h"

#define SW_LID_PERMISSIVE	0xffff

/* Notice (IBA 13.4.8.2, 14.2.5.1) of a Trap 128: a link state changed. */
#define NTC_GENERIC_TYPE	0
#define  NTC_IS_GENERIC		BIT(7)
#define  NTC_TYPE_URGENT	1
#define NTC_PRODUCER		1	/* 24 bits */
#define  NTC_PRODUCER_SWITCH	2
#define NTC_TRAP_NUM		4
#define  NTC_LINK_STATE_CHANGED	128
#define NTC_ISSUER_LID		6
#define NTC_DETAILS		10	/* Trap 128: the switch's LID */

static void sw_trap_work(struct work_struct *work);

void sib_switch_init(u32 nports)
{
	memset(sw, 0, sizeof(*sw));
	sw->nports = nports;
	INIT_WORK(&sw->trap_work, sw_trap_work);
	sib_switch_sma_init();
}

/* At unload, the ports gone: no trap may still wait. */
void sib_switch_exit(void)
{
	cancel_work_sync(&sw->trap_work);
}

/* Under rcu_read_lock(): the HCA port behind an external port, if any. */
struct sib_port *sib_switch_hca(u32 port_num)
{
	if (!port_num || port_num > sw->nports)
		return NULL;
	return sib_port_by_index(port_num - 1);
}

/* Port 0's LID: the built-in SM's, or what an external SM set. */
u16 sib_switch_lid(void)
{
	return sib_sm_external ? READ_ONCE(sw->lid) : SIB_SM_LID;
}

/* Under rcu_read_lock(), or with no HCA port behind the port. */
enum ib_port_state sib_switch_port_state(u32 port_num)
{
	struct sib_port *hca;

	if (!port_num)
		return IB_PORT_ACTIVE;
	if (sib_sm_external)
		return READ_ONCE(sw->port[port_num].state);
	hca = sib_switch_hca(port_num);
	return hca ? READ_ONCE(hca->state) : IB_PORT_DOWN;
}

/*
 * Under sib_fabric.lock, sm=external: an external port's logical state
 * changes; a change is noted in SwitchInfo (PortStateChange) and told to
 * the SM (Trap 128), as a switch does.
 */
void sib_switch_port_state_locked(u32 port_num, enum ib_port_state state)
{
	struct sib_sw_port *sp = &sw->port[port_num];

	lockdep_assert_held(&sib_fabric.lock);
	if (sp->state == state)
		return;
	WRITE_ONCE(sp->state, state);
	if (state == IB_PORT_DOWN || state == IB_PORT_INIT) {
		sw->state_change = true;
		queue_work(sib_fabric.wq, &sw->trap_work);
	}
}

/*
 * Whether an external port passes a packet: SMPs while its link is up,
 * the rest only when ACTIVE.  sm=external: an ARMED port that receives a
 * data packet from its link becomes ACTIVE (IBA 7.2: the far end is).
 */
bool sib_switch_port_passes(u32 port_num, bool smp, bool ingress)
{
	enum ib_port_state state = sib_switch_port_state(port_num);
	unsigned long flags;

	if (state == IB_PORT_ACTIVE || (smp && state != IB_PORT_DOWN))
		return true;
	if (!sib_sm_external || !ingress || state != IB_PORT_ARMED)
		return false;
	spin_lock_irqsave(&sib_fabric.lock, flags);
	if (sw->port[port_num].state == IB_PORT_ARMED)
		WRITE_ONCE(sw->port[port_num].state, IB_PORT_ACTIVE);
	state = sw->port[port_num].state;
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	return state == IB_PORT_ACTIVE;
}

/*
 * sm=external: the port the LFT sends dlid out of (0: the switch's own),
 * or -1: not routed (not in the table, above LinearFDBTop, or to a port
 * the switch does not have).
 */
int sib_switch_route(u16 dlid)
{
	u8 out;

	if (dlid >= SIB_SW_LFT_CAP || dlid > READ_ONCE(sw->lft_top))
		return -1;
	out = READ_ONCE(sw->lft[dlid]);
	return out <= sw->nports ? out : -1;
}

/* sm=external: the HCA ports (bits by fabric index) the MFT sends mlid to. */
unsigned long sib_switch_mcast_ports(u16 mlid)
{
	u32 index = mlid - SIB_MLID_BASE;

	if (mlid < SIB_MLID_BASE || index >= SIB_MAX_MLIDS)
		return 0;
	/* Bit 0 is port 0, the switch's own: no QP there takes multicast. */
	return (READ_ONCE(sw->mft[index]) >> 1) & GENMASK(sw->nports - 1, 0);
}

/*
 * Under rcu_read_lock(), sm=external: the HCA port that owns lid (one of
 * its LMC block), where the LFT leads; NULL when none does.
 */
struct sib_port *sib_switch_lid_owner(u16 lid)
{
	int out = sib_switch_route(lid);
	struct sib_port *port;

	if (out <= 0)
		return NULL;
	port = sib_switch_hca(out);
	return port && sib_port_has_lid(port, lid) ? port : NULL;
}

/* Put an SMP on a link (out_port) or, LID-routed, to its LID. */
static void sw_send_smp(struct ib_smp *smp, u32 out_port, u16 dlid)
{
	struct ib_sge sge = { .addr = (uintptr_t)smp, .length = sizeof(*smp) };
	struct sib_pkt pkt = {
		.slid = out_port ? SW_LID_PERMISSIVE : sib_switch_lid(),
		.dlid = out_port ? SW_LID_PERMISSIVE : dlid,
		.pkey = IB_DEFAULT_PKEY_FULL,
		.length = sizeof(*smp),
		.num_sge = 1,
		.sg = &sge,
	};
	struct sib_port *dport;

	local_bh_disable();
	rcu_read_lock();
	if (out_port) {
		dport = sib_switch_hca(out_port);
		if (dport && sib_switch_port_passes(out_port, true, false))
			sib_deliver_at(&pkt, dport);
	} else if (sib_sm_external) {
		sib_deliver(&pkt);	/* by the LFT, from port 0 */
	} else {
		dport = sib_port_by_lid(dlid);
		if (dport)
			sib_deliver_at(&pkt, dport);
	}
	rcu_read_unlock();
	local_bh_enable();
}

/*
 * Trap 128 to the SM that set port 0's MasterSMLID, once the SM has set
 * it and routed it; the SM's TrapRepress is not waited for.
 */
static void sw_trap_work(struct work_struct *work)
{
	u16 lid = READ_ONCE(sw->lid), sm_lid = READ_ONCE(sw->sm_lid);
	static atomic_t trap_tid = ATOMIC_INIT(0);
	struct ib_smp *smp;
	u8 *ntc;

	if (!lid || !sm_lid)
		return;
	smp = kzalloc(sizeof(*smp), GFP_KERNEL);
	if (!smp)
		return;		/* the SM's next light sweep sees the change */
	smp->base_version = IB_MGMT_BASE_VERSION;
	smp->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	smp->class_version = SW_CLASS_VERSION;
	smp->method = IB_MGMT_METHOD_TRAP;
	smp->tid = cpu_to_be64(0x5eb1000000000000ULL |
			       atomic_inc_return(&trap_tid));
	smp->attr_id = IB_SMP_ATTR_NOTICE;
	ntc = smp->data;
	ntc[NTC_GENERIC_TYPE] = NTC_IS_GENERIC | NTC_TYPE_URGENT;
	put_unaligned_be16(NTC_PRODUCER_SWITCH, ntc + NTC_PRODUCER + 1);
	put_unaligned_be16(NTC_LINK_STATE_CHANGED, ntc + NTC_TRAP_NUM);
	put_unaligned_be16(lid, ntc + NTC_ISSUER_LID);
	put_unaligned_be16(lid, ntc + NTC_DETAILS);
	sw_send_smp(smp, 0, sm_lid);
	kfree(smp);
}

/* Answer an SMP for the switch; false when none is due (not a request). */
static bool sw_answer(const struct ib_smp *in, struct ib_smp *out,
		      u32 in_port)
{
	if (sib_mad_for_agents(in->method))
		return false;	/* no SM here takes traps or answers */
	sib_smp_begin(in, out);
	sib_smp_end(out, sib_switch_sma(in, out, in_port));
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
	hca = sib_switch_hca(port_num);
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
