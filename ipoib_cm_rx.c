// SPDX-License-Identifier: GPL-2.0
/*
 * Connected-mode receive.  Messages are up to 65524 bytes (RFC 4755 5):
 * each buffer is a small skb head for the headers, then pages, so no
 * high-order allocation is ever needed.  The pages come from the
 * interface's page pool and go back to it when the stack is done with
 * them.  Buffers sit on one SRQ shared by all connections, or when the
 * HCA has no SRQ, on a ring per QP the peer sends on (and the number of
 * connections is then bounded by cm_max_conn_nosrq).
 */
#include <linux/slab.h>
#include "ipoib_cm.h"
#include "ipoib_rx.h"
#include "ipoib_rx_pages.h"

/* Pages the pool keeps for reuse when more come back than are taken. */
#define IPOIB_CM_POOL_CACHE	(64 * IPOIB_CM_RX_PAGES)

static void rx_head_unmap(struct ipoib_dev *priv, struct ipoib_cm_rx_buf *buf)
{
	ib_dma_unmap_single(priv->ca, buf->sge[0].addr, IPOIB_CM_HEAD_SIZE,
			    DMA_FROM_DEVICE);
}

static void rx_free(struct ipoib_dev *priv, struct ipoib_cm_rx_buf *buf)
{
	unsigned int i;

	if (!buf->skb)
		return;
	rx_head_unmap(priv, buf);
	dev_kfree_skb_any(buf->skb);
	buf->skb = NULL;
	for (i = 0; i < IPOIB_CM_RX_PAGES; i++) {
		if (buf->pages[i])
			ipoib_rx_page_put(&priv->cm->pages, buf->pages[i],
					  buf->sge[i + 1].addr);
		buf->pages[i] = NULL;
	}
}

/*
 * A fresh head and the first npages pages into skb/pages/mapping, all or
 * nothing.  Used to fill a buffer (napi NULL), and from the poll to
 * replace what a packet took.
 */
static int rx_alloc(struct ipoib_dev *priv, unsigned int npages,
		    struct napi_struct *napi, struct sk_buff **skbp,
		    struct page **pages, u64 *mapping)
{
	struct sk_buff *skb;
	unsigned int i;

	if (napi)
		skb = napi_alloc_skb(napi, IPOIB_CM_HEAD_SIZE);
	else
		skb = __netdev_alloc_skb(priv->dev, IPOIB_CM_HEAD_SIZE,
					 GFP_KERNEL);
	if (unlikely(!skb))
		return -ENOMEM;
	mapping[0] = ib_dma_map_single(priv->ca, skb->data, IPOIB_CM_HEAD_SIZE,
				       DMA_FROM_DEVICE);
	if (unlikely(ib_dma_mapping_error(priv->ca, mapping[0]))) {
		dev_kfree_skb_any(skb);
		return -EIO;
	}
	for (i = 0; i < npages; i++) {
		pages[i] = ipoib_rx_page_get(&priv->cm->pages, &mapping[i + 1]);
		if (unlikely(!pages[i]))
			goto unwind;
	}
	*skbp = skb;
	return 0;

unwind:
	while (i--)
		ipoib_rx_page_put(&priv->cm->pages, pages[i], mapping[i + 1]);
	ib_dma_unmap_single(priv->ca, mapping[0], IPOIB_CM_HEAD_SIZE,
			    DMA_FROM_DEVICE);
	dev_kfree_skb_any(skb);
	return -ENOMEM;
}

static void rx_done(struct ib_cq *cq, struct ib_wc *wc);

/*
 * SGEs of a receive buffer: the head, then as many pages as a message
 * needs and the HCA takes in one receive, on an SRQ or on a QP (the SRQ
 * may fail and leave us with per-QP rings: the same size for both).
 */
