// SPDX-License-Identifier: GPL-2.0
/*
 * Posting work and executing it.  A post checks what an HCA checks when
 * it takes a WQE (opcode, SGE count, lengths, QP state) and copies the WR,
 * its address vector included, into the ring; the gather list is read only
 * when the WQE executes: by default the fabric's worker does it after the
 * post returns, with async=0 the poster (sib_exec.c).  Either way the
 * send queue is drained by whichever context finds it idle, so messages of
 * one QP leave in order.  RC waits out receiver-not-ready NAKs
 * with the responder's timer and gives up after rnr_retry attempts; a
 * request that gets no answer at all (lost, no QP, link down) is sent
 * again when the QP's local ACK timer runs out, retry_cnt times, and then
 * fails (IBA 9.7.6.1.3).  Either way the QP's queue stands still meanwhile,
 * one delayed work per QP ending the wait.
 * Besides sends: RDMA WRITE (with immediate) and READ on connected QPs,
 * SEND_WITH_INV on RC, and the local memory operations REG_MR and
 * LOCAL_INV, executed in their turn in the queue.  The lkeys of a request
 * are checked when it executes, as an HCA does (IBA 10.6.3).
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <rdma/ib_mad.h>
#include "sib.h"
#include "sib_timers.h"

/* IBA's RNR NAK timer field, in microseconds. */
static const u32 rnr_timer_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

#define SIB_RNR_INFINITE	7

static bool is_ud_like(enum ib_qp_type type)
{
	return type == IB_QPT_UD || type == IB_QPT_GSI || type == IB_QPT_SMI;
}

/* Under wq->lock. */
int sib_wq_add_recv(struct sib_wq *wq, const struct ib_recv_wr *wr)
{
	struct sib_recv_wqe *wqe;
	u64 length = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > wq->max_sge)
		return -EINVAL;
	if (sib_wq_count(wq) > wq->mask)
		return -ENOMEM;
	wqe = sib_wq_entry(wq, wq->tail);
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sg[i] = wr->sg_list[i];
		length += wr->sg_list[i].length;
	}
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	wqe->length = min_t(u64, length, U32_MAX);
	wq->tail++;
	return 0;
}

/* Under the RQ lock with the state ERR: complete every WQE as flushed. */
static bool flush_rq_locked(struct sib_qp *qp, struct sib_cq *cq)
{
	bool fire = false;

	while (!sib_wq_empty(&qp->rq)) {
		struct sib_recv_wqe *wqe = sib_wq_entry(&qp->rq, qp->rq.head);
		struct ib_wc wc = {
			.wr_id = wqe->wr_id,
			.status = IB_WC_WR_FLUSH_ERR,
			.opcode = IB_WC_RECV,
			.qp = &qp->ibqp,
		};

		qp->rq.head++;
		sib_count(sib_port(qp->sdev, qp->port_num), SIB_CNT_WR_FLUSHED,
			  1);
		fire |= sib_cq_push(cq, &wc, false);
	}
	return fire;
}

void sib_flush_rq(struct sib_qp *qp)
{
	struct sib_cq *cq = to_scq(qp->ibqp.recv_cq);
	unsigned long flags;
	bool fire = false;

	if (qp->ibqp.srq)
		return;
	spin_lock_irqsave(&qp->rq.lock, flags);
	if (qp->state == IB_QPS_ERR)
		fire = flush_rq_locked(qp, cq);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	if (fire)
		sib_cq_fire(cq);
}

int sib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct sib_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int ret = 0;

	if (ibqp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq.lock, flags);
	if (qp->state == IB_QPS_RESET) {
		spin_unlock_irqrestore(&qp->rq.lock, flags);
		*bad_wr = wr;
		return -EINVAL;
	}
	for (; wr; wr = wr->next) {
		ret = sib_wq_add_recv(&qp->rq, wr);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	/* Receives posted to a QP in error come straight back flushed. */
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sib_flush_rq(qp);
	return ret;
}

