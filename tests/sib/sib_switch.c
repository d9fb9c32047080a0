// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric's switches: not ib_devices, fabric objects in a line
 * (switches=, default 1).  Neighbours are linked by their top ports
 * (isl_port[]), and the HCA ports are spread along the line in fabric
 * index order, evenly and rounded, so that the first sits on switch 0 and
 * the last on the last switch: with one switch, HCA port of fabric index
 * N on its port N + 1, as before; two HCA ports on three switches hang
 * on the two end switches.  Behind each switch's port 0 sit its subnet
 * management agent (sib_switch_sma.c), its PMA and, on switch 0 under
 * sm=builtin, the SA at LID 1.
 *
 * The switches carry SMPs: directed-route ones hop by hop along their
 * initial and return paths (IBA 14.2.2, C14-9 and C14-13, a switch's
 * share of them), from switch to switch over the links between them,
 * LID-routed ones to a switch's own LID.  Here too: their ports' states,
 * the forwarding tables the data path reads (sm=external), the Trap 128
 * a switch sends an external SM when a link changes, and their PMAs,
 * with what each counts itself: the packets on the links between
 * switches and those it could not forward.
 *
 * Data goes hop by hop by each switch's LFT and MFT (sib_fabric.c):
 * under sm=builtin the min-hop ones its LIDs and its SA's groups imply,
 * worked out as they are read; under sm=external the ones the SM
 * programmed.  Under sm=builtin an HCA-facing port's state is its HCA
 * port's and the links between switches are up.
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

static u32 sw_nhca;		/* HCA ports on the line */

/* The switch the HCA port of fabric index i hangs on (see above). */
static u32 sw_of_index(u32 i, u32 nhca, u32 nswitches)
{
	if (nswitches == 1 || nhca == 1)
		return 0;
	return (i * (nswitches - 1) + (nhca - 1) / 2) / (nhca - 1);
}

/*
 * Build the line: every switch as big as the one with the most HCA
 * ports, plus the two top ports when there is more than one.  Under
 * sm=external the links between switches come up in INIT at both ends,
 * as an HCA's does, for the SM to arm and activate.
 */
int sib_switch_init(u32 nhca, u32 nswitches)
{
	struct sib_switch *sws;
	u32 i, s, most = 0;

	sws = kvcalloc(nswitches, sizeof(*sws), GFP_KERNEL);
	if (!sws)
		return -ENOMEM;
	for (s = 0; s < nswitches; s++)
		sws[s].first_hca = nhca;
	for (i = 0; i < nhca; i++) {
		s = sw_of_index(i, nhca, nswitches);
		sws[s].first_hca = min(sws[s].first_hca, i);
		most = max(most, ++sws[s].nhca);
	}
	for (s = 0; s < nswitches; s++) {
		struct sib_switch *sw = &sws[s];

		sw->index = s;
		sw->stats = alloc_percpu(struct sib_sw_stats);
		if (!sw->stats)
			goto nomem;
		sw->nports = most + (nswitches > 1 ? 2 : 0);
		if (s > 0)
			sw->isl_port[0] = most + 1;
		if (s + 1 < nswitches)
			sw->isl_port[1] = most + 2;
		INIT_WORK(&sw->trap_work, sw_trap_work);
		sib_switch_sma_init(sw);
		for (i = 1; i <= sw->nports; i++)
			sw->port[i].state = IB_PORT_DOWN;
		for (i = 0; sib_sm_external && i < 2; i++)
			if (sw->isl_port[i])
				sw->port[sw->isl_port[i]].state = IB_PORT_INIT;
	}
	sib_fabric.sw = sws;
	sib_fabric.nswitches = nswitches;
	sw_nhca = nhca;
	return 0;

nomem:
	while (s--)
		free_percpu(sws[s].stats);
	kvfree(sws);
	return -ENOMEM;
}

/* At unload, the ports gone and no packet held: no trap may still wait. */
void sib_switch_exit(void)
{
	u32 s;

	for (s = 0; s < sib_fabric.nswitches; s++) {
		cancel_work_sync(&sib_fabric.sw[s].trap_work);
		free_percpu(sib_fabric.sw[s].stats);
	}
	kvfree(sib_fabric.sw);
	sib_fabric.sw = NULL;
	sib_fabric.nswitches = 0;
}