static unsigned int rx_sges(const struct ipoib_dev *priv)
{
	const struct ib_device_attr *a = &priv->ca->attrs;
	unsigned int n = min_t(unsigned int, IPOIB_CM_RX_SGE, a->max_recv_sge);

	if (a->max_srq)
		n = min_t(unsigned int, n, a->max_srq_sge);
	return max(n, 1U);
}

/* The largest message a buffer holds: the receive MTU peers are told. */
unsigned int ipoib_cm_rx_mtu(const struct ipoib_dev *priv)
{
	return min_t(unsigned int, IPOIB_CM_BUF_SIZE,
		     IPOIB_CM_HEAD_SIZE + (rx_sges(priv) - 1) * PAGE_SIZE);
}

static int rx_post(struct ipoib_dev *priv, struct ipoib_cm_conn *conn,
		   struct ipoib_cm_rx_buf *buf)
{
	struct ib_recv_wr wr = {
		.wr_cqe = &buf->cqe,
		.sg_list = buf->sge,
		.num_sge = priv->cm->rx_sge,
	};
	int ret;

	buf->cqe.done = rx_done;
	buf->posted = true;
	if (priv->cm->srq) {
		ret = ib_post_srq_recv(priv->cm->srq, &wr, NULL);
	} else {
		atomic_inc(&conn->rx_posted);
		ret = ib_post_recv(conn->qp, &wr, NULL);
		if (ret)
			atomic_dec(&conn->rx_posted);
	}
	if (unlikely(ret)) {
		buf->posted = false;
		netdev_warn_once(priv->dev, "posting a connected-mode receive failed: %d\n",
				 ret);
	}
	return ret;
}

/* A whole buffer, its scatter list made once: only addresses change. */
static int rx_fill(struct ipoib_dev *priv, struct ipoib_cm_rx_buf *buf)
{
	unsigned int i, nsge = priv->cm->rx_sge;
	u64 mapping[IPOIB_CM_RX_SGE];
	int ret;

	ret = rx_alloc(priv, nsge - 1, NULL, &buf->skb, buf->pages, mapping);
	if (ret)
		return ret;
	for (i = 0; i < nsge; i++) {
		buf->sge[i].addr = mapping[i];
		buf->sge[i].length = i ? PAGE_SIZE : IPOIB_CM_HEAD_SIZE;
		buf->sge[i].lkey = priv->pd->local_dma_lkey;
	}
	return 0;
}

/*
 * The packet's skb: the head, and as page fragments what did not fit,
 * which go back to the pool once the stack has freed them.
 */
static struct sk_buff *rx_take(struct ipoib_dev *priv,
			       struct ipoib_cm_rx_buf *buf, unsigned int len)
{
	unsigned int npages = len > IPOIB_CM_HEAD_SIZE ?
		DIV_ROUND_UP(len - IPOIB_CM_HEAD_SIZE, PAGE_SIZE) : 0;
	struct page *fresh[IPOIB_CM_RX_PAGES];
	u64 mapping[IPOIB_CM_RX_SGE];
	struct sk_buff *skb, *new;
	unsigned int i, rest;

	if (rx_alloc(priv, npages, &priv->cm->napi, &new, fresh, mapping))
		return NULL;
	skb = buf->skb;
	rx_head_unmap(priv, buf);
	skb_put(skb, min_t(unsigned int, len, IPOIB_CM_HEAD_SIZE));
	rest = len - skb->len;
	for (i = 0; i < npages; i++) {
		unsigned int size = min_t(unsigned int, rest, PAGE_SIZE);

		ipoib_rx_page_frag(priv, &priv->cm->pages, skb, buf->pages[i],
				   buf->sge[i + 1].addr, size);
		rest -= size;
		buf->pages[i] = fresh[i];
		buf->sge[i + 1].addr = mapping[i + 1];
	}
	buf->skb = new;
	buf->sge[0].addr = mapping[0];
	return skb;
}

