// SPDX-License-Identifier: GPL-2.0
/*
 * Connected-mode receive.  Messages are up to 65524 bytes (RFC 4755 5):
 * each buffer is a small skb head for the headers, then pages, so no
 * high-order allocation is ever needed.  The pages come from the
 * interface's page pool and go back to it when the stack is done with
 * them.  Buffers sit on the SRQ of the port's pool, which the interface
 * shares with the other interfaces of its port (ipoib_cm_pool.c), or
 * when the HCA has no SRQ, on a ring per QP the peer sends on (and the
 * number of connections is then bounded by cm_max_conn_nosrq).
 */
#include <linux/slab.h>
#include "ipoib_cm.h"
#include "ipoib_rx.h"
#include "ipoib_rx_pages.h"

/* Pages the per-QP rings' page pool keeps for reuse. */
#define IPOIB_CM_RING_CACHE	(64 * IPOIB_CM_RX_PAGES)

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

/* Without an SRQ: on the connection's own ring. */
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
	atomic_inc(&conn->rx_posted);
	ret = ib_post_recv(conn->qp, &wr, NULL);
	if (unlikely(ret)) {
		atomic_dec(&conn->rx_posted);
		buf->posted = false;
		netdev_warn_once(priv->dev, "posting a connected-mode receive failed: %d\n",
				 ret);
	}
	return ret;
}

/*
 * The packet's skb: the head, and as page fragments what did not fit,
 * which go back to the pool once the stack has freed them.
 */
static struct sk_buff *rx_take(struct ipoib_dev *priv,
			       struct ipoib_cm_rx_buf *buf, unsigned int len)
{
	const struct ipoib_cm_bufs *b = ipoib_cm_bufs(priv->cm);
	unsigned int npages = len > IPOIB_CM_HEAD_SIZE ?
		DIV_ROUND_UP(len - IPOIB_CM_HEAD_SIZE, PAGE_SIZE) : 0;
	struct page *fresh[IPOIB_CM_RX_PAGES];
	u64 mapping[IPOIB_CM_RX_SGE];
	struct sk_buff *skb, *new;
	unsigned int i, rest;