/* Where an HCA port's link goes: its switch, and that switch's port. */
void sib_switch_place(struct sib_port *port)
{
	u32 s = sw_of_index(port->fabric_index, sw_nhca, sib_fabric.nswitches);

	port->sw_index = s;
	port->sw_port = port->fabric_index - sib_fabric.sw[s].first_hca + 1;
}

/* Under rcu_read_lock(): the HCA port behind an external port, if any. */
struct sib_port *sib_switch_hca(const struct sib_switch *sw, u32 port_num)
{
	if (!port_num || port_num > sw->nhca)
		return NULL;
	return sib_port_by_index(sw->first_hca + port_num - 1);
}

/* The switch at the far end of a top port, and its port there; or NULL. */
struct sib_switch *sib_switch_peer(const struct sib_switch *sw, u32 port_num,
				   u32 *peer_port)
{
	struct sib_switch *peer;

	if (!port_num)
		return NULL;
	if (port_num == sw->isl_port[0]) {
		peer = &sib_fabric.sw[sw->index - 1];
		*peer_port = peer->isl_port[1];
		return peer;
	}
	if (port_num == sw->isl_port[1]) {
		peer = &sib_fabric.sw[sw->index + 1];
		*peer_port = peer->isl_port[0];
		return peer;
	}
	return NULL;
}

/*
 * Port 0's LID: what an external SM set, or the built-in SM's: LID 1 for
 * switch 0 (its SM and SA), the top of its range for the others.
 */
u16 sib_switch_lid(const struct sib_switch *sw)
{
	if (sib_sm_external)
		return READ_ONCE(sw->lid);
	return sw->index ? SIB_SWITCH_TOP_LID + 1 - sw->index : SIB_SM_LID;
}

/* Node and port 0 GUID: switch 0's is the built-in SM's. */
__be64 sib_switch_guid(const struct sib_switch *sw)
{
	return cpu_to_be64(SIB_SM_GUID + sw->index);
}

const char *sib_switch_desc(const struct sib_switch *sw)
{
	static const char *const desc[SIB_MAX_SWITCHES] = {
		SIB_SWITCH_DESC, SIB_SWITCH_DESC " 1",
		SIB_SWITCH_DESC " 2", SIB_SWITCH_DESC " 3",
	};

	return desc[sw->index];
}

/* The switch whose port 0 has that LID, if any. */
struct sib_switch *sib_switch_by_lid(u16 lid)
{
	u32 s;

	for (s = 0; lid && s < sib_fabric.nswitches; s++)
		if (sib_switch_lid(&sib_fabric.sw[s]) == lid)
			return &sib_fabric.sw[s];
	return NULL;
}

/*
 * The port of sw a packet reaches it by, having come in to switch
 * from_sw by from_port: in a line, the top port facing from_sw.
 */
u32 sib_switch_port_toward(const struct sib_switch *sw, u32 from_sw,
			   u32 from_port)
{
	if (sw->index == from_sw)
		return from_port;
	return sw->isl_port[sw->index > from_sw ? 0 : 1];
}

/* Under rcu_read_lock(), or with no HCA port behind the port. */
enum ib_port_state sib_switch_port_state(struct sib_switch *sw, u32 port_num)
{
	struct sib_port *hca;
	u32 peer_port;

	if (!port_num)
		return IB_PORT_ACTIVE;
	if (sib_sm_external)
		return READ_ONCE(sw->port[port_num].state);
	hca = sib_switch_hca(sw, port_num);
	if (hca)
		return READ_ONCE(hca->state);
	return sib_switch_peer(sw, port_num, &peer_port) ? IB_PORT_ACTIVE :
							   IB_PORT_DOWN;
}

/*
 * Under sib_fabric.lock, sm=external: an external port's logical state
 * changes; a change is noted in SwitchInfo (PortStateChange) and told to
 * the SM (Trap 128), as a switch does.
 */
void sib_switch_port_state_locked(struct sib_switch *sw, u32 port_num,
				  enum ib_port_state state)
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
 * Under sib_fabric.lock, sm=external: bring the link on a top port to
 * what it can be, as sib_link_update_locked() does an HCA's: up (INIT at
 * both ends) unless either end is disabled; with retrain, down first.
 */