/* The sender is the connection's peer; the rest as for UD. */
static void rx_deliver(struct ipoib_cm_conn *conn, struct sk_buff *skb,
		       const struct ib_wc *wc)
{
	u8 *ph;

	ph = skb_push(skb, IPOIB_PSEUDO_LEN);
	memcpy(ph, conn->peer, IPOIB_ALEN);
	skb_reset_mac_header(skb);
	skb_pull(skb, IPOIB_PSEUDO_LEN);
	if (ipoib_rx_to_stack(conn->priv, skb, PACKET_HOST, wc,
			      &conn->priv->cm->napi))
		ipoib_count(conn->priv, IPOIB_CNT_CM_RX_PACKETS);
}

/* From the connected-mode poll (NAPI). */
static void rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ipoib_cm_conn *conn = wc->qp->qp_context;
	struct ipoib_dev *priv = conn->priv;
	struct ipoib_cm_rx_buf *buf =
		container_of(wc->wr_cqe, struct ipoib_cm_rx_buf, cqe);
	struct sk_buff *skb;

	buf->posted = false;
	if (!priv->cm->srq)
		atomic_dec(&conn->rx_posted);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (ipoib_rx_failed(priv, wc, IPOIB_RX_CM))
			priv->cm->conn_kill(conn, true);
		/* The SRQ outlives the QP: the buffer goes back to it. */
		if (priv->cm->srq)
			rx_post(priv, conn, buf);
		return;
	}
	ipoib_cm_touch(conn);
	if (unlikely(wc->byte_len < IPOIB_ENCAP_LEN)) {
		ipoib_rx_drop(priv, NULL, IPOIB_CNT_RX_DROP_BAD_LEN);
		rx_post(priv, conn, buf);
		return;
	}
	BUILD_BUG_ON(IPOIB_RX_COPYBREAK > IPOIB_CM_HEAD_SIZE);
	if (wc->byte_len <= IPOIB_RX_COPYBREAK)
		skb = ipoib_rx_copy(priv, buf->skb->data, buf->sge[0].addr,
				    wc->byte_len);
	else
		skb = rx_take(priv, buf, wc->byte_len);
	/* Up first, as the peer waits for it; others stay posted meanwhile. */
	if (likely(skb))
		rx_deliver(conn, skb, wc);
	else
		ipoib_rx_drop(priv, NULL, IPOIB_CNT_CM_RX_DROP_NO_MEM);
	rx_post(priv, conn, buf);
}

/*
 * Connected mode starts: the page pool, and the SRQ filled when the HCA
 * has one; without, connections bring their own rings.
 */
int ipoib_cm_rx_init(struct ipoib_dev *priv)
{
	const struct ib_device_attr *a = &priv->ca->attrs;
	struct ipoib_cm_dev *cm = priv->cm;
	struct ib_srq_init_attr attr = { .srq_type = IB_SRQT_BASIC };
	unsigned int i, rx_mtu = ipoib_cm_rx_mtu(priv);
	int ret;

	cm->srq = NULL;
	if (!ipoib_cm_rx_mtu_usable(rx_mtu)) {
		netdev_warn(priv->dev, "connected mode refused: %u-byte receives are too small (max_recv_sge %d, max_srq_sge %d)\n",
			    rx_mtu, a->max_recv_sge, a->max_srq_sge);
		return -EOPNOTSUPP;
	}
	cm->rx_sge = rx_sges(priv);
	attr.attr.max_sge = cm->rx_sge;
	ret = ipoib_rx_pages_init(priv, &cm->pages, 0, 0, PAGE_SIZE,
				  IPOIB_CM_POOL_CACHE);
	if (ret)
		return ret;
	if (!a->max_srq)
		return 0;
	cm->srq_size = min_t(unsigned int, ipoib_recvq_size, a->max_srq_wr);
	attr.attr.max_wr = cm->srq_size;
	cm->srq_ring = kvcalloc(cm->srq_size, sizeof(*cm->srq_ring),
				GFP_KERNEL);
	if (!cm->srq_ring) {
		ipoib_rx_pages_destroy(&cm->pages);
		return -ENOMEM;
	}
	cm->srq = ib_create_srq(priv->pd, &attr);
	if (IS_ERR(cm->srq)) {
		netdev_info(priv->dev, "no SRQ (%ld): per-connection receive rings\n",
			    PTR_ERR(cm->srq));
		cm->srq = NULL;
		kvfree(cm->srq_ring);
		cm->srq_ring = NULL;
		return 0;
	}
	for (i = 0; i < cm->srq_size; i++) {
		ret = rx_fill(priv, &cm->srq_ring[i]);
		if (!ret)
			ret = rx_post(priv, NULL, &cm->srq_ring[i]);
		if (ret) {
			netdev_warn(priv->dev, "filling the SRQ failed: %d\n",
				    ret);
			ipoib_cm_rx_cleanup(priv);
			return ret;
		}
	}
	return 0;
}

