// SPDX-License-Identifier: GPL-2.0
/*
 * The wire: route a message by DLID to a port, pick the QP, apply the
 * P_Key and Q_Key checks the receiving HCA would, and copy the payload into
 * the receive buffer.  Multicast goes to every attached QP on the ports the
 * switches forward that MLID to, plus loopback on the sending port.
 * Unicast and multicast cross the switches hop by hop, each switch
 * forwarding by its LFT and MFT: the ones the built-in SM's LIDs and
 * groups imply, or the ones an external SM programmed.
 */
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/rculist.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include "sib.h"

/* Payloads copied for later delivery: MADs, and delayed UD packets. */
struct sib_held_pkt {
	struct delayed_work work;
	struct list_head link;
	bool waiting;			/* CM MAD held until released */
	struct sib_pkt pkt;
	struct ib_sge sge;
	u8 data[];
};

static LIST_HEAD(held_pkts);
static DEFINE_SPINLOCK(held_lock);

/*
 * Under rcu_read_lock(): the port that owns a LID, where it is routed.
 * The built-in SM's blocks are all of lmc=: by_lid has their bases.
 */
struct sib_port *sib_port_by_lid(u16 lid)
{
	struct sib_port *port;

	if (sib_sm_external)
		return sib_switch_lid_owner(lid);
	if (lid > SIB_MAX_LID)
		return NULL;
	port = rcu_dereference(sib_fabric.by_lid[lid -
						 sib_lid_path_bits(lid, sib_lmc)]);
	return port && sib_port_has_lid(port, lid) ? port : NULL;
}

struct sib_port *sib_port_by_index(u32 index)
{
	if (index >= SIB_FABRIC_PORTS)
		return NULL;
	return rcu_dereference(sib_fabric.by_index[index]);
}

/* The index of gid in the port's GID table, or -1: not one of its GIDs. */
int sib_port_gid_index(const struct sib_port *port, const union ib_gid *gid)
{
	u32 i;

	if (be64_to_cpu(gid->global.subnet_prefix) != SIB_SUBNET_PREFIX ||
	    !gid->global.interface_id)
		return -1;
	for (i = 0; i < sib_gids; i++)
		if (READ_ONCE(port->guids[i]) == gid->global.interface_id)
			return i;
	return -1;
}

/* Under rcu_read_lock(): the port with that GID, if it has a LID. */
struct sib_port *sib_port_by_gid(const union ib_gid *gid)
{
	u32 i;

	for (i = 0; i < SIB_FABRIC_PORTS; i++) {
		struct sib_port *port = sib_port_by_index(i);

		if (port && sib_port_gid_index(port, gid) >= 0 &&
		    READ_ONCE(port->lid))
			return port;
	}
	return NULL;
}

static bool is_ud_like(enum ib_qp_type type)
{
	return type == IB_QPT_UD || type == IB_QPT_GSI || type == IB_QPT_SMI;
}

/*
 * What a message costs on the link (IBA 16.1.3.5 counts every octet from
 * the LRH to the ICRC): one packet per path MTU, each with LRH (8), BTH
 * (12) and ICRC (4), plus a GRH (40), a DETH (8) for datagrams and an
 * ImmDt (4) when present.  len is what it carries: an RDMA READ request
 * carries nothing, its response the data.
 */
#define SIB_WIRE_BASE_OCTETS	24
#define SIB_WIRE_GRH_OCTETS	40
#define SIB_WIRE_DETH_OCTETS	8
#define SIB_WIRE_IMM_OCTETS	4

/* The packets a message of len makes on a link; *octets, their size. */
u32 sib_wire_pkts(const struct sib_pkt *pkt, u32 len, u64 *octets)
{
	bool datagram = !pkt->src_qp || is_ud_like(pkt->src_qp->type);
	u32 hdr = SIB_WIRE_BASE_OCTETS, pkts = 1;

	if (!datagram) {
		u32 mtu = sib_mtu_bytes(pkt->src_qp->path_mtu);

		pkts = max_t(u32, 1, DIV_ROUND_UP(len, mtu));
	}
	if (pkt->has_grh)
		hdr += SIB_WIRE_GRH_OCTETS;
	if (datagram)
		hdr += SIB_WIRE_DETH_OCTETS;
	if (pkt->with_imm)
		hdr += SIB_WIRE_IMM_OCTETS;
	*octets = len + (u64)pkts * hdr;
	return pkts;
}

void sib_link_count(struct sib_port *port, const struct sib_pkt *pkt,
		    u32 len, bool tx, bool mcast)
{
	u64 octets;
	u32 pkts = sib_wire_pkts(pkt, len, &octets);

	sib_count(port, tx ? SIB_CNT_LINK_TX_PKTS : SIB_CNT_LINK_RX_PKTS, pkts);
	sib_count(port, tx ? SIB_CNT_LINK_TX_OCTETS : SIB_CNT_LINK_RX_OCTETS,
		  octets);
	if (mcast)
		sib_count(port, tx ? SIB_CNT_LINK_TX_MCAST_PKTS :
				     SIB_CNT_LINK_RX_MCAST_PKTS, pkts);
}

/* What a request carries on the wire. */
static u32 wire_len(const struct sib_pkt *pkt)
{
	return pkt->op == SIB_OP_READ ? 0 : pkt->length;
}

