// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs objects of an interface: PD, the two CQs and the UD QP, its state
 * changes, and multicast attachment; the further send queues' QPs and CQs.
 *
 * The source QPN of what we send.  Peers learn our QPN from our link
 * address (ARP, ND: RFC 4391 9.1.1, the 20-byte address carries the QPN
 * of the UD QP that receives for the interface), and RFC 4755 3.1 adds
 * that an IPoIB interface has only one UD QP.  A receiver reads a UD
 * packet's source QPN from its DETH (wc->src_qp): the in-tree driver, and
 * we, drop multicast whose source LID and QPN are our own (the HCA's
 * loopback), and we name a received packet's sender by it.  Sends from
 * another QP would carry another QPN: our own multicast would come back
 * as a stranger's, and peers would see one host under several QPNs.  So
 * the further send queues send with the UD QP's number
 * (IB_QP_CREATE_SOURCE_QPN, as mlx5's enhanced IPoIB does); an HCA that
 * does not take that flag gets one send queue.  ib_core has no capability
 * bit for it: the provider takes the flag or refuses it when the QP is
 * made, so we try once at set-up.
 */
#include <rdma/ib_cache.h>
#include "ipoib.h"
#include "ipoib_verbs.h"

static atomic_t next_vector = ATOMIC_INIT(0);

/*
 * The HCA says the UD QP or one of its CQs failed: the state layer's
 * recovery (hw_recover_task) brings the data path back.  Any context:
 * an HCA raises these from its event queue's interrupt.
 */
static void hw_error(struct ipoib_dev *priv, unsigned int what)
{
	set_bit(what, &priv->hw_errors);
	queue_delayed_work(priv->wq, &priv->hw_recover_task, 0);
}

static void ud_qp_event(struct ib_event *ev, void *ctx)
{
	struct ipoib_dev *priv = ctx;

	switch (ev->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		break;
	default:
		return;
	}
	ipoib_count(priv, IPOIB_CNT_UD_QP_FATAL);
	netdev_warn(priv->dev, "UD QP 0x%06x: %s; restarting the data path\n",
		    ev->element.qp->qp_num, ib_event_msg(ev->event));
	hw_error(priv, IPOIB_HW_QP_FATAL);
}

static void cq_error(struct ipoib_dev *priv, struct ib_event *ev)
{
	ipoib_count(priv, IPOIB_CNT_UD_CQ_ERRORS);
	netdev_warn(priv->dev, "a UD completion queue: %s; making new queues\n",
		    ib_event_msg(ev->event));
	/* Its QP's work will not come back flushed: no use waiting for it. */
	set_bit(IPOIB_CQ_DEAD, &priv->flags);
	hw_error(priv, IPOIB_HW_CQ_ERR);
}

static void ud_cq_event(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_CQ_ERR)
		cq_error(ctx, ev);
}

static void sendq_cq_event(struct ib_event *ev, void *ctx)
{
	struct ipoib_sendq *sq = ctx;

	if (ev->event == IB_EVENT_CQ_ERR)
		cq_error(sq->priv, ev);
}

/* The CQs and the UD QP, sized for rx and tx entries. */
static int create_queues(struct ipoib_dev *priv,
			 const struct ipoib_ud_handlers *h, unsigned int rx,
			 unsigned int tx, struct ib_cq **recv_cq,
			 struct ib_cq **send_cq, struct ib_qp **qp)
{
	struct ib_device *ca = priv->ca;
	struct ib_cq_init_attr cq_attr = {};
	struct ib_qp_init_attr qp_attr = {
		.cap = {
			.max_send_wr = tx,
			.max_recv_wr = rx,
			.max_send_sge = min_t(u32, ca->attrs.max_send_sge,
					      MAX_SKB_FRAGS + 1),
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_UD,
	};
	int ret;

	/* Spread interfaces over the completion vectors. */
	cq_attr.cqe = rx;
	cq_attr.comp_vector = atomic_inc_return(&next_vector) %
			      ca->num_comp_vectors;
	*recv_cq = ib_create_cq(ca, h->rx_completion, ud_cq_event, priv,
				&cq_attr);
	if (IS_ERR(*recv_cq))
		return PTR_ERR(*recv_cq);
	cq_attr.cqe = tx;
	*send_cq = ib_create_cq(ca, h->tx_completion, ud_cq_event, priv,
				&cq_attr);
	if (IS_ERR(*send_cq)) {
		ret = PTR_ERR(*send_cq);
		goto err_recv_cq;
	}