/* Every connection is gone: nothing completes on the SRQ any more. */
void ipoib_cm_rx_cleanup(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;
	unsigned int i;

	if (cm->srq) {
		ib_destroy_srq(cm->srq);
		cm->srq = NULL;
		for (i = 0; i < cm->srq_size; i++)
			rx_free(priv, &cm->srq_ring[i]);
		kvfree(cm->srq_ring);
		cm->srq_ring = NULL;
	}
	ipoib_rx_pages_destroy(&cm->pages);
}

/* ethtool -S: pages the receive buffers took from the page allocator. */
u64 ipoib_cm_rx_pages_new(struct ipoib_dev *priv)
{
	lockdep_assert_held(&priv->state_lock);
	return priv->cm ? ipoib_rx_pages_new(&priv->cm->pages) : 0;
}

/*
 * No SRQ: the QP (in INIT or later) gets a ring of its own, of the size
 * its creation chose (none on a one-way connection we opened).
 */
int ipoib_cm_rx_ring_init(struct ipoib_cm_conn *conn)
{
	struct ipoib_dev *priv = conn->priv;
	unsigned int i;
	int ret;

	if (priv->cm->srq || !conn->rx_size)
		return 0;
	conn->rx_ring = kvcalloc(conn->rx_size, sizeof(*conn->rx_ring),
				 GFP_KERNEL);
	if (!conn->rx_ring)
		return -ENOMEM;
	for (i = 0; i < conn->rx_size; i++) {
		ret = rx_fill(priv, &conn->rx_ring[i]);
		if (!ret)
			ret = rx_post(priv, conn, &conn->rx_ring[i]);
		if (ret)
			return ret;	/* the caller tears the QP down */
	}
	return 0;
}

/* The poll reaps a connection's completions; a drain only waits for it. */
static unsigned int conn_rx_left(void *ctx)
{
	struct ipoib_cm_conn *conn = ctx;

	return max(atomic_read(&conn->rx_posted), 0);
}

/*
 * The QP is in error: its receives come back flushed.  With an SRQ, the
 * event says the QP has completed the last buffer it took; a QP that
 * never reached RTR took none.
 */
void ipoib_cm_rx_ring_drain(struct ipoib_cm_conn *conn)
{
	if (conn->priv->cm->srq) {
		if (conn->qp_rtr &&
		    !wait_for_completion_timeout(&conn->last_wqe,
						 IPOIB_CM_DRAIN_TIMEOUT))
			netdev_warn(conn->priv->dev, "connection to %pI6: no last-WQE event from the HCA\n",
				    ipoib_addr_gid(conn->peer));
		return;
	}
	ipoib_rx_drain(conn_rx_left, conn);
}

/* QP destroyed, its completions reaped: nothing can complete any more. */
void ipoib_cm_rx_ring_free(struct ipoib_cm_conn *conn)
{
	unsigned int i;

	if (!conn->rx_ring)
		return;
	for (i = 0; i < conn->rx_size; i++)
		rx_free(conn->priv, &conn->rx_ring[i]);
	kvfree(conn->rx_ring);
	conn->rx_ring = NULL;
}