	if (ipoib_cm_buf_get(b, npages, &priv->cm->napi, &new, fresh, mapping))
		return NULL;
	skb = buf->skb;
	ipoib_cm_buf_head_unmap(b, buf);
	skb_put(skb, min_t(unsigned int, len, IPOIB_CM_HEAD_SIZE));
	rest = len - skb->len;
	for (i = 0; i < npages; i++) {
		unsigned int size = min_t(unsigned int, rest, PAGE_SIZE);

		ipoib_rx_page_frag(priv, b->pages, skb, buf->pages[i],
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

/* A buffer whose completion is handled: the pool's, or the QP's again. */
static void rx_again(struct ipoib_dev *priv, struct ipoib_cm_conn *conn,
		     struct ipoib_cm_rx_buf *buf)
{
	if (priv->cm->pool)
		ipoib_cm_pool_recycle(priv->cm->pool, buf);
	else
		rx_post(priv, conn, buf);
}

/* From the connected-mode poll (NAPI). */
static void rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ipoib_cm_conn *conn = wc->qp->qp_context;
	struct ipoib_dev *priv = conn->priv;
	struct ipoib_cm_dev *cm = priv->cm;
	struct ipoib_cm_rx_buf *buf =
		container_of(wc->wr_cqe, struct ipoib_cm_rx_buf, cqe);
	struct sk_buff *skb;

	buf->posted = false;
	if (!cm->pool)
		atomic_dec(&conn->rx_posted);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (ipoib_rx_failed(priv, wc, IPOIB_RX_CM))
			cm->conn_kill(conn, true);
		/* The SRQ outlives the QP: the buffer goes back to the pool. */
		if (cm->pool)
			ipoib_cm_pool_recycle(cm->pool, buf);
		return;
	}
	ipoib_cm_touch(conn);
	if (unlikely(wc->byte_len < IPOIB_ENCAP_LEN)) {
		ipoib_rx_drop(priv, NULL, IPOIB_CNT_RX_DROP_BAD_LEN);
		rx_again(priv, conn, buf);
		return;
	}
	/* Behind while the shared SRQ runs dry: ours go, not the others'. */
	if (cm->pool && unlikely(READ_ONCE(cm->behind)) &&
	    ipoib_cm_pool_pressed(cm->pool)) {
		ipoib_rx_drop(priv, NULL, IPOIB_CNT_CM_RX_DROP_OVER_SHARE);
		ipoib_cm_pool_recycle(cm->pool, buf);
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
	rx_again(priv, conn, buf);
}

/*
 * Connected mode starts: the port's pool when the HCA has SRQs, else a
 * page pool for the rings connections bring.
 */
int ipoib_cm_rx_init(struct ipoib_dev *priv)
{
	const struct ib_device_attr *a = &priv->ca->attrs;
	struct ipoib_cm_dev *cm = priv->cm;
	unsigned int rx_mtu = ipoib_cm_rx_mtu(priv);
	struct ipoib_cm_pool *pool = NULL;
	int ret;

	cm->pool = NULL;
	if (!ipoib_cm_rx_mtu_usable(rx_mtu)) {
		netdev_warn(priv->dev, "connected mode refused: %u-byte receives are too small (max_recv_sge %d, max_srq_sge %d)\n",
			    rx_mtu, a->max_recv_sge, a->max_srq_sge);
		return -EOPNOTSUPP;
	}
	cm->rx_sge = rx_sges(priv);
	cm->pool_want = priv->rx_size ?: ipoib_recvq_size;
	if (a->max_srq) {
		pool = ipoib_cm_pool_get(priv, cm->rx_sge, rx_done);
		if (IS_ERR(pool))
			return PTR_ERR(pool);
	}
	if (pool) {
		cm->pool = pool;
		return 0;
	}
	ret = ipoib_rx_pages_init(priv, &cm->pages, 0, 0, PAGE_SIZE,
				  IPOIB_CM_RING_CACHE);
	if (ret)
		return ret;
	cm->own_bufs.ca = priv->ca;
	cm->own_bufs.pages = &cm->pages;
	cm->own_bufs.lkey = priv->pd->local_dma_lkey;
	cm->own_bufs.nsge = cm->rx_sge;
	return 0;
}

/* Every connection is gone: none of ours takes from the SRQ any more. */
void ipoib_cm_rx_cleanup(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;

	if (cm->pool) {
		ipoib_cm_pool_put(priv);
		cm->pool = NULL;
	}
	ipoib_rx_pages_destroy(&cm->pages);
}

/*
 * ethtool -S: pages the receive buffers took from the page allocator,
 * the port's pool's included (shared with its other interfaces).
 */
u64 ipoib_cm_rx_pages_new(struct ipoib_dev *priv)
{
	struct ipoib_cm_dev *cm = priv->cm;

	lockdep_assert_held(&priv->state_lock);
	if (!cm)
		return 0;
	return ipoib_rx_pages_new(&cm->pages) +
	       (cm->pool ? ipoib_rx_pages_new(&cm->pool->pages) : 0);
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

	if (priv->cm->pool || !conn->rx_size)
		return 0;
	conn->rx_ring = kvcalloc(conn->rx_size, sizeof(*conn->rx_ring),
				 GFP_KERNEL);
	if (!conn->rx_ring)
		return -ENOMEM;
	for (i = 0; i < conn->rx_size; i++) {
		ret = ipoib_cm_buf_fill(ipoib_cm_bufs(priv->cm), &conn->rx_ring[i]);
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
	if (conn->priv->cm->pool) {
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
		ipoib_cm_buf_free(ipoib_cm_bufs(conn->priv->cm),
				  &conn->rx_ring[i]);
	kvfree(conn->rx_ring);
	conn->rx_ring = NULL;
}