	qp_attr.send_cq = *send_cq;
	qp_attr.recv_cq = *recv_cq;
	qp_attr.event_handler = ud_qp_event;
	qp_attr.qp_context = priv;
	if (ca->attrs.kernel_cap_flags & IBK_UD_TSO)
		qp_attr.create_flags |= IB_QP_CREATE_IPOIB_UD_LSO;
	if (ca->attrs.kernel_cap_flags & IBK_BLOCK_MULTICAST_LOOPBACK)
		qp_attr.create_flags |= IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK;
	*qp = ib_create_qp(priv->pd, &qp_attr);
	if (IS_ERR(*qp)) {
		ret = PTR_ERR(*qp);
		netdev_warn(priv->dev, "creating the UD QP failed: %d\n", ret);
		goto err_send_cq;
	}
	priv->max_send_sge = qp_attr.cap.max_send_sge;
	return 0;

err_send_cq:
	ib_destroy_cq(*send_cq);
err_recv_cq:
	ib_destroy_cq(*recv_cq);
	return ret;
}

/* A UD QP through INIT and RTR to RTS; left in RESET if that fails. */
static int qp_to_rts(struct ipoib_dev *priv, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = priv->pkey_index,
		.port_num = priv->port,
		.qkey = priv->qkey,
	};
	int ret;

	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (ret)
		goto fail;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (ret)
		goto fail;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	if (ret)
		goto fail;
	return 0;

fail:
	netdev_warn(priv->dev, "UD QP 0x%06x to state %d failed: %d\n",
		    qp->qp_num, attr.qp_state, ret);
	attr.qp_state = IB_QPS_RESET;
	ib_modify_qp(qp, &attr, IB_QP_STATE);
	return ret;
}

/* A UD QP that sends as the UD QP; send_cq is its CQ. */
static struct ib_qp *create_source_qpn_qp(struct ipoib_dev *priv,
					  struct ib_cq *send_cq,
					  unsigned int tx)
{
	struct ib_qp_init_attr qp_attr = {
		.send_cq = send_cq,
		.recv_cq = send_cq,
		.cap = {
			.max_send_wr = tx,
			.max_send_sge = priv->max_send_sge,
			.max_recv_wr = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_UD,
		.create_flags = IB_QP_CREATE_SOURCE_QPN,
		.source_qpn = priv->qpn,
		.event_handler = ud_qp_event,
		.qp_context = priv,
	};

	if (priv->ca->attrs.kernel_cap_flags & IBK_UD_TSO)
		qp_attr.create_flags |= IB_QP_CREATE_IPOIB_UD_LSO;
	return ib_create_qp(priv->pd, &qp_attr);
}

/* Does the HCA take IB_QP_CREATE_SOURCE_QPN?  Says so once if not. */
static bool probe_source_qpn(struct ipoib_dev *priv)
{
	struct ib_qp *qp;

	if (priv->dev->num_tx_queues < 2)
		return false;
	qp = create_source_qpn_qp(priv, priv->send_cq, 1);
	if (IS_ERR(qp)) {
		netdev_info(priv->dev, "one send queue: the HCA does not send from several QPs as one QPN (IB_QP_CREATE_SOURCE_QPN: %pe)\n",
			    qp);
		return false;
	}
	ib_destroy_qp(qp);
	return true;
}

/*
 * A further send queue's CQ and QP, sized as the UD QP's send side, its
 * CQ on a completion vector of its own where the HCA has several.
 */
int ipoib_sendq_create(struct ipoib_dev *priv, struct ipoib_sendq *sq,
		       unsigned int index, const struct ipoib_ud_handlers *h)
{
	struct ib_cq_init_attr cq_attr = {
		.cqe = priv->tx_size,
		.comp_vector = (priv->send_cq->comp_vector + index) %
			       priv->ca->num_comp_vectors,
	};
	struct ib_qp *qp;

	sq->cq = ib_create_cq(priv->ca, h->sendq_completion, sendq_cq_event,
			      sq, &cq_attr);
	if (IS_ERR(sq->cq)) {
		int ret = PTR_ERR(sq->cq);

		sq->cq = NULL;
		return ret;
	}
	qp = create_source_qpn_qp(priv, sq->cq, priv->tx_size);
	if (IS_ERR(qp)) {
		netdev_warn(priv->dev, "creating send queue %u failed: %pe\n",
			    index, qp);
		ib_destroy_cq(sq->cq);
		sq->cq = NULL;
		return PTR_ERR(qp);
	}
	sq->qp = qp;
	/* ethtool -C's, as on the UD QP's send CQ; not every HCA has it. */
	if (priv->coal.tx_frames || priv->coal.tx_usecs)
		rdma_set_cq_moderation(sq->cq, priv->coal.tx_frames,
				       priv->coal.tx_usecs);
	return qp_to_rts(priv, qp);
}

void ipoib_sendq_destroy(struct ipoib_sendq *sq)
{
	if (sq->qp)
		ib_destroy_qp(sq->qp);
	if (sq->cq)
		ib_destroy_cq(sq->cq);
	sq->qp = NULL;
	sq->cq = NULL;
}

int ipoib_sendq_to_error(struct ipoib_sendq *sq)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(sq->qp, &attr, IB_QP_STATE);
}