void sib_switch_isl_update_locked(struct sib_switch *sw, u32 port_num,
				  bool retrain)
{
	struct sib_switch *peer;
	u32 pp;
	bool can;

	lockdep_assert_held(&sib_fabric.lock);
	peer = sib_switch_peer(sw, port_num, &pp);
	if (!peer)
		return;
	can = !sw->port[port_num].disabled && !peer->port[pp].disabled;
	if (sw->port[port_num].state != IB_PORT_DOWN && (retrain || !can)) {
		sib_switch_port_state_locked(sw, port_num, IB_PORT_DOWN);
		sib_switch_port_state_locked(peer, pp, IB_PORT_DOWN);
		sib_switch_count(sw, port_num, SIB_PMA_LINK_DOWNED, 1);
		sib_switch_count(peer, pp, SIB_PMA_LINK_DOWNED, 1);
	}
	if (can && sw->port[port_num].state == IB_PORT_DOWN) {
		sib_switch_port_state_locked(sw, port_num, IB_PORT_INIT);
		sib_switch_port_state_locked(peer, pp, IB_PORT_INIT);
	}
}

/*
 * Whether an external port passes a packet: SMPs while its link is up,
 * the rest only when ACTIVE.  sm=external: an ARMED port that receives a
 * data packet from its link becomes ACTIVE (IBA 7.2: the far end is).
 */
