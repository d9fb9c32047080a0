// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs objects of an interface: PD, the two CQs and the UD QP, its state
 * changes, and multicast attachment.
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

static void ud_cq_event(struct ib_event *ev, void *ctx)
{
	struct ipoib_dev *priv = ctx;

	if (ev->event != IB_EVENT_CQ_ERR)
		return;
	ipoib_count(priv, IPOIB_CNT_UD_CQ_ERRORS);
	netdev_warn(priv->dev, "a UD completion queue: %s; making new queues\n",
		    ib_event_msg(ev->event));
	/* Its QP's work will not come back flushed: no use waiting for it. */
	set_bit(IPOIB_CQ_DEAD, &priv->flags);
	hw_error(priv, IPOIB_HW_CQ_ERR);
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
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = priv->pkey_index,
		.port_num = priv->port,
		.qkey = priv->qkey,
	};
	int ret;

	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (ret)
		goto fail;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE);
	if (ret)
		goto fail;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	ret = ib_modify_qp(priv->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	if (ret)
		goto fail;
	return 0;

fail:
	netdev_warn(priv->dev, "UD QP to state %d failed: %d\n",
		    attr.qp_state, ret);
	ipoib_qp_reset(priv);
	return ret;
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