/* The UD data path's handlers, h, are called from the CQs and NAPI. */
int ipoib_transport_init(struct ipoib_dev *priv,
			 const struct ipoib_ud_handlers *h)
{
	int i, ret;

	priv->pd = ib_alloc_pd(priv->ca, 0);
	if (IS_ERR(priv->pd)) {
		ret = PTR_ERR(priv->pd);
		netdev_warn(priv->dev, "allocating a PD failed: %d\n", ret);
		priv->pd = NULL;
		return ret;
	}
	ret = create_queues(priv, h, priv->rx_size, priv->tx_size,
			    &priv->recv_cq, &priv->send_cq, &priv->qp);
	if (ret) {
		ib_dealloc_pd(priv->pd);
		priv->pd = NULL;
		return ret;
	}
	priv->qpn = priv->qp->qp_num;
	priv->hca_source_qpn = probe_source_qpn(priv);

	for (i = 0; i < ARRAY_SIZE(priv->tx_sge); i++)
		priv->tx_sge[i].lkey = priv->pd->local_dma_lkey;
	priv->tx_wr.wr.sg_list = priv->tx_sge;
	priv->rx_sge.lkey = priv->pd->local_dma_lkey;
	priv->rx_wr.sg_list = &priv->rx_sge;
	priv->rx_wr.num_sge = 1;

	netif_napi_add(priv->dev, &priv->napi, h->poll);
	return 0;
}

/*
 * New CQs and QP of other sizes, the data path being down; the old ones
 * stay in use if the new cannot be made.  The QPN, and so the link
 * address, changes.
 */
int ipoib_transport_resize(struct ipoib_dev *priv,
			   const struct ipoib_ud_handlers *h, unsigned int rx,
			   unsigned int tx)
{
	struct ib_cq *recv_cq, *send_cq;
	struct ib_qp *qp;
	int ret;

	ret = create_queues(priv, h, rx, tx, &recv_cq, &send_cq, &qp);
	if (ret)
		return ret;
	ib_destroy_qp(priv->qp);
	ib_destroy_cq(priv->send_cq);
	ib_destroy_cq(priv->recv_cq);
	priv->qp = qp;
	priv->send_cq = send_cq;
	priv->recv_cq = recv_cq;
	priv->qpn = qp->qp_num;
	priv->rx_size = rx;
	priv->tx_size = tx;
	clear_bit(IPOIB_CQ_DEAD, &priv->flags);
	return 0;
}

void ipoib_transport_cleanup(struct ipoib_dev *priv)
{
	if (!priv->pd)
		return;
	netif_napi_del(&priv->napi);
	ib_destroy_qp(priv->qp);
	ib_destroy_cq(priv->send_cq);
	ib_destroy_cq(priv->recv_cq);
	ib_dealloc_pd(priv->pd);
	priv->pd = NULL;
}

bool ipoib_find_pkey_index(struct ipoib_dev *priv)
{
	u16 index;

	if (ib_find_pkey(priv->ca, priv->port, priv->pkey, &index))
		return false;
	priv->pkey_index = index;
	return true;
}

int ipoib_qp_bring_up(struct ipoib_dev *priv)
{
	return qp_to_rts(priv, priv->qp);
}

int ipoib_qp_to_error(struct ipoib_dev *priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
}

int ipoib_qp_reset(struct ipoib_dev *priv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };

	return ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
}

/* The broadcast group decides our Q_Key; a live QP takes it in RTS. */
int ipoib_qp_set_qkey(struct ipoib_dev *priv, u32 qkey)
{
	struct ib_qp_attr attr = { .qkey = qkey };
	int ret;

	priv->qkey = qkey;
	if (!test_bit(IPOIB_QP_READY, &priv->flags))
		return 0;
	ret = ib_modify_qp(priv->qp, &attr, IB_QP_QKEY);
	if (ret)
		netdev_warn(priv->dev, "setting Q_Key 0x%08x failed: %d\n",
			    qkey, ret);
	return ret;
}

int ipoib_mcast_attach(struct ipoib_dev *priv, struct ipoib_mcast *mcast)
{
	int ret;

	ret = ib_attach_mcast(priv->qp, &mcast->mgid,
			      be16_to_cpu(mcast->rec.mlid));
	if (ret)
		netdev_warn(priv->dev, "attaching to %pI6 failed: %d\n",
			    mcast->mgid.raw, ret);
	return ret;
}

void ipoib_mcast_detach(struct ipoib_dev *priv, struct ipoib_mcast *mcast)
{
	ib_detach_mcast(priv->qp, &mcast->mgid, be16_to_cpu(mcast->rec.mlid));
}