bool sib_switch_port_passes(struct sib_switch *sw, u32 port_num, bool smp,
			    bool ingress)
{
	enum ib_port_state state = sib_switch_port_state(sw, port_num);
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
 * Under rcu_read_lock(): one LFT entry as the built-in SM routes it: the
 * port itself on this switch, else the top port towards its switch.
 */
u8 sib_switch_builtin_lft(const struct sib_switch *sw, u16 lid)
{
	struct sib_switch *to = sib_switch_by_lid(lid);
	struct sib_port *port;
	u32 dst, out;

	if (to) {
		dst = to->index;
		out = 0;
	} else {
		port = lid >= SIB_FIRST_LID ? sib_port_by_lid(lid) : NULL;
		if (!port)
			return SW_NO_PORT;
		dst = port->sw_index;
		out = port->sw_port;
	}
	if (dst == sw->index)
		return out;
	return sw->isl_port[dst > sw->index];
}

/*
 * Under rcu_read_lock(): the port the LFT sends dlid out of (0: the
 * switch's own), or -1: not routed (not in the table, above
 * LinearFDBTop, or to a port the switch does not have).  The built-in
 * SM's LFT is worked out as it is read, from the LIDs it gave.
 */
int sib_switch_route(const struct sib_switch *sw, u16 dlid)
{
	u8 out;

	if (!sib_sm_external) {
		out = sib_switch_builtin_lft(sw, dlid);
		return out == SW_NO_PORT ? -1 : out;
	}
	if (dlid >= SIB_SW_LFT_CAP || dlid > READ_ONCE(sw->lft_top))
		return -1;
	out = READ_ONCE(sw->lft[dlid]);
	return out <= sw->nports ? out : -1;
}

/*
 * A packet of len crossed the link from sw's out_port to peer's in_port:
 * one end sent it, the other received it, as their PMAs show.
 */
void sib_switch_link_cross(struct sib_switch *sw, u32 out_port,
			   struct sib_switch *peer, u32 in_port,
			   const struct sib_pkt *pkt, u32 len, bool mcast)
{
	u64 octets;
	u32 pkts = sib_wire_pkts(pkt, len, &octets);

	sib_switch_count(sw, out_port, SIB_PMA_XMIT_PKTS, pkts);
	sib_switch_count(sw, out_port, SIB_PMA_XMIT_OCTETS, octets);
	sib_switch_count(peer, in_port, SIB_PMA_RCV_PKTS, pkts);
	sib_switch_count(peer, in_port, SIB_PMA_RCV_OCTETS, octets);
	if (mcast) {
		sib_switch_count(sw, out_port, SIB_PMA_XMIT_MCAST, pkts);
		sib_switch_count(peer, in_port, SIB_PMA_RCV_MCAST, pkts);
	}
}

/*
 * Under rcu_read_lock(): an MFT entry as the built-in SM implies it from
 * its group's members (forward, bits by fabric index): their ports on
 * this switch, and the top port towards every other switch one hangs on.
 */
u32 sib_switch_builtin_mft(const struct sib_switch *sw, unsigned long forward)
{
	struct sib_port *hca;
	u32 mask = 0, i;

	for_each_set_bit(i, &forward, SIB_FABRIC_PORTS) {
		hca = sib_port_by_index(i);
		if (!hca)
			continue;
		if (hca->sw_index == sw->index)
			mask |= BIT(hca->sw_port);
		else
			mask |= BIT(sw->isl_port[hca->sw_index > sw->index]);
	}
	return mask;
}

/*
 * Under rcu_read_lock(): the HCA ports (bits by fabric index) the MFTs
 * carry pkt's MLID to from sw, where it came in by in_port (0: the
 * switch's own), switch after switch along the links whose ports pass
 * it, each counting it: the MFTs the external SM programmed, or the
 * built-in SM's worked out from its group's members.  A port that does
 * not pass it discards it; never back out the port it came in by; a
 * switch reached twice (MFTs that loop) forwards once.
 */
unsigned long sib_switch_mcast_reach(struct sib_switch *sw, u32 in_port,
				     const struct sib_pkt *pkt)
{
	struct sib_switch *todo[SIB_MAX_SWITCHES], *peer;
	u16 mlid = pkt->dlid;
	u32 todo_in[SIB_MAX_SWITCHES], index = mlid - SIB_MLID_BASE;
	unsigned long forward = 0, seen = BIT(sw->index), ports, members = 0;
	u32 n = 0, p, pp;
	struct sib_port *hca;

	if (mlid < SIB_MLID_BASE || index >= SIB_MAX_MLIDS)
		return 0;
	if (!sib_sm_external)
		members = sib_mft_members(mlid);
	todo[n] = sw;
	todo_in[n++] = in_port;
	while (n) {
		sw = todo[--n];
		in_port = todo_in[n];
		ports = sib_sm_external ? READ_ONCE(sw->mft[index]) :
			sib_switch_builtin_mft(sw, members);
		/* Bit 0 is port 0, the switch's own: no QP there takes it. */
		ports &= GENMASK(sw->nports, 1);
		for_each_set_bit(p, &ports, sw->nports + 1) {
			if (p == in_port)
				continue;
			hca = sib_switch_hca(sw, p);
			peer = hca ? NULL : sib_switch_peer(sw, p, &pp);
			if (peer && (seen & BIT(peer->index)))
				continue;
			if (!sib_switch_port_passes(sw, p, false, false) ||
			    (peer && !sib_switch_port_passes(peer, pp, false,
							     true))) {
				sib_switch_count(sw, p, SIB_PMA_XMIT_DISCARDS, 1);
				continue;
			}
			if (hca) {
				forward |= BIT(hca->fabric_index);
			} else if (peer) {
				seen |= BIT(peer->index);
				sib_switch_link_cross(sw, p, peer, pp, pkt,
						      pkt->length, true);
				todo[n] = peer;
				todo_in[n++] = pp;
			}
		}
	}
	return forward;
}

/*
 * Under rcu_read_lock(), sm=external: the HCA port that owns lid (one of
 * its LMC block), where the LFTs lead from switch 0; NULL when none does.
 */
struct sib_port *sib_switch_lid_owner(u16 lid)
{
	struct sib_switch *sw = &sib_fabric.sw[0];
	struct sib_port *port;
	u32 hops, pp;
	int out;

	for (hops = 0; sw && hops < sib_fabric.nswitches; hops++) {
		out = sib_switch_route(sw, lid);
		if (out <= 0)
			return NULL;
		port = sib_switch_hca(sw, out);
		if (port)
			return sib_port_has_lid(port, lid) ? port : NULL;
		sw = sib_switch_peer(sw, out, &pp);
	}
	return NULL;
}

/*
 * Put an SMP on a link (out_port: to an HCA, or to the next switch, which
 * takes it in its turn) or, LID-routed, to its LID.  One for a link that
 * is down is lost, a discard on the port; one for a port the switch does
 * not have is dropped (C14-9).
 */
static void sw_send_smp(struct sib_switch *sw, struct ib_smp *smp,
			u32 out_port, u16 dlid)
{
	struct ib_sge sge = { .addr = (uintptr_t)smp, .length = sizeof(*smp) };
	struct sib_pkt pkt = {
		.slid = out_port ? SW_LID_PERMISSIVE : sib_switch_lid(sw),
		.dlid = out_port ? SW_LID_PERMISSIVE : dlid,
		.pkey = IB_DEFAULT_PKEY_FULL,
		.length = sizeof(*smp),
		.num_sge = 1,
		.sg = &sge,
		.sw = sw->index,
	};
	struct sib_switch *peer = NULL;
	struct sib_port *dport = NULL;
	u32 pp;

	local_bh_disable();
	rcu_read_lock();
	if (out_port && out_port <= sw->nports) {
		dport = sib_switch_hca(sw, out_port);
		peer = dport ? NULL : sib_switch_peer(sw, out_port, &pp);
	}
	if (!out_port) {
		sib_deliver(&pkt);	/* by the LFTs, from port 0 */
	} else if (out_port > sw->nports) {
		/* not a port of this switch: dropped */
	} else if (!sib_switch_port_passes(sw, out_port, true, false) ||
		   (peer && !sib_switch_port_passes(peer, pp, true, true))) {
		sib_switch_count(sw, out_port, SIB_PMA_XMIT_DISCARDS, 1);
	} else if (dport) {
		sib_deliver_at(&pkt, dport);
	} else if (peer) {
		sib_switch_link_cross(sw, out_port, peer, pp, &pkt,
				      pkt.length, false);
		sib_fabric_smp_to_switch(&pkt, peer->index, pp);
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
	struct sib_switch *sw = container_of(work, struct sib_switch,
					     trap_work);
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
	sw_send_smp(sw, smp, 0, sm_lid);
	kfree(smp);
}

/* Answer an SMP for the switch; false when none is due (not a request). */
static bool sw_answer(struct sib_switch *sw, const struct ib_smp *in,
		      struct ib_smp *out, u32 in_port)
{
	if (sib_mad_for_agents(in->method))
		return false;	/* no SM here takes traps or answers */
	sib_smp_begin(in, out);
	sib_smp_end(out, sib_switch_sma(sw, in, out, in_port));
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
static void sw_dr(struct sib_switch *sw, struct ib_smp *smp, u32 in_port)
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
		sw_send_smp(sw, smp, smp->return_path[hop_ptr], 0);
		return;
	}
	if (!hop_ptr || hop_ptr > hop_cnt)
		return;
	smp->return_path[hop_ptr] = in_port;
	smp->hop_ptr = ++hop_ptr;
	if (hop_ptr <= hop_cnt) {
		sw_send_smp(sw, smp, smp->initial_path[hop_ptr], 0);
		return;
	}
	/* The switch is the destination: answer back the way it came. */
	answer = kmalloc(sizeof(*answer), GFP_KERNEL);
	if (!answer)
		return;		/* the requester times out and retries */
	if (sw_answer(sw, smp, answer, in_port)) {
		out_port = answer->return_path[hop_cnt];
		answer->hop_ptr = hop_cnt;
		sw_send_smp(sw, answer, out_port, 0);
	}
	kfree(answer);
}

/* An SMP reached the switch: by its port in_port, from slid. */
void sib_switch_smp(struct sib_switch *sw, struct ib_smp *smp, u32 len,
		    u32 in_port, u16 slid)
{
	struct ib_smp *answer;

	if (len < sizeof(*smp) || !in_port || in_port > sw->nports ||
	    smp->base_version != IB_MGMT_BASE_VERSION)
		return;
	if (smp->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		sw_dr(sw, smp, in_port);
		return;
	}
	if (smp->mgmt_class != IB_MGMT_CLASS_SUBN_LID_ROUTED)
		return;
	answer = kmalloc(sizeof(*answer), GFP_KERNEL);
	if (!answer)
		return;
	if (sw_answer(sw, smp, answer, in_port))
		sw_send_smp(sw, answer, 0, slid);
	kfree(answer);
}

/*
 * The PMA: an HCA-facing port's link counters are its link's, seen from
 * the switch's end (what the HCA sent, the switch received); the top
 * ports' are the switch's own (sib_switch_link_cross()), and so are every
 * port's discards, relay errors and, on the top ports, times the link
 * went down.  Resets are the switch's own.
 */
static const enum sib_pma_field sw_mirror[SIB_PMA_NR_FIELDS] = {
	[SIB_PMA_XMIT_OCTETS] = SIB_PMA_RCV_OCTETS,
	[SIB_PMA_RCV_OCTETS] = SIB_PMA_XMIT_OCTETS,
	[SIB_PMA_XMIT_PKTS] = SIB_PMA_RCV_PKTS,
	[SIB_PMA_RCV_PKTS] = SIB_PMA_XMIT_PKTS,
	[SIB_PMA_XMIT_UCAST] = SIB_PMA_NR_FIELDS,	/* less multicast */
	[SIB_PMA_RCV_UCAST] = SIB_PMA_NR_FIELDS,
	[SIB_PMA_XMIT_MCAST] = SIB_PMA_RCV_MCAST,
	[SIB_PMA_RCV_MCAST] = SIB_PMA_XMIT_MCAST,
	[SIB_PMA_LINK_DOWNED] = SIB_PMA_LINK_DOWNED,
	[SIB_PMA_XMIT_DISCARDS] = SIB_PMA_NR_FIELDS,
	[SIB_PMA_VL15_DROPPED] = SIB_PMA_NR_FIELDS,
	[SIB_PMA_RCV_SW_RELAY_ERRORS] = SIB_PMA_NR_FIELDS,
};

static u64 sw_pma_raw(struct sib_switch *sw, u32 port_num,
		      enum sib_pma_field f)
{
	struct sib_port *hca;
	u64 raw = 0;
	int cpu;

	if (f == SIB_PMA_XMIT_UCAST)
		return sw_pma_raw(sw, port_num, SIB_PMA_XMIT_PKTS) -
		       sw_pma_raw(sw, port_num, SIB_PMA_XMIT_MCAST);
	if (f == SIB_PMA_RCV_UCAST)
		return sw_pma_raw(sw, port_num, SIB_PMA_RCV_PKTS) -
		       sw_pma_raw(sw, port_num, SIB_PMA_RCV_MCAST);
	for_each_possible_cpu(cpu)
		raw += per_cpu_ptr(sw->stats, cpu)->cnt[port_num][f];
	if (sw_mirror[f] == SIB_PMA_NR_FIELDS)
		return raw;
	rcu_read_lock();
	hca = sib_switch_hca(sw, port_num);
	if (hca)
		raw += sib_pma_raw(hca, sw_mirror[f]);
	rcu_read_unlock();
	return raw;
}

static u64 sw_pma_value(void *ctx, u32 port_num, enum sib_pma_field f)
{
	struct sib_switch *sw = ctx;

	return sib_pma_since(sw_pma_raw(sw, port_num, f),
			     READ_ONCE(sw->pma_base[port_num][f]));
}

static void sw_pma_reset(void *ctx, u32 port_num, enum sib_pma_field f)
{
	struct sib_switch *sw = ctx;

	WRITE_ONCE(sw->pma_base[port_num][f], sw_pma_raw(sw, port_num, f));
}

/* A performance management MAD reached the switch's QP1. */
void sib_switch_pma(struct sib_switch *sw, const struct sib_mad_src *src,
		    const void *mad, u32 len)
{
	const struct sib_pma_node node = {
		.first = 0,
		.last = sw->nports,
		.value = sw_pma_value,
		.reset = sw_pma_reset,
		.ctx = sw,
	};
	const struct ib_mad_hdr *hdr = mad;
	struct ib_mad *in, *out;

	if (len < sizeof(*in) || sib_mad_for_agents(hdr->method))
		return;
	in = kmemdup(mad, sizeof(*in), GFP_KERNEL);
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (in && out) {
		if (sib_pma_answer(&node, in, out) & IB_MAD_RESULT_REPLY)
			sib_switch_send_mad(sw, src, out, sizeof(*out));
	}
	kfree(in);
	kfree(out);
}