static u8 *lso_header(const struct sib_qp *qp, struct sib_send_wqe *wqe)
{
	return (u8 *)&wqe->sg[qp->sq.max_sge];
}

/* A WQE's inline data follows its LSO header room, if any. */
static u8 *inline_data(const struct sib_qp *qp, struct sib_send_wqe *wqe)
{
	return lso_header(qp, wqe) + (qp->lso ? SIB_MAX_LSO_HDR : 0);
}

/*
 * Under the SQ lock: an inline send's bytes go into the WQE now, read from
 * the kernel addresses of the list (keys are ignored, as IBA has it; the
 * addresses are not DMA-mapped, by the verbs' convention), and the WQE
 * then gathers from that copy under sib's own key.
 */
static int queue_inline(struct sib_qp *qp, struct sib_send_wqe *wqe,
			const struct ib_send_wr *wr)
{
	u8 *buf = inline_data(qp, wqe);
	u32 len = 0;
	int i;

	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		break;
	default:
		return -EINVAL;
	}
	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		if (sge->length > qp->max_inline - len)
			return -EINVAL;
		memcpy(buf + len, (void *)(uintptr_t)sge->addr, sge->length);
		len += sge->length;
	}
	wqe->sg[0] = (struct ib_sge) {
		.addr = (uintptr_t)buf,
		.length = len,
		.lkey = SIB_LKEY_KERNEL,
	};
	wqe->num_sge = len ? 1 : 0;
	wqe->length = len;
	return 0;
}

/* Memory operations on the HCA itself: nothing goes on the wire. */
static bool is_local_op(enum ib_wr_opcode opcode)
{
	return opcode == IB_WR_REG_MR || opcode == IB_WR_LOCAL_INV;
}

/* The operations each transport has (IBA 9.4); no atomics. */
static int check_opcode(const struct sib_qp *qp, const struct ib_send_wr *wr)
{
	bool connected = qp->type == IB_QPT_RC || qp->type == IB_QPT_UC;

	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return 0;
	case IB_WR_LSO:
		return qp->lso ? 0 : -EINVAL;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return connected ? 0 : -EINVAL;
	case IB_WR_RDMA_READ:
	case IB_WR_SEND_WITH_INV:
		return qp->type == IB_QPT_RC ? 0 : -EINVAL;
	case IB_WR_REG_MR:
		if (!reg_wr(wr)->mr ||
		    reg_wr(wr)->mr->device != qp->ibqp.device ||
		    reg_wr(wr)->mr->type != IB_MR_TYPE_MEM_REG)
			return -EINVAL;
		fallthrough;
	case IB_WR_LOCAL_INV:
		return connected || qp->type == IB_QPT_UD ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* Under the SQ lock: what only some operations carry. */
static void queue_op_fields(struct sib_send_wqe *wqe,
			    const struct ib_send_wr *wr)
{
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->remote_addr = rdma_wr(wr)->remote_addr;
		wqe->rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->inv_key = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
		wqe->reg_mr = container_of(reg_wr(wr)->mr, struct sib_mr,
					   ibmr);
		wqe->reg_key = reg_wr(wr)->key;
		wqe->reg_access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
}

/* Under the SQ lock: copy one work request into the ring. */
static int queue_send(struct sib_qp *qp, const struct ib_send_wr *wr)
{
	struct sib_send_wqe *wqe;
	u64 length = 0;
	int i, ret;

	ret = check_opcode(qp, wr);
	if (ret)
		return ret;
	/* No more SGEs than the QP was created with: IBA 11.4.1.1. */
	if (wr->num_sge < 0 || wr->num_sge > qp->sq.max_sge)
		return -EINVAL;
	if ((wr->send_flags & IB_SEND_INLINE) && !qp->max_inline)
		return -EINVAL;
	if (sib_wq_count(&qp->sq) > qp->sq.mask)
		return -ENOMEM;

	wqe = sib_wq_entry(&qp->sq, qp->sq.tail);
	if (is_ud_like(qp->type) && !is_local_op(wr->opcode)) {
		const struct ib_ud_wr *ud = ud_wr(wr);

		if (!ud->ah)
			return -EINVAL;
		wqe->av = to_sah(ud->ah)->av;
		wqe->remote_qpn = ud->remote_qpn;
		wqe->remote_qkey = ud->remote_qkey;
		wqe->pkey_index = qp->type == IB_QPT_GSI ? ud->pkey_index :
							   qp->pkey_index;
		if (wr->opcode == IB_WR_LSO) {
			if (ud->hlen <= 0 || ud->hlen > SIB_MAX_LSO_HDR ||
			    ud->mss <= 0 || ud->mss > U16_MAX)
				return -EINVAL;
			memcpy(lso_header(qp, wqe), ud->header, ud->hlen);
			wqe->lso_hdr = lso_header(qp, wqe);
			wqe->hlen = ud->hlen;
			wqe->mss = ud->mss;
		}
	}
	if (wr->send_flags & IB_SEND_INLINE) {
		ret = queue_inline(qp, wqe, wr);
		if (ret)
			return ret;
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			wqe->sg[i] = wr->sg_list[i];
			length += wr->sg_list[i].length;
		}
		if (length > 0x80000000)
			return -EINVAL;
		wqe->num_sge = wr->num_sge;
		wqe->length = length;
	}
	queue_op_fields(wqe, wr);
	wqe->wr_id = wr->wr_id;
	wqe->resent = false;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	wqe->imm = wr->ex.imm_data;
	qp->sq.tail++;
	return 0;
}