bool sib_qp_can_receive(const struct sib_qp *qp, enum ib_qp_state state)
{
	if (state == IB_QPS_RTR || state == IB_QPS_RTS || state == IB_QPS_SQD)
		return true;
	/* A UD send queue error leaves its receive side working. */
	return state == IB_QPS_SQE && is_ud_like(qp->type);
}

/* A lost RC message is, to its sender, a request no ACK answers. */
static enum sib_delivery lost(const struct sib_pkt *pkt)
{
	if (pkt->src_qp && pkt->src_qp->type == IB_QPT_RC)
		return SIB_NO_RESPONDER;
	return SIB_DROPPED;
}

static enum sib_delivery dropped(const struct sib_pkt *pkt,
				 struct sib_port *where, enum sib_counter why)
{
	sib_count(where, why, 1);
	return lost(pkt);
}

/*
 * The P_Key and Q_Key checks of the receiving HCA; returns the P_Key index
 * for the WC, or -1.
 */
int sib_check_keys(struct sib_port *dport, struct sib_qp *qp,
		   const struct sib_pkt *pkt)
{
	int index;

	if (qp->type == IB_QPT_SMI)
		return 0;
	if (qp->type == IB_QPT_GSI) {
		index = sib_pkey_find(dport, pkt->pkey);
		if (index < 0 || !sib_pkey_match(pkt->pkey,
						 sib_pkey_at(dport, index)))
			goto bad_pkey;
	} else {
		index = qp->pkey_index;
		if (!sib_pkey_match(pkt->pkey, sib_pkey_at(dport, index)))
			goto bad_pkey;
	}
	if (is_ud_like(qp->type) && pkt->qkey != qp->qkey) {
		sib_count(dport, SIB_CNT_QKEY_VIOLATIONS, 1);
		return -1;
	}
	return index;

bad_pkey:
	sib_count(dport, SIB_CNT_PKEY_VIOLATIONS, 1);
	return -1;
}

static void fill_recv_wc(struct ib_wc *wc, struct sib_port *dport,
			 struct sib_qp *qp, const struct sib_pkt *pkt,
			 u32 byte_len, int pkey_index)
{
	memset(wc, 0, sizeof(*wc));
	wc->status = IB_WC_SUCCESS;
	wc->opcode = IB_WC_RECV;
	wc->byte_len = byte_len;
	wc->qp = &qp->ibqp;
	wc->src_qp = pkt->src_qpn;
	wc->slid = pkt->slid;
	wc->dlid_path_bits = sib_port_path_bits(dport, pkt->dlid);
	wc->sl = pkt->sl;
	wc->pkey_index = pkey_index;
	wc->port_num = qp->port_num;
	if (pkt->with_imm) {
		wc->ex.imm_data = pkt->imm;
		wc->wc_flags |= IB_WC_WITH_IMM;
	}
	if (pkt->has_grh && is_ud_like(qp->type))
		wc->wc_flags |= IB_WC_GRH;
}

