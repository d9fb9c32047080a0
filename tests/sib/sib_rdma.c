// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA WRITE and READ at the responder.  The QP must allow the operation
 * (its access flags, and for READ the responder resources it agreed to),
 * and the R_Key must name a Valid region of the QP's protection domain
 * that allows it and holds the whole range; then the bytes move, in the
 * requester's context as every message does.  A READ is answered at once,
 * so a requester never has more than one in flight: within any depth both
 * ends agreed to.  An RDMA WRITE with immediate also consumes a receive
 * WQE: sib_fabric.c places it as it places a send, through
 * sib_rdma_write().
 *
 * On RC a refusal is a NAK: the requester's WQE completes in error, and
 * both QPs go to the error state; a bad R_Key also raises the
 * responder's Local Access Violation event.  On UC the message is
 * dropped and nobody is told.
 */
#include "sib.h"

static void count_rdma(struct sib_port *port, enum sib_counter ops,
		       enum sib_counter bytes, u32 len)
{
	sib_count(port, ops, 1);
	sib_count(port, bytes, len);
}

/*
 * Once no sib lock is held: what a refused RDMA request does to the
 * responder's QP (the refusal sib_rdma_write() or a READ found).
 */
enum sib_delivery sib_rdma_refuse(struct sib_port *dport, struct sib_qp *qp,
				  enum sib_delivery why)
{
	if (why == SIB_REMOTE_ACCESS)
		sib_count(dport, SIB_CNT_RKEY_VIOLATIONS, 1);
	if (qp->type != IB_QPT_RC)
		return SIB_DROPPED;
	if (why == SIB_REMOTE_ACCESS)
		sib_qp_event(qp, IB_EVENT_QP_ACCESS_ERR);
	sib_qp_set_error(qp);
	return why;
}

/* The responder's side of the memory a request names. */
static void remote_cursor(struct sib_cursor *c, struct ib_sge *sge,
			  struct sib_qp *qp, const struct sib_pkt *pkt)
{
	sge->addr = pkt->remote_addr;
	sge->length = pkt->length;
	sge->lkey = pkt->rkey;
	sib_cursor_init(c, qp->sdev, sge, 1);
}

/*
 * Check an RDMA WRITE against qp and place its bytes.  SIB_DELIVERED, or
 * the refusal for sib_rdma_refuse().  A zero-length write names no memory
 * and is not checked against its R_Key.
 */
enum sib_delivery sib_rdma_write(struct sib_port *dport, struct sib_qp *qp,
				 const struct sib_pkt *pkt)
{
	struct sib_cursor dst, src;
	struct ib_sge sge;

	if (!(READ_ONCE(qp->access_flags) & IB_ACCESS_REMOTE_WRITE))
		return SIB_REMOTE_ERROR;
	if (pkt->length &&
	    sib_mr_check(qp->sdev, qp->ibqp.pd, pkt->rkey, pkt->remote_addr,
			 pkt->length, IB_ACCESS_REMOTE_WRITE))
		return SIB_REMOTE_ACCESS;
	remote_cursor(&dst, &sge, qp, pkt);
	sib_cursor_init(&src, pkt->sg_dev, pkt->sg, pkt->num_sge);
	sib_copy(&dst, &src, pkt->length);
	count_rdma(dport, SIB_CNT_RDMA_WRITES, SIB_CNT_RDMA_WRITE_BYTES,
		   pkt->length);
	return SIB_DELIVERED;
}

/* The response goes back over the link into the requester's list. */
static enum sib_delivery rdma_read(struct sib_port *dport, struct sib_qp *qp,
				   const struct sib_pkt *pkt)
{
	struct sib_cursor dst, src;
	struct ib_sge sge;

	if (!(READ_ONCE(qp->access_flags) & IB_ACCESS_REMOTE_READ))
		return SIB_REMOTE_ERROR;
	if (!READ_ONCE(qp->max_dest_rd_atomic)) {
		pr_warn_ratelimited("sib: %s: QP 0x%x refuses an RDMA READ: it agreed to answer none (max_dest_rd_atomic 0)\n",
				    dev_name(&qp->sdev->ibdev.dev),
				    qp->ibqp.qp_num);
		return SIB_REMOTE_ERROR;
	}
	if (pkt->length &&
	    sib_mr_check(qp->sdev, qp->ibqp.pd, pkt->rkey, pkt->remote_addr,
			 pkt->length, IB_ACCESS_REMOTE_READ))
		return SIB_REMOTE_ACCESS;
	remote_cursor(&src, &sge, qp, pkt);
	sib_cursor_init(&dst, pkt->sg_dev, pkt->sg, pkt->num_sge);
	sib_copy(&dst, &src, pkt->length);
	count_rdma(dport, SIB_CNT_RDMA_READS, SIB_CNT_RDMA_READ_BYTES,
		   pkt->length);
	/* The response: out of the responder's port, into the requester's. */
	count_rdma(dport, SIB_CNT_TX_PKTS, SIB_CNT_TX_BYTES, pkt->length);
	sib_link_count(dport, pkt, pkt->length, true, false);
	count_rdma(pkt->src_port, SIB_CNT_RX_PKTS, SIB_CNT_RX_BYTES,
		   pkt->length);
	sib_link_count(pkt->src_port, pkt, pkt->length, false, false);
	return SIB_DELIVERED;
}

/*
 * Under rcu_read_lock(): an RDMA WRITE without immediate or an RDMA READ
 * reached qp on dport.
 */
enum sib_delivery sib_rdma_respond(struct sib_port *dport, struct sib_qp *qp,
				   struct sib_pkt *pkt)
{
	enum sib_delivery res;

	if (sib_check_keys(dport, qp, pkt) < 0)
		return qp->type == IB_QPT_RC ? SIB_NO_RESPONDER : SIB_DROPPED;
	if (!sib_qp_can_receive(qp, READ_ONCE(qp->state))) {
		sib_count(dport, SIB_CNT_DROP_NO_QP, 1);
		return qp->type == IB_QPT_RC ? SIB_NO_RESPONDER : SIB_DROPPED;
	}
	if (pkt->op == SIB_OP_READ)
		res = rdma_read(dport, qp, pkt);
	else
		res = sib_rdma_write(dport, qp, pkt);
	if (res != SIB_DELIVERED)
		return sib_rdma_refuse(dport, qp, res);
	sib_count(dport, SIB_CNT_RX_PKTS, 1);
	sib_count(dport, SIB_CNT_RX_BYTES,
		  pkt->op == SIB_OP_READ ? 0 : pkt->length);
	return SIB_DELIVERED;
}