int sib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct sib_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->sq.lock, flags);
	switch (qp->state) {
	case IB_QPS_RESET:
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		ret = -EINVAL;
		*bad_wr = wr;
		break;
	default:
		for (; wr; wr = wr->next) {
			ret = queue_send(qp, wr);
			if (ret) {
				*bad_wr = wr;
				break;
			}
		}
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	sib_exec_start(qp);
	return ret;
}

static void fill_grh(struct sib_pkt *pkt, struct sib_port *port,
		     const struct sib_av *av)
{
	pkt->has_grh = true;
	pkt->grh.version_tclass_flow =
		cpu_to_be32((6 << 28) | (av->traffic_class << 20) |
			    (av->flow_label & 0xfffff));
	pkt->grh.paylen = cpu_to_be16(pkt->length);
	pkt->grh.next_hdr = 0x1b;	/* IBA transport follows */
	pkt->grh.hop_limit = av->hop_limit;
	pkt->grh.sgid = sib_port_gid_at(port, av->sgid_index);
	pkt->grh.dgid = av->dgid;
}

/*
 * What the requester makes of a delivery: a WC status, -EAGAIN for an RNR
 * NAK, or -ETIMEDOUT when no answer came (its local ACK timer will tell).
 */
static int deliver_status(const struct sib_qp *qp, enum sib_delivery res)
{
	if (qp->type != IB_QPT_RC)
		return IB_WC_SUCCESS;	/* nobody acknowledges UD or UC */
	switch (res) {
	case SIB_DELIVERED:
		return IB_WC_SUCCESS;
	case SIB_RNR:
		return -EAGAIN;
	case SIB_REMOTE_ERROR:
		return IB_WC_REM_INV_REQ_ERR;
	case SIB_REMOTE_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	case SIB_REMOTE_OP_ERROR:
		return IB_WC_REM_OP_ERR;
	case SIB_DROPPED:
	case SIB_NO_RESPONDER:
	default:
		return -ETIMEDOUT;
	}
}

/* REG_MR and LOCAL_INV: nothing goes on the wire.  A WC status. */
static int execute_local(struct sib_qp *qp, const struct sib_send_wqe *wqe)
{
	if (wqe->opcode == IB_WR_REG_MR)
		return sib_mr_fast_reg(qp, wqe);
	return sib_mr_invalidate(qp, wqe->inv_key) ? IB_WC_LOC_PROT_ERR :
						     IB_WC_SUCCESS;
}

/*
 * The lkeys of the request's list in the QP's PD: a gather list is read,
 * an RDMA READ's list is written.
 */