static void srq_limit_event(struct sib_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/*
 * Under the RQ lock: put a message in a receive WQE's list (after the GRH
 * room on UD), as the lkeys of the list allow.  Returns a WC status.
 */
static int place_message(struct sib_qp *qp, struct ib_pd *pd,
			 const struct sib_pkt *pkt, struct sib_recv_wqe *wqe,
			 u32 need, bool ud)
{
	struct sib_cursor dst, src;

	if (wqe->length < need)
		return IB_WC_LOC_LEN_ERR;
	if (sib_sgl_check(qp->sdev, pd, wqe->sg, wqe->num_sge, need,
			  IB_ACCESS_LOCAL_WRITE))
		return IB_WC_LOC_PROT_ERR;
	if (ud && pkt->has_grh) {
		struct ib_sge grh_sge = {
			.addr = (uintptr_t)&pkt->grh,
			.length = sizeof(pkt->grh),
		};

		sib_cursor_init(&dst, qp->sdev, wqe->sg, wqe->num_sge);
		sib_cursor_init(&src, NULL, &grh_sge, 1);
		sib_copy(&dst, &src, sizeof(pkt->grh));
	}
	sib_cursor_init(&dst, qp->sdev, wqe->sg, wqe->num_sge);
	sib_cursor_skip(&dst, ud ? SIB_GRH_BYTES : 0);
	sib_cursor_init(&src, pkt->sg_dev, pkt->sg, pkt->num_sge);
	sib_copy(&dst, &src, pkt->length);
	return IB_WC_SUCCESS;
}

/*
 * Under the RQ lock: what a receive WQE gets from a message that fits its
 * QP's rules: a send's payload (and with SEND_WITH_INV, the region freed),
 * or the WQE alone, for an RDMA WRITE with immediate whose data goes where
 * its R_Key says.  Returns a WC status, or (a refused write) -1 with the
 * refusal in *res.
 */
static int receive(struct sib_port *dport, struct sib_qp *qp,
		   struct ib_pd *pd, struct sib_pkt *pkt,
		   struct sib_recv_wqe *wqe, struct ib_wc *wc,
		   enum sib_delivery *res)
{
	bool ud = is_ud_like(qp->type);
	int status;

	if (pkt->op == SIB_OP_WRITE) {
		*res = sib_rdma_write(dport, qp, pkt);
		if (*res != SIB_DELIVERED)
			return -1;
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
		return IB_WC_SUCCESS;
	}
	status = place_message(qp, pd, pkt, wqe, wc->byte_len, ud);
	if (status != IB_WC_SUCCESS)
		return status;
	if (pkt->csum_ok &&
	    sib_csum_fill(qp->sdev, pkt, wqe, ud ? SIB_GRH_BYTES : 0))
		wc->wc_flags |= IB_WC_IP_CSUM_OK;
	if (pkt->with_inv) {
		if (sib_mr_invalidate(qp, pkt->inv_rkey))
			return IB_WC_REM_INV_REQ_ERR;
		sib_count(dport, SIB_CNT_REMOTE_INVALIDATES, 1);
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = pkt->inv_rkey;
	}
	return IB_WC_SUCCESS;
}

/* After a receive WQE completed in error: what the sender learns. */
static enum sib_delivery receive_failed(struct sib_port *dport,
					struct sib_qp *qp, int status)
{
	if (status == IB_WC_LOC_LEN_ERR) {
		sib_count(dport, SIB_CNT_LEN_ERRORS, 1);
		if (qp->type != IB_QPT_RC && qp->type != IB_QPT_UC)
			return SIB_DROPPED;
	}
	sib_qp_set_error(qp);
	if (qp->type != IB_QPT_RC)
		return SIB_DROPPED;
	return status == IB_WC_LOC_PROT_ERR ? SIB_REMOTE_OP_ERROR :
					      SIB_REMOTE_ERROR;
}

/*
 * Consume one receive WQE of qp and place the message in it.  The WQ lock
 * is held across the copy and the CQ push so that completions come out in
 * the order the receives were consumed.
 */
static enum sib_delivery deliver_to_qp(struct sib_port *dport,
				       struct sib_qp *qp,
				       struct sib_pkt *pkt)
{
	struct sib_srq *srq = qp->ibqp.srq ? to_ssrq(qp->ibqp.srq) : NULL;
	struct sib_wq *rq = srq ? &srq->rq : &qp->rq;
	struct ib_pd *pd = srq ? srq->ibsrq.pd : qp->ibqp.pd;
	struct sib_cq *cq = to_scq(qp->ibqp.recv_cq);
	bool ud = is_ud_like(qp->type);
	/* A stalled port starves every QP but the SMI's and GSI's. */
	bool stalled = READ_ONCE(dport->rx_stall) && qp->type != IB_QPT_SMI &&
		       qp->type != IB_QPT_GSI;
	u32 need = pkt->length + (ud ? SIB_GRH_BYTES : 0);
	enum sib_delivery res = SIB_DELIVERED;
	struct sib_recv_wqe *wqe;
	bool fire, limit_hit = false;
	unsigned long flags;
	struct ib_wc wc;
	int pkey_index, status;

	pkey_index = sib_check_keys(dport, qp, pkt);
	if (pkey_index < 0)
		return lost(pkt);

	spin_lock_irqsave(&rq->lock, flags);
	if (!sib_qp_can_receive(qp, READ_ONCE(qp->state))) {
		spin_unlock_irqrestore(&rq->lock, flags);
		return dropped(pkt, dport, SIB_CNT_DROP_NO_QP);
	}
	if (stalled || sib_wq_empty(rq)) {
		spin_unlock_irqrestore(&rq->lock, flags);
		if (qp->type == IB_QPT_RC) {
			sib_count(dport, SIB_CNT_RNR_NAKS, 1);
			pkt->rnr_timer = qp->min_rnr_timer;
			return SIB_RNR;
		}
		sib_count(dport, SIB_CNT_DROP_NO_BUFFER, 1);
		return SIB_DROPPED;
	}
	wqe = sib_wq_entry(rq, rq->head);
	fill_recv_wc(&wc, dport, qp, pkt, need, pkey_index);
	wc.wr_id = wqe->wr_id;
	status = receive(dport, qp, pd, pkt, wqe, &wc, &res);
	if (status < 0) {
		/* A refused write leaves the WQE to the flush. */
		spin_unlock_irqrestore(&rq->lock, flags);
		return sib_rdma_refuse(dport, qp, res);
	}
	wc.status = status;
	if (status != IB_WC_SUCCESS)
		wc.byte_len = 0;
	rq->head++;
	if (srq && srq->limit && sib_wq_count(rq) < srq->limit) {
		srq->limit = 0;
		limit_hit = true;
	}
	fire = sib_cq_push(cq, &wc, pkt->solicited);
	spin_unlock_irqrestore(&rq->lock, flags);

	if (fire)
		sib_cq_fire(cq);
	if (limit_hit)
		srq_limit_event(srq);
	if (status != IB_WC_SUCCESS)
		return receive_failed(dport, qp, status);
	sib_count(dport, SIB_CNT_RX_PKTS, 1);
	sib_count(dport, SIB_CNT_RX_BYTES, pkt->length);
	return SIB_DELIVERED;
}

static struct sib_qp *find_qp(struct sib_port *dport, u32 qpn)
{
	struct sib_qp *qp;

	if (qpn <= 1)
		return rcu_dereference(dport->special_qp[qpn]);
	qp = xa_load(&dport->sdev->qps, qpn);
	if (qp && qp->port_num != dport->port_num)
		return NULL;
	return qp;
}

/* Same transport at both ends, and for connections, the right peer. */
static bool transport_ok(const struct sib_qp *qp, const struct sib_pkt *pkt)
{
	enum ib_qp_type from = pkt->src_qp ? pkt->src_qp->type : IB_QPT_GSI;

	if (is_ud_like(qp->type))
		return is_ud_like(from);
	if (qp->type != from)
		return false;
	return qp->dest_qpn == pkt->src_qpn && qp->dest.dlid == pkt->slid;
}

/*
 * Under rcu_read_lock(): a unicast message reached dport's link.  SMPs
 * that find no QP0 to take them are VL15 drops as well.
 */
enum sib_delivery sib_deliver_at(struct sib_pkt *pkt, struct sib_port *dport)
{
	bool smp = pkt->dst_qpn == 0;
	enum sib_delivery res;
	struct sib_qp *qp;

	if (!sib_port_passes(dport, smp)) {
		if (pkt->src_port)
			sib_count(pkt->src_port, SIB_CNT_DROP_PORT_DOWN, 1);
		return lost(pkt);
	}
	sib_link_count(dport, pkt, wire_len(pkt), false, false);
	if (sib_port_path_bits(dport, pkt->dlid))
		sib_count(dport, SIB_CNT_RX_PATH_BITS, 1);
	/* A GRH names the port too: its DGID must be one of the port's GIDs. */
	if (pkt->has_grh && sib_port_gid_index(dport, &pkt->grh.dgid) < 0)
		return dropped(pkt, dport, SIB_CNT_DROP_BAD_DGID);
	qp = find_qp(dport, pkt->dst_qpn);
	if (!qp || !transport_ok(qp, pkt))
		res = dropped(pkt, dport, SIB_CNT_DROP_NO_QP);
	else if (pkt->op == SIB_OP_SEND || pkt->with_imm)
		res = deliver_to_qp(dport, qp, pkt);
	else
		res = sib_rdma_respond(dport, qp, pkt);
	if (smp && res != SIB_DELIVERED)
		sib_count(dport, SIB_CNT_VL15_DROPPED, 1);
	return res;
}

/* Lost on the way, counted at the sender's port if it is one of ours. */
static enum sib_delivery dropped_on_way(const struct sib_pkt *pkt,
					enum sib_counter why)
{
	if (pkt->src_port)
		sib_count(pkt->src_port, why, 1);
	return lost(pkt);
}

/*
 * Multicast to the QPs attached to mlid on the ports of forward (bits by
 * fabric index: the switch's forwarding), and on the sending port.
 */
static enum sib_delivery deliver_multicast(struct sib_pkt *pkt,
					   unsigned long forward)
{
	u32 index = pkt->dlid - SIB_MLID_BASE;
	struct sib_mcast_attach *att;
	struct sib_mcast_group *grp;
	unsigned int i;

	if (index >= SIB_MAX_MLIDS)
		return SIB_DROPPED;
	grp = rcu_dereference(sib_fabric.by_mlid[index]);
	if (!grp)
		return SIB_DROPPED;
	/* Every port the switch forwards to gets it, attached QPs or not. */
	for_each_set_bit(i, &forward, SIB_FABRIC_PORTS) {
		struct sib_port *dport = sib_port_by_index(i);

		if (dport && dport != pkt->src_port &&
		    READ_ONCE(dport->state) == IB_PORT_ACTIVE)
			sib_link_count(dport, pkt, pkt->length, false, true);
	}
	list_for_each_entry_rcu(att, &grp->attached, group_link) {
		struct sib_qp *qp = att->qp;
		struct sib_port *dport = sib_port(qp->sdev, qp->port_num);

		if (dport != pkt->src_port &&
		    !(forward & BIT(dport->fabric_index)))
			continue;
		if (qp == pkt->src_qp && qp->block_mcast_loopback)
			continue;
		if (pkt->has_grh && memcmp(&att->mgid, &pkt->grh.dgid,
					   sizeof(att->mgid)))
			continue;
		if (READ_ONCE(dport->state) != IB_PORT_ACTIVE)
			continue;
		if (deliver_to_qp(dport, qp, pkt) == SIB_DELIVERED)
			sib_count(dport, SIB_CNT_RX_MCAST_PKTS, 1);
	}
	return SIB_DELIVERED;
}

/* A MAD for a switch's QP1 (held->pkt.sw): the SA's or its PMA's. */
static void sa_work(struct work_struct *work)
{
	struct sib_held_pkt *held = container_of(to_delayed_work(work),
						 struct sib_held_pkt, work);
	struct sib_switch *sw = &sib_fabric.sw[held->pkt.sw];
	struct sib_mad_src src = {
		.slid = held->pkt.slid,
		.sqpn = held->pkt.src_qpn,
		.pkey = held->pkt.pkey,
		.sl = held->pkt.sl,
		.has_grh = held->pkt.has_grh,
		.sgid = held->pkt.grh.sgid,
	};
	unsigned long flags;

	spin_lock_irqsave(&held_lock, flags);
	list_del(&held->link);
	spin_unlock_irqrestore(&held_lock, flags);

	/* Ports outlive queued work: device removal flushes this queue. */
	rcu_read_lock();
	src.port = sib_port_by_lid(src.slid);
	rcu_read_unlock();
	atomic_inc(&sw->sm_act_count);
	/*
	 * The SA (built-in SM only) and switch 0's PMA share its port 0's
	 * QP1.  A PMA answers the SLID by its LFT, whoever asked: switch 0's
	 * LFT may no longer lead there (sm=external, a link down).
	 */
	if (held->data[1] == IB_MGMT_CLASS_PERF_MGMT)
		sib_switch_pma(sw, &src, held->data, held->pkt.length);
	else if (src.port && !sib_sm_external && !sw->index)
		sib_sa_recv(&src, held->data, held->pkt.length);
	kfree(held);
}

/* An SMP for a switch (held->pkt.sw): to route on, or to answer. */
static void switch_work(struct work_struct *work)
{
	struct sib_held_pkt *held = container_of(to_delayed_work(work),
						 struct sib_held_pkt, work);
	unsigned long flags;

	spin_lock_irqsave(&held_lock, flags);
	list_del(&held->link);
	spin_unlock_irqrestore(&held_lock, flags);

	sib_switch_smp(&sib_fabric.sw[held->pkt.sw], (struct ib_smp *)held->data,
		       held->pkt.length, held->pkt.sw_port, held->pkt.slid);
	kfree(held);
}

static void held_deliver_work(struct work_struct *work)
{
	struct sib_held_pkt *held = container_of(to_delayed_work(work),
						 struct sib_held_pkt, work);
	unsigned long flags;

	spin_lock_irqsave(&held_lock, flags);
	list_del(&held->link);
	spin_unlock_irqrestore(&held_lock, flags);

	local_bh_disable();
	rcu_read_lock();
	sib_deliver(&held->pkt);
	rcu_read_unlock();
	local_bh_enable();
	kfree(held);
}

/* A copy of a UD message, off the sender's buffers, for fn to take later. */
static struct sib_held_pkt *hold_copy(const struct sib_pkt *pkt,
				      work_func_t fn, bool waiting)
{
	struct sib_held_pkt *held;

	held = kmalloc(struct_size(held, data, pkt->length), GFP_ATOMIC);
	if (!held)
		return NULL;
	held->pkt = *pkt;
	held->pkt.src_port = NULL;
	held->pkt.src_qp = NULL;
	held->pkt.held = true;
	held->sge.addr = (uintptr_t)held->data;
	held->sge.length = pkt->length;
	held->sge.lkey = SIB_LKEY_KERNEL;
	sib_copy_out(held->data, pkt, pkt->length);
	held->pkt.sg = &held->sge;
	held->pkt.sg_dev = NULL;
	held->pkt.num_sge = 1;
	INIT_DELAYED_WORK(&held->work, fn);
	held->waiting = waiting;
	return held;
}

/* Queue a copy: in delay_ms, or when released (waiting). */
static void hold_queue(struct sib_held_pkt *held, unsigned int delay_ms)
{
	unsigned long flags;

	spin_lock_irqsave(&held_lock, flags);
	list_add_tail(&held->link, &held_pkts);
	if (!held->waiting)
		queue_delayed_work(sib_fabric.wq, &held->work,
				   msecs_to_jiffies(delay_ms));
	spin_unlock_irqrestore(&held_lock, flags);
}

static struct sib_held_pkt *hold_pkt(const struct sib_pkt *pkt,
				     work_func_t fn, unsigned int delay_ms,
				     bool waiting)
{
	struct sib_held_pkt *held = hold_copy(pkt, fn, waiting);

	if (held)
		hold_queue(held, delay_ms);
	return held;
}

/* For a switch's work (fn), as having come in to it by in_port. */
static enum sib_delivery hold_at_switch(const struct sib_pkt *pkt,
					work_func_t fn, struct sib_switch *sw,
					u32 in_port, unsigned int delay_ms)
{
	struct sib_held_pkt *held = hold_copy(pkt, fn, false);

	if (!held)
		return SIB_DROPPED;
	held->pkt.sw = sw->index;
	held->pkt.sw_port = in_port;
	hold_queue(held, delay_ms);
	return SIB_DELIVERED;
}

/* An SMP crossing a link between switches: the next one takes it in turn. */
void sib_fabric_smp_to_switch(const struct sib_pkt *pkt, u32 sw_index,
			      u32 in_port)
{
	hold_at_switch(pkt, switch_work, &sib_fabric.sw[sw_index], in_port, 0);
}

void sib_deliver_later(const struct sib_pkt *pkt, unsigned int delay_ms)
{
	hold_pkt(pkt, held_deliver_work, delay_ms, false);
}

/* CM MADs held by cm_hold: how many wait now. */
unsigned int sib_fabric_cm_held(void)
{
	struct sib_held_pkt *held;
	unsigned int n = 0;
	unsigned long flags;

	spin_lock_irqsave(&held_lock, flags);
	list_for_each_entry(held, &held_pkts, link)
		n += held->waiting;
	spin_unlock_irqrestore(&held_lock, flags);
	return n;
}

/*
 * What waits for that DLID (for any, when 0) goes on, in the order it
 * came; what comes next is held as before.
 */
void sib_fabric_cm_release_to(u16 dlid)
{
	struct sib_held_pkt *held;
	unsigned long flags;

	spin_lock_irqsave(&held_lock, flags);
	list_for_each_entry(held, &held_pkts, link) {
		if (!held->waiting || (dlid && held->pkt.dlid != dlid))
			continue;
		held->waiting = false;
		queue_delayed_work(sib_fabric.wq, &held->work, 0);
	}
	spin_unlock_irqrestore(&held_lock, flags);
}

/* cm_hold goes to 0: what it held goes on. */
void sib_fabric_cm_release(void)
{
	WRITE_ONCE(sib_fabric.cm_hold, SIB_CM_HOLD_NONE);
	sib_fabric_cm_release_to(0);
}

/* The management class of a MAD (or 0 when it is too short to be one). */
static u8 mad_class(const struct sib_pkt *pkt)
{
	struct ib_mad_hdr hdr;

	if (pkt->length < sizeof(hdr))
		return 0;
	sib_copy_out(&hdr, pkt, sizeof(hdr));
	return hdr.mgmt_class;
}

/*
 * A switch's port 0's QP1: the SM's SA and switch 0's PMA at LID 1
 * (sm=builtin), a switch's PMA alone at its other LIDs.  SA requests
 * wait sa_delay_ms on the fabric's queue, as a loaded SA keeps askers
 * waiting; nothing blocks meanwhile.
 */
static enum sib_delivery deliver_to_sm(struct sib_pkt *pkt,
				       struct sib_switch *sw)
{
	unsigned int delay = 0;

	if (pkt->dst_qpn != 1 || pkt->qkey != IB_QP1_QKEY ||
	    !sib_pkey_valid(pkt->pkey) || pkt->length > IB_MGMT_MAD_SIZE)
		return SIB_DROPPED;
	if (mad_class(pkt) == IB_MGMT_CLASS_SUBN_ADM) {
		delay = READ_ONCE(sib_fabric.sa_delay_ms);
		if (delay && pkt->src_port)
			sib_count(pkt->src_port, SIB_CNT_SA_DELAYED, 1);
	}
	return hold_at_switch(pkt, sa_work, sw, pkt->sw_port, delay);
}

/*
 * An SMP an HCA sent: directed-route ones all go to the switch at the
 * link's other end; under sm=builtin, LID-routed ones for a switch's LID
 * to that switch, by the port facing the sender (under sm=external the
 * LFTs say).  Returns that switch and port, or NULL.
 */
static struct sib_switch *smp_for_switch(const struct sib_pkt *pkt,
					 u32 *in_port)
{
	struct sib_switch *to;

	if (pkt->dst_qpn != 0 || !pkt->sw_port ||
	    pkt->length < sizeof(struct ib_smp))
		return NULL;
	if (mad_class(pkt) == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) {
		*in_port = pkt->sw_port;
		return &sib_fabric.sw[pkt->sw];
	}
	to = sib_sm_external ? NULL : sib_switch_by_lid(pkt->dlid);
	if (to)
		*in_port = sib_switch_port_toward(to, pkt->sw, pkt->sw_port);
	return to;
}

/*
 * A packet an LFT routes to port 0, the switch's own: SMPs, its PMA's
 * MADs and, under sm=builtin, switch 0's SA's.
 */
static enum sib_delivery deliver_to_switch(struct sib_pkt *pkt,
					   struct sib_switch *sw, u32 in_port)
{
	if (pkt->dlid != sib_switch_lid(sw))
		return dropped_on_way(pkt, SIB_CNT_DROP_UNROUTED);
	if (pkt->dst_qpn == 0 && pkt->length >= sizeof(struct ib_smp))
		return hold_at_switch(pkt, switch_work, sw, in_port, 0);
	if (!sib_sm_external || mad_class(pkt) == IB_MGMT_CLASS_PERF_MGMT)
		return deliver_to_sm(pkt, sw);
	return SIB_DROPPED;	/* nothing else listens there */
}

/*
 * A switch could not forward: the sender's port counts it (why), and so
 * does the switch's PMA: a relay error on the port it came in by when
 * there is no way on, a discard on the port out when that one is down.
 */
static enum sib_delivery switch_dropped(const struct sib_pkt *pkt,
					struct sib_switch *sw, u32 port_num,
					enum sib_counter why)
{
	sib_switch_count(sw, port_num, why == SIB_CNT_DROP_UNROUTED ?
			 SIB_PMA_RCV_SW_RELAY_ERRORS : SIB_PMA_XMIT_DISCARDS, 1);
	return dropped_on_way(pkt, why);
}

/*
 * Each switch forwards by the tables the SM programmed (sm=builtin: the
 * LFTs and MFTs its LIDs and groups imply).  A packet comes in to its
 * first switch by its sender's link (sw, sw_port; port 0 when the switch
 * sends it) and leaves by the LFT's port for its DLID, or the MFT's
 * ports for its MLID, to an HCA or to the next switch, which does the
 * same; every port on the way must pass it, and each link between
 * switches counts it at both ends.  What an LFT does not route, routes to
 * a port whose HCA does not have the LID (in its LMC block), or routes
 * round in a loop, is dropped and counted at the sender's port
 * (drop_unrouted) and as the switch's relay error; what meets a port that
 * is not up, likewise (drop_port_down, the switch's discard; multicast,
 * the discard alone).  An HCA reaches its own LIDs without the switch.
 */
static enum sib_delivery forward_by_tables(struct sib_pkt *pkt, bool mcast)
{
	struct sib_switch *sw = &sib_fabric.sw[pkt->sw], *next;
	struct sib_port *from = sib_switch_hca(sw, pkt->sw_port);
	bool smp = pkt->dst_qpn == 0;
	u32 in = pkt->sw_port, next_in, hops;
	struct sib_port *dport;
	int out;

	if (from && !mcast && sib_port_has_lid(from, pkt->dlid))
		return sib_deliver_at(pkt, from);
	if (in && !sib_switch_port_passes(sw, in, smp, true))
		return dropped_on_way(pkt, SIB_CNT_DROP_PORT_DOWN);
	if (mcast)
		return deliver_multicast(pkt, sib_switch_mcast_reach(sw, in,
								     pkt));
	/* In a line no route crosses a switch twice: one that does loops. */
	for (hops = 0; hops < sib_fabric.nswitches; hops++) {
		out = sib_switch_route(sw, pkt->dlid);
		if (out < 0)
			return switch_dropped(pkt, sw, in,
					      SIB_CNT_DROP_UNROUTED);
		if (!out)
			return deliver_to_switch(pkt, sw, in);
		if (!sib_switch_port_passes(sw, out, smp, false))
			return switch_dropped(pkt, sw, out,
					      SIB_CNT_DROP_PORT_DOWN);
		dport = sib_switch_hca(sw, out);
		if (dport && sib_port_has_lid(dport, pkt->dlid))
			return sib_deliver_at(pkt, dport);
		next = dport ? NULL : sib_switch_peer(sw, out, &next_in);
		if (!next)
			return switch_dropped(pkt, sw, in,
					      SIB_CNT_DROP_UNROUTED);
		if (!sib_switch_port_passes(next, next_in, smp, true))
			return switch_dropped(pkt, sw, out,
					      SIB_CNT_DROP_PORT_DOWN);
		sib_switch_link_cross(sw, out, next, next_in, pkt,
				      wire_len(pkt), false);
		sw = next;
		in = next_in;
	}
	return switch_dropped(pkt, sw, in, SIB_CNT_DROP_UNROUTED);
}

static bool is_mad(const struct sib_pkt *pkt)
{
	return pkt->dst_qpn <= 1;
}

/* Is this a CM MAD that cm_hold says must wait? */
static bool cm_mad_held(const struct sib_pkt *pkt, enum sib_cm_hold hold)
{
	struct ib_mad_hdr hdr;

	if (hold == SIB_CM_HOLD_NONE || pkt->dst_qpn != 1 ||
	    pkt->length < sizeof(hdr))
		return false;
	sib_copy_out(&hdr, pkt, sizeof(hdr));
	if (hdr.mgmt_class != IB_MGMT_CLASS_CM)
		return false;
	return hold == SIB_CM_HOLD_ALL || hdr.attr_id == CM_REQ_ATTR_ID;
}

static bool drop_every(u32 every, atomic_t *seq)
{
	return every && (atomic_inc_return(seq) % every) == 0;
}

/*
 * *_loss_ppm: each message lost with that chance in a million; a loss
 * starts a burst that takes the next loss_burst - 1 of the same kind the
 * same port sends within loss_burst_us (the SM's own sends have one burst
 * of their own).  Without the time bound a burst begun at the end of a
 * flight took the retransmissions one timeout apart after it, and TCP's
 * timer backed off for seconds on a fabric that had lost three packets.
 */
static bool random_loss(struct sib_pkt *pkt, enum sib_loss_kind kind)
{
	struct sib_fabric *fab = &sib_fabric;
	u32 ppm = READ_ONCE(fab->loss_ppm[kind]);
	struct sib_loss_burst *lb = pkt->src_port ?
				    &pkt->src_port->loss_burst[kind] :
				    &fab->sm_burst[kind];
	u32 burst;

	/* The clock only while a burst runs or one starts. */
	if (atomic_read(&lb->left)) {
		if (ktime_get_ns() < READ_ONCE(lb->until_ns) &&
		    atomic_add_unless(&lb->left, -1, 0))
			goto lost;
		atomic_set(&lb->left, 0);	/* the burst is over */
	}
	if (!ppm || mul_u32_u32(get_random_u32(), 1000000) >> 32 >= ppm)
		return false;
	burst = READ_ONCE(fab->loss_burst);
	if (burst > 1) {
		WRITE_ONCE(lb->until_ns, ktime_get_ns() +
			   (u64)READ_ONCE(fab->loss_burst_us) * NSEC_PER_USEC);
		atomic_set(&lb->left, burst - 1);
	}
	if (pkt->src_port)
		sib_count(pkt->src_port, SIB_CNT_LOSS_BURSTS, 1);
lost:
	if (pkt->src_port)
		sib_count(pkt->src_port, SIB_CNT_DROP_RANDOM, 1);
	return true;
}

/* Fault injection from debugfs: true when the packet was taken away. */
static bool sib_injected_fault(struct sib_pkt *pkt)
{
	struct sib_fabric *fab = &sib_fabric;
	bool drop;

	if (pkt->held)
		return false;
	if (is_mad(pkt)) {
		u32 delay = READ_ONCE(fab->mad_delay_ms);

		/* Taken, held or (no memory) lost: not on the wire now. */
		if (cm_mad_held(pkt, READ_ONCE(fab->cm_hold))) {
			hold_pkt(pkt, held_deliver_work, 0, true);
			return true;
		}

		drop = drop_every(READ_ONCE(fab->mad_drop_every), &fab->mad_seq) ||
		       random_loss(pkt, SIB_LOSS_MAD);
		if (!drop && delay) {
			sib_deliver_later(pkt, delay);
			return true;
		}
	} else if (!pkt->src_qp || is_ud_like(pkt->src_qp->type)) {
		drop = drop_every(READ_ONCE(fab->ud_drop_every), &fab->ud_seq) ||
		       random_loss(pkt, SIB_LOSS_UD);
	} else {
		drop = drop_every(READ_ONCE(fab->rc_drop_every), &fab->rc_seq) ||
		       random_loss(pkt, SIB_LOSS_RC);
		/* A burst: the next N RC or UC messages a port sends. */
		if (!drop && pkt->src_port)
			drop = atomic_add_unless(&pkt->src_port->rc_drop_next,
						 -1, 0);
	}
	if (drop && pkt->src_port)
		sib_count(pkt->src_port, SIB_CNT_DROP_INJECTED, 1);
	return drop;
}

/*
 * Put one message on the wire.  Called under rcu_read_lock() with no sib
 * lock held, from any context.
 */
enum sib_delivery sib_deliver(struct sib_pkt *pkt)
{
	bool mcast = pkt->dlid >= SIB_MLID_BASE && pkt->dlid != 0xffff;
	struct sib_switch *to;
	u32 in_port;

	if (pkt->src_port) {
		sib_count(pkt->src_port, SIB_CNT_TX_PKTS, 1);
		sib_count(pkt->src_port, SIB_CNT_TX_BYTES, wire_len(pkt));
		sib_link_count(pkt->src_port, pkt, wire_len(pkt), true, mcast);
		sib_ipoib_count(pkt);
	}
	if (sib_injected_fault(pkt))
		return lost(pkt);
	to = smp_for_switch(pkt, &in_port);
	if (to)
		return hold_at_switch(pkt, switch_work, to, in_port, 0);
	return forward_by_tables(pkt, mcast);
}

/* A switch's port 0 answers from its LID, QP1, in the requester's partition. */
void sib_switch_send_mad(struct sib_switch *sw, const struct sib_mad_src *to,
			 const void *mad, u32 len)
{
	struct ib_sge sge = { .addr = (uintptr_t)mad, .length = len };
	struct sib_pkt pkt = {
		.slid = sib_switch_lid(sw),
		.sw = sw->index,
		.dlid = to->slid,
		.sl = to->sl,
		.src_qpn = 1,
		.dst_qpn = to->sqpn,
		.pkey = to->pkey,
		.qkey = IB_QP1_QKEY,
		.length = len,
		.num_sge = 1,
		.sg = &sge,
	};

	if (to->has_grh) {
		pkt.has_grh = true;
		pkt.grh.version_tclass_flow = cpu_to_be32(6 << 28);
		pkt.grh.paylen = cpu_to_be16(len);
		pkt.grh.next_hdr = 0x1b;
		pkt.grh.hop_limit = 1;
		pkt.grh.sgid.global.subnet_prefix =
			cpu_to_be64(SIB_SUBNET_PREFIX);
		pkt.grh.sgid.global.interface_id = sib_switch_guid(sw);
		pkt.grh.dgid = to->sgid;
	}
	local_bh_disable();
	rcu_read_lock();
	sib_deliver(&pkt);
	rcu_read_unlock();
	local_bh_enable();
}

/* The SA's answers: from switch 0, where the built-in SM is. */
void sib_sm_send_mad(const struct sib_mad_src *to, const void *mad, u32 len)
{
	sib_switch_send_mad(&sib_fabric.sw[0], to, mad, len);
}

/*
 * Deliver every held packet now, so that none outlives the module.  With the
 * devices gone they are dropped; more may be held meanwhile, so loop.
 */
void sib_fabric_drop_held(void)
{
	struct sib_held_pkt *held;
	unsigned long flags;
	bool empty;

	WRITE_ONCE(sib_fabric.mad_delay_ms, 0);
	WRITE_ONCE(sib_fabric.sa_delay_ms, 0);
	WRITE_ONCE(sib_fabric.sa_busy_every, 0);
	WRITE_ONCE(sib_fabric.sa_silent_every, 0);
	sib_fabric_cm_release();
	do {
		spin_lock_irqsave(&held_lock, flags);
		list_for_each_entry(held, &held_pkts, link)
			mod_delayed_work(sib_fabric.wq, &held->work, 0);
		spin_unlock_irqrestore(&held_lock, flags);
		flush_workqueue(sib_fabric.wq);

		spin_lock_irqsave(&held_lock, flags);
		empty = list_empty(&held_pkts);
		spin_unlock_irqrestore(&held_lock, flags);
	} while (!empty);
}