static bool lkeys_ok(struct sib_qp *qp, const struct sib_send_wqe *wqe)
{
	int access = wqe->opcode == IB_WR_RDMA_READ ? IB_ACCESS_LOCAL_WRITE : 0;
	int ret;

	/* Copied at the post from kernel addresses: no key applies. */
	if (wqe->send_flags & IB_SEND_INLINE)
		return true;

	rcu_read_lock();
	ret = sib_sgl_check(qp->sdev, qp->ibqp.pd, wqe->sg, wqe->num_sge,
			    wqe->length, access);
	rcu_read_unlock();
	return !ret;
}

/* What a connected QP's request asks of its peer. */
static void connected_request(struct sib_pkt *pkt, struct sib_qp *qp,
			      const struct sib_send_wqe *wqe)
{
	struct sib_port *port = pkt->src_port;

	pkt->slid = sib_port_slid(port, qp->dest.src_path_bits);
	pkt->dlid = qp->dest.dlid;
	pkt->sl = qp->dest.sl;
	pkt->dst_qpn = qp->dest_qpn;
	pkt->pkey = sib_pkey_at(port, qp->pkey_index);
	if (qp->dest.has_grh)
		fill_grh(pkt, port, &qp->dest);
	switch (wqe->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		pkt->op = SIB_OP_WRITE;
		break;
	case IB_WR_RDMA_READ:
		pkt->op = SIB_OP_READ;
		break;
	case IB_WR_SEND_WITH_INV:
		pkt->with_inv = true;
		pkt->inv_rkey = wqe->inv_key;
		fallthrough;
	default:
		pkt->op = SIB_OP_SEND;
		return;
	}
	pkt->remote_addr = wqe->remote_addr;
	pkt->rkey = wqe->rkey;
}

/* Put one WQE on the wire: a WC status, -EAGAIN or -ETIMEDOUT (RC). */
static int execute(struct sib_qp *qp, struct sib_send_wqe *wqe, u8 *rnr_timer)
{
	struct sib_port *port = sib_port(qp->sdev, qp->port_num);
	struct sib_pkt pkt = {
		.src_port = port,
		.src_qp = qp,
		.src_qpn = qp->send_qpn,
		.sw = port->sw_index,
		.sw_port = port->sw_port,
		.with_imm = wqe->opcode == IB_WR_SEND_WITH_IMM ||
			    wqe->opcode == IB_WR_RDMA_WRITE_WITH_IMM,
		.imm = wqe->imm,
		.solicited = wqe->send_flags & IB_SEND_SOLICITED,
		.length = wqe->length,
		.num_sge = wqe->num_sge,
		.sg = wqe->sg,
		.sg_dev = qp->sdev,
		.resent = wqe->resent,
	};
	enum sib_delivery res;
	unsigned int delay;

	if (is_local_op(wqe->opcode))
		return execute_local(qp, wqe);
	if (!lkeys_ok(qp, wqe))
		return IB_WC_LOC_PROT_ERR;
	delay = READ_ONCE(sib_send_delay_us);
	if (delay && qp->type != IB_QPT_SMI && qp->type != IB_QPT_GSI)
		udelay(delay);
	if (wqe->opcode == IB_WR_RDMA_READ && !READ_ONCE(qp->max_rd_atomic)) {
		pr_warn_ratelimited("sib: %s: QP 0x%x may not issue an RDMA READ: initiator depth 0 (max_rd_atomic)\n",
				    dev_name(&qp->sdev->ibdev.dev),
				    qp->ibqp.qp_num);
		return IB_WC_LOC_QP_OP_ERR;
	}
	/* SMPs flow once the link is up; everything else waits for ACTIVE. */
	if (!sib_port_passes(port, qp->type == IB_QPT_SMI)) {
		sib_count(port, SIB_CNT_DROP_PORT_DOWN, 1);
		return deliver_status(qp, SIB_NO_RESPONDER);
	}

	if (is_ud_like(qp->type)) {
		u32 mtu = qp->type == IB_QPT_SMI ? IB_MGMT_MAD_SIZE :
			  sib_mtu_bytes(READ_ONCE(port->active_mtu));

		pkt.slid = sib_port_slid(port, wqe->av.src_path_bits);
		pkt.dlid = wqe->av.dlid;
		pkt.sl = wqe->av.sl;
		pkt.dst_qpn = wqe->remote_qpn;
		pkt.qkey = (wqe->remote_qkey & SIB_QKEY_CONTROLLED) ?
			   qp->qkey : wqe->remote_qkey;
		pkt.pkey = sib_pkey_at(port, wqe->pkey_index);
		if (wqe->av.has_grh)
			fill_grh(&pkt, port, &wqe->av);
		if (wqe->opcode == IB_WR_LSO)
			return sib_lso_send(&pkt, wqe, mtu);
		if (pkt.length > mtu) {
			sib_count(port, SIB_CNT_LEN_ERRORS, 1);
			return IB_WC_LOC_LEN_ERR;
		}
		pkt.csum_ok = sib_csum_enabled &&
			      (wqe->send_flags & IB_SEND_IP_CSUM);
		if (pkt.csum_ok)
			sib_count(port, SIB_CNT_CSUM_OFFLOADS, 1);
	} else {
		connected_request(&pkt, qp, wqe);
	}

	rcu_read_lock();
	res = sib_deliver(&pkt);
	rcu_read_unlock();
	*rnr_timer = pkt.rnr_timer;
	return deliver_status(qp, res);
}

static enum ib_wc_opcode wc_opcode(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_LSO:
		return IB_WC_LSO;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	default:
		return IB_WC_SEND;
	}
}

/* Under the SQ lock: the head WQE stands still until retry_work runs. */
static void sq_wait(struct sib_qp *qp, enum sib_sq_wait why, u64 ns)
{
	qp->sq_wait = why;
	/* No timer: only leaving RTS ends the wait (set_state()). */
	if (ns)
		mod_delayed_work(system_wq, &qp->retry_work,
				 nsecs_to_jiffies(ns + TICK_NSEC - 1));
}

/*
 * Under the SQ lock: an RNR NAK for the head WQE.  Returns false to wait
 * and retry it later, true when the retries are spent.
 */
static bool rnr_exhausted(struct sib_qp *qp, u8 rnr_timer)
{
	if (READ_ONCE(qp->rnr_retry) != SIB_RNR_INFINITE) {
		if (qp->rnr_tries >= READ_ONCE(qp->rnr_retry))
			return true;
		qp->rnr_tries++;
	}
	sq_wait(qp, SIB_SQ_WAIT_RNR,
		(u64)rnr_timer_usec[rnr_timer & 31] * NSEC_PER_USEC);
	return false;
}

/* Under the SQ lock: no answer came for the head WQE; its timer starts. */
static void ack_wait(struct sib_qp *qp)
{
	sq_wait(qp, SIB_SQ_WAIT_ACK,
		sib_ack_timeout_ns(READ_ONCE(qp->timeout),
				   READ_ONCE(sib_ack_timeout_max_ms)));
}

/*
 * Under the SQ lock, the head WQE's local ACK timer having run out: true
 * to send it again, false when retry_cnt resends are spent.
 */
static bool ack_resend(struct sib_qp *qp)
{
	struct sib_port *port = sib_port(qp->sdev, qp->port_num);

	qp->ack_expired = false;
	if (qp->ack_tries >= READ_ONCE(qp->retry_cnt)) {
		sib_count(port, SIB_CNT_RETRIES_EXCEEDED, 1);
		/* Where a case's time went: a peer that stopped answering. */
		pr_info_ratelimited("sib: %s: QP 0x%x: no ACK to %u sends (timeout %u): retry exceeded\n",
				    dev_name(&qp->sdev->ibdev.dev),
				    qp->ibqp.qp_num, qp->ack_tries + 1,
				    READ_ONCE(qp->timeout));
		return false;
	}
	qp->ack_tries++;
	sib_count(port, SIB_CNT_RETRANSMITS, 1);
	return true;
}

/*
 * Drain the send queue; only one context does it at a time.  Returns how
 * many WQEs completed (executed or flushed).
 */
u32 sib_sq_run(struct sib_qp *qp)
{
	struct sib_cq *cq = to_scq(qp->ibqp.send_cq);
	bool fire = false, to_error = false;
	unsigned long flags;
	u32 done = 0;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->sq_running || qp->sq_wait != SIB_SQ_GOING) {
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		return 0;
	}
	qp->sq_running = true;
	while (!sib_wq_empty(&qp->sq) && !to_error) {
		struct sib_send_wqe *wqe = sib_wq_entry(&qp->sq, qp->sq.head);
		enum ib_qp_state state = qp->state;
		u8 rnr_timer = 0;
		struct ib_wc wc;
		int status;

		if (state != IB_QPS_RTS && state != IB_QPS_ERR &&
		    state != IB_QPS_SQE)
			break;	/* SQD: hold the queue */
		if (state != IB_QPS_RTS) {
			status = IB_WC_WR_FLUSH_ERR;
			sib_count(sib_port(qp->sdev, qp->port_num),
				  SIB_CNT_WR_FLUSHED, 1);
		} else if (qp->ack_expired && !ack_resend(qp)) {
			status = IB_WC_RETRY_EXC_ERR;
		} else {
			spin_unlock_irqrestore(&qp->sq.lock, flags);
			status = execute(qp, wqe, &rnr_timer);
			spin_lock_irqsave(&qp->sq.lock, flags);
			if (sib_wq_empty(&qp->sq))
				break;	/* reset while we were out */
			if (status == -EAGAIN || status == -ETIMEDOUT) {
				wqe->resent = true;
				/* Out of RTS meanwhile: no wait, a flush. */
				if (qp->state != IB_QPS_RTS)
					continue;
				if (status == -ETIMEDOUT) {
					ack_wait(qp);
					break;
				}
				if (!rnr_exhausted(qp, rnr_timer))
					break;
				status = IB_WC_RNR_RETRY_EXC_ERR;
			}
		}

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = wqe->wr_id;
		wc.status = status;
		wc.opcode = wc_opcode(wqe->opcode);
		wc.byte_len = wqe->length;
		wc.qp = &qp->ibqp;
		qp->sq.head++;
		done++;
		qp->rnr_tries = 0;
		qp->ack_tries = 0;
		qp->ack_expired = false;
		/*
		 * A failed request takes its QP to error before its completion
		 * can be polled, as on an HCA: whoever polls it and asks sees
		 * the QP in error.
		 */
		if (status != IB_WC_SUCCESS && status != IB_WC_WR_FLUSH_ERR &&
		    !is_ud_like(qp->type)) {
			spin_lock(&qp->rq.lock);
			to_error = qp->state != IB_QPS_ERR;
			WRITE_ONCE(qp->state, IB_QPS_ERR);
			spin_unlock(&qp->rq.lock);
		}
		if (status != IB_WC_SUCCESS || qp->sq_sig_all ||
		    (wqe->send_flags & IB_SEND_SIGNALED))
			fire |= sib_cq_push(cq, &wc, false);
	}
	qp->sq_running = false;
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	if (fire)
		sib_cq_fire(cq);
	if (to_error)
		sib_qp_flush(qp);
	return done;
}

/* The head WQE's RNR or local ACK timer ran out: it goes again, or fails. */
void sib_retry_work(struct work_struct *work)
{
	struct sib_qp *qp = container_of(to_delayed_work(work), struct sib_qp,
					 retry_work);
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->sq_wait == SIB_SQ_WAIT_ACK) {
		qp->ack_expired = true;
		sib_count(sib_port(qp->sdev, qp->port_num),
			  SIB_CNT_LOCAL_ACK_TIMEOUTS, 1);
	}
	qp->sq_wait = SIB_SQ_GOING;
	spin_unlock_irqrestore(&qp->sq.lock, flags);

	local_bh_disable();
	sib_sq_run(qp);
	local_bh_enable();
}
