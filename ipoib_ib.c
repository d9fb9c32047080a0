// SPDX-License-Identifier: GPL-2.0
/*
 * The datagram data path: the receive and send rings of the UD QP, the
 * NAPI poll that reaps both completion queues, the further send queues
 * (one QP, CQ, ring and NAPI each, for TX queues 1 and up), and the rings'
 * own bring-up and teardown.
 *
 * A receive buffer is a page (two for a 4 KiB IB MTU) from the interface's
 * page pool: headroom, the GRH and the message, and room at the end for
 * the skb's shared info, so that the page becomes the skb's head as it is
 * and goes back to the pool when the stack frees it.
 */
#include <linux/ip.h>
#include <linux/tcp.h>
#include "ipoib.h"
#include "ipoib_ib.h"
#include "ipoib_pmtu.h"
#include "ipoib_rx.h"
#include "ipoib_rx_pages.h"
#include "ipoib_tx.h"
#include "ipoib_verbs.h"

#define IPOIB_RX_HEADROOM	NET_SKB_PAD
/* Pages the pool keeps for reuse when more come back than are taken. */
#define IPOIB_RX_POOL_CACHE	1024

static unsigned int rx_index(const struct ipoib_dev *priv, u64 wr_id)
{
	return wr_id & (priv->rx_size - 1);
}

/* A new page for slot i; without one, the slot keeps what it has. */
static int rx_fill_slot(struct ipoib_dev *priv, unsigned int i)
{
	struct ipoib_rx_slot *slot = &priv->rx_ring[i];
	struct page *page;
	u64 mapping;

	page = ipoib_rx_page_get(&priv->rx_pages, &mapping);
	if (unlikely(!page))
		return -ENOMEM;
	slot->page = page;
	slot->mapping = mapping;
	return 0;
}

static void rx_release_slot(struct ipoib_dev *priv, struct ipoib_rx_slot *slot)
{
	ipoib_rx_page_put(&priv->rx_pages, slot->page, slot->mapping);
	slot->page = NULL;
}

static int rx_post(struct ipoib_dev *priv, unsigned int i)
{
	int ret;

	priv->rx_sge.addr = priv->rx_ring[i].mapping + IPOIB_RX_HEADROOM;
	priv->rx_sge.length = priv->rx_buf_size;
	priv->rx_wr.wr_id = i;
	ret = ib_post_recv(priv->qp, &priv->rx_wr, NULL);
	if (unlikely(ret))
		netdev_warn_once(priv->dev, "posting a receive failed: %d\n",
				 ret);
	return ret;
}

/*
 * Turn the GRH room ahead of the IPoIB header into a pseudo header holding
 * the sender's link address, so packet sockets see who sent it.
 */
static void rx_set_source(struct sk_buff *skb, const struct ib_wc *wc)
{
	struct ib_grh *grh = (struct ib_grh *)skb->data;
	union ib_gid sgid = {};
	u8 *ph;

	if (wc->wc_flags & IB_WC_GRH)
		sgid = grh->sgid;
	ph = skb_pull(skb, IPOIB_GRH_LEN - IPOIB_PSEUDO_LEN);
	ipoib_addr_make(ph, 0, wc->src_qp, sgid.raw);
	skb_reset_mac_header(skb);
	skb_pull(skb, IPOIB_PSEUDO_LEN);
}

/*
 * Own multicast comes back to us unless the HCA blocks the loopback: from
 * our QP, and from any of our port's LIDs.
 */
static bool rx_is_own_multicast(struct ipoib_dev *priv, const struct ib_wc *wc)
{
	return wc->src_qp == priv->qpn &&
	       ipoib_lid_same_port(wc->slid, READ_ONCE(priv->local_lid),
				   READ_ONCE(priv->lmc));
}

static unsigned char rx_pkt_type(struct ipoib_dev *priv, struct sk_buff *skb,
				 const struct ib_wc *wc)
{
	const struct ib_grh *grh = (const struct ib_grh *)skb->data;

	if (!(wc->wc_flags & IB_WC_GRH) ||
	    !ipoib_gid_is_multicast(grh->dgid.raw))
		return PACKET_HOST;
	if (!memcmp(grh->dgid.raw, ipoib_addr_gid(priv->dev->broadcast),
		    sizeof(grh->dgid)))
		return PACKET_BROADCAST;
	return PACKET_MULTICAST;
}

/* skb holds the whole message, GRH first. */
static void rx_deliver(struct ipoib_dev *priv, struct sk_buff *skb,
		       const struct ib_wc *wc)
{
	unsigned char pkt_type;

	if (unlikely(wc->byte_len < IPOIB_GRH_LEN + IPOIB_ENCAP_LEN)) {
		ipoib_rx_drop(priv, skb, IPOIB_CNT_RX_DROP_BAD_LEN);
		return;
	}
	pkt_type = rx_pkt_type(priv, skb, wc);
	if (pkt_type != PACKET_HOST && rx_is_own_multicast(priv, wc)) {
		ipoib_count(priv, IPOIB_CNT_RX_DROP_OWN_MCAST);
		dev_kfree_skb_any(skb);
		return;
	}
	rx_set_source(skb, wc);
	ipoib_rx_to_stack(priv, skb, pkt_type, wc, &priv->napi);
}

/* One receive completion; in_napi is false while draining on the way down. */
static void handle_rx(struct ipoib_dev *priv, const struct ib_wc *wc,
		      bool in_napi)
{
	unsigned int i = rx_index(priv, wc->wr_id);
	struct ipoib_rx_slot *slot = &priv->rx_ring[i];
	struct ipoib_rx_slot old = *slot;
	struct sk_buff *skb = NULL;

	if (unlikely(wc->status != IB_WC_SUCCESS || !in_napi)) {
		/* A lone error: the buffer goes back as it is. */
		if (wc->status != IB_WC_SUCCESS &&
		    ipoib_rx_failed(priv, wc, IPOIB_RX_UD) && in_napi)
			rx_post(priv, i);
		else
			rx_release_slot(priv, slot);
		return;
	}

	/*
	 * Small: a copy, and the buffer as it is.  Else the buffer goes up
	 * and a new one takes its place; with neither, drop the packet and
	 * reuse its buffer.
	 */
	if (wc->byte_len <= IPOIB_GRH_LEN + IPOIB_RX_COPYBREAK) {
		skb = ipoib_rx_copy(priv,
				    page_address(slot->page) + IPOIB_RX_HEADROOM,
				    slot->mapping + IPOIB_RX_HEADROOM,
				    wc->byte_len);
	} else if (likely(!rx_fill_slot(priv, i))) {
		/* The page goes up with the packet, or back to the slot. */
		skb = ipoib_rx_page_skb(priv, &priv->rx_pages, old.page,
					old.mapping, IPOIB_RX_HEADROOM,
					wc->byte_len);
		if (unlikely(!skb)) {
			rx_release_slot(priv, slot);
			*slot = old;
		}
	}
	rx_post(priv, i);
	if (unlikely(!skb)) {
		ipoib_rx_drop(priv, NULL, IPOIB_CNT_RX_DROP_NO_MEM);
		return;
	}
	rx_deliver(priv, skb, wc);
}

static void handle_tx(struct ipoib_dev *priv, struct ipoib_tx_ring *ring,
		      const struct ib_wc *wc, int budget)
{
	struct ipoib_tx_slot *slot =
		&ring->slots[wc->wr_id & (ring->size - 1)];

	if (unlikely(wc->status != IB_WC_SUCCESS &&
		     wc->status != IB_WC_WR_FLUSH_ERR)) {
		netdev_warn_once(priv->dev, "send completion error %d (%s)\n",
				 wc->status, ib_wc_status_msg(wc->status));
		ipoib_count(priv, IPOIB_CNT_TX_ERRORS_WC);
		atomic_long_inc(&priv->tx_errors);
	}
	ipoib_tx_release(priv, ring, slot, budget);
}

/*
 * The completions a poll reads go to the NAPI's own array, used by whoever
 * owns the NAPI: its poll or whoever disabled it (SCHED), or netpoll
 * (NPSVC), which excludes the poll.  On the stack they would be zeroed on
 * every poll by kernels that zero stack variables (Debian's do).
 */
static struct ib_wc *poll_wcs(struct ipoib_dev *priv)
{
	WARN_ON_ONCE(!(READ_ONCE(priv->napi.state) &
		       (NAPIF_STATE_SCHED | NAPIF_STATE_NPSVC)));
	return priv->poll_wcs;
}

static void reap_cq(struct ipoib_dev *priv, struct ib_cq *cq,
		    struct ipoib_tx_ring *ring, struct ib_wc *wcs, int budget)
{
	int n, i;

	do {
		n = ib_poll_cq(cq, IPOIB_POLL_BATCH, wcs);
		for (i = 0; i < n; i++)
			handle_tx(priv, ring, &wcs[i], budget);
	} while (n == IPOIB_POLL_BATCH);
	ipoib_tx_ud_reaped(priv, ring);
}

static void tx_reap(struct ipoib_dev *priv, int budget)
{
	reap_cq(priv, priv->send_cq, &priv->tx, poll_wcs(priv), budget);
}

/* A further send queue's completions: its NAPI's, on its CQ's CPU. */
static int sendq_poll(struct napi_struct *napi, int budget)
{
	struct ipoib_sendq *sq = container_of(napi, struct ipoib_sendq, napi);

	reap_cq(sq->priv, sq->cq, &sq->tx, sq->wcs, budget);
	if (napi_complete_done(napi, 0) &&
	    ib_req_notify_cq(sq->cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0)
		napi_schedule(napi);
	return 0;
}

static int ipoib_poll(struct napi_struct *napi, int budget)
{
	struct ipoib_dev *priv = container_of(napi, struct ipoib_dev, napi);
	struct ib_wc *wcs = poll_wcs(priv);
	int done = 0;

	tx_reap(priv, budget);
	while (done < budget) {
		int n = ib_poll_cq(priv->recv_cq,
				   min(IPOIB_POLL_BATCH, budget - done), wcs);
		int i;

		for (i = 0; i < n; i++)
			handle_rx(priv, &wcs[i], true);
		done += n;
		if (n < IPOIB_POLL_BATCH)
			break;
	}
	if (done < budget && napi_complete_done(napi, done)) {
		int missed;

		missed = ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP |
					  IB_CQ_REPORT_MISSED_EVENTS);
		missed |= ib_req_notify_cq(priv->send_cq, IB_CQ_NEXT_COMP |
					   IB_CQ_REPORT_MISSED_EVENTS);
		if (missed > 0)
			napi_schedule(napi);
	}
	return done;
}

static void ipoib_rx_completion(struct ib_cq *cq, void *ctx)
{
	struct ipoib_dev *priv = ctx;

	napi_schedule(&priv->napi);
}

static void ipoib_tx_completion(struct ib_cq *cq, void *ctx)
{
	struct ipoib_dev *priv = ctx;

	napi_schedule(&priv->napi);
}

static void sendq_completion(struct ib_cq *cq, void *ctx)
{
	struct ipoib_sendq *sq = ctx;

	napi_schedule(&sq->napi);
}

/* For the verbs objects (ipoib_verbs.c): ipoib_netdev.c hands them down. */
const struct ipoib_ud_handlers ipoib_ud_handlers = {
	.rx_completion = ipoib_rx_completion,
	.tx_completion = ipoib_tx_completion,
	.sendq_completion = sendq_completion,
	.poll = ipoib_poll,
	.sendq_poll = sendq_poll,
};

/* Returns the LSO header length, 0 for a plain send, <0 to drop. */
static int tx_prepare_lso(struct ipoib_dev *priv, struct ib_ud_wr *wr,
			  struct sk_buff *skb)
{
	unsigned int hlen;

	if (!skb_is_gso(skb))
		return 0;
	hlen = skb_tcp_all_headers(skb);
	if (unlikely(hlen > skb_headlen(skb)))
		return -EINVAL;
	wr->wr.opcode = IB_WR_LSO;
	wr->header = skb->data;
	wr->hlen = hlen;
	wr->mss = skb_shinfo(skb)->gso_size;
	ipoib_count(priv, IPOIB_CNT_TX_LSO);
	return hlen;
}

/*
 * What one UD message to qpn may carry: multicast, in either mode, what
 * the broadcast group's MTU allows every member (RFC 4391 5 sizes all
 * groups by it); unicast, what our port sends (in connected mode,
 * ipoib_cm_tx.c has already held it to the group's MTU for peers without
 * connections).
 */
static unsigned int ud_limit(const struct ipoib_dev *priv, u32 qpn)
{
	if (qpn == IPOIB_MCAST_QPN)
		return ipoib_ud_group_mtu(priv);
	return ipoib_ud_mtu(priv->max_ib_mtu);
}

/*
 * Post one packet (IPoIB header at skb->data) on a UD send queue: its QP,
 * ring, and work request and SGEs.  Called under the ring's TX queue lock;
 * consumes the skb whatever happens.
 */
static int ud_post(struct ipoib_dev *priv, struct ib_qp *qp,
		   struct ipoib_tx_ring *ring, struct ib_ud_wr *wr,
		   struct ib_sge *sge, struct sk_buff *skb,
		   struct ipoib_ah *ah, u32 qpn)
{
	struct ipoib_tx_slot *slot;
	unsigned int len = skb->len;
	unsigned int limit;
	int hlen, n, ret;

	if (unlikely(!test_bit(IPOIB_QP_READY, &priv->flags))) {
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_POST);
		return -ENETDOWN;
	}
	limit = ud_limit(priv, qpn);
	if (!skb_is_gso(skb) && unlikely(len - IPOIB_ENCAP_LEN > limit)) {
		ipoib_too_big(priv, skb, limit);
		return -EMSGSIZE;
	}
	slot = ipoib_tx_claim(priv, ring, skb);
	if (unlikely(!slot))
		return -ENOBUFS;
	wr->wr.opcode = IB_WR_SEND;
	hlen = tx_prepare_lso(priv, wr, skb);
	if (unlikely(hlen < 0)) {
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_TOO_BIG);
		return hlen;
	}
	n = ipoib_tx_load(priv, slot, skb, hlen, sge);
	if (unlikely(n < 0))
		return n;
	wr->wr.num_sge = n;
	wr->wr.wr_id = ring->head;
	wr->wr.send_flags = IB_SEND_SIGNALED;
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		wr->wr.send_flags |= IB_SEND_IP_CSUM;
		ipoib_count(priv, IPOIB_CNT_TX_CSUM);
	}
	wr->ah = ah->ah;
	wr->remote_qpn = qpn;
	wr->remote_qkey = priv->qkey;

	ret = ipoib_tx_posted(priv, ring, slot, len,
			      ib_post_send(qp, &wr->wr, NULL));
	if (!ret)
		ipoib_tx_ud_posted(priv, ring);
	return ret;
}

/* On the UD QP, under the transmit lock (TX queue 0's). */
int ipoib_ud_send(struct ipoib_dev *priv, struct sk_buff *skb,
		  struct ipoib_ah *ah, u32 qpn)
{
	return ud_post(priv, priv->qp, &priv->tx, &priv->tx_wr, priv->tx_sge,
		       skb, ah, qpn);
}

/* On TX queue txq's own send queue (txq >= 1), under that queue's lock. */
int ipoib_sendq_send(struct ipoib_dev *priv, unsigned int txq,
		     struct sk_buff *skb, struct ipoib_ah *ah, u32 qpn)
{
	struct ipoib_sendq *sq = &priv->sendqs[txq - 1];

	return ud_post(priv, sq->qp, &sq->tx, &sq->wr, sq->sge, skb, ah, qpn);
}

static void free_rings(struct ipoib_dev *priv)
{
	kvfree(priv->rx_ring);
	priv->rx_ring = NULL;
	ipoib_tx_ring_free(&priv->tx);
	ipoib_rx_pages_destroy(&priv->rx_pages);
}

static int alloc_rings(struct ipoib_dev *priv)
{
	unsigned int frame = SKB_DATA_ALIGN(IPOIB_RX_HEADROOM +
					    priv->rx_buf_size) +
			     SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	int ret;

	ret = ipoib_rx_pages_init(priv, &priv->rx_pages, get_order(frame),
				  IPOIB_RX_HEADROOM, priv->rx_buf_size,
				  IPOIB_RX_POOL_CACHE);
	if (ret)
		return ret;
	priv->rx_ring = kvcalloc(priv->rx_size, sizeof(*priv->rx_ring),
				 GFP_KERNEL);
	if (!priv->rx_ring ||
	    ipoib_tx_ring_init(&priv->tx, priv->tx_size, GFP_KERNEL)) {
		free_rings(priv);
		return -ENOMEM;
	}
	return 0;
}

static int rx_fill_ring(struct ipoib_dev *priv)
{
	unsigned int i;
	int ret;

	for (i = 0; i < priv->rx_size; i++) {
		ret = rx_fill_slot(priv, i);
		if (ret)
			return ret;
		ret = rx_post(priv, i);
		if (ret) {
			rx_release_slot(priv, &priv->rx_ring[i]);
			return ret;
		}
	}
	return 0;
}

/*
 * NAPI off, the QP in error: reap what has come back of both rings here,
 * and say how many sends and receives are still with the HCA.
 */
static unsigned int rings_left(void *ctx)
{
	struct ipoib_dev *priv = ctx;
	struct ib_wc *wcs = poll_wcs(priv);
	unsigned int i, left;
	int n, k;

	do {
		n = ib_poll_cq(priv->recv_cq, IPOIB_POLL_BATCH, wcs);
		for (k = 0; k < n; k++)
			handle_rx(priv, &wcs[k], false);
	} while (n == IPOIB_POLL_BATCH);
	local_bh_disable();
	tx_reap(priv, 0);
	local_bh_enable();
	left = ipoib_tx_outstanding(&priv->tx);
	for (i = 0; i < priv->rx_size; i++)
		left += !!priv->rx_ring[i].page;
	return left;
}

/*
 * With the QP in error every posted request comes back flushed: reap them
 * all so that no buffer is left with the HCA, then free what never came.
 */
static void drain_rings(struct ipoib_dev *priv)
{
	unsigned int i;

	/* A CQ in error takes no flush: reap what is there, wait for none. */
	if (test_bit(IPOIB_CQ_DEAD, &priv->flags))
		rings_left(priv);
	else if (ipoib_rx_drain(rings_left, priv))
		netdev_warn(priv->dev, "%u sends and some receives never completed; freeing them\n",
			    ipoib_tx_outstanding(&priv->tx));
	for (i = 0; i < priv->rx_size; i++)
		if (priv->rx_ring[i].page)
			rx_release_slot(priv, &priv->rx_ring[i]);
	ipoib_tx_ring_discard(priv, &priv->tx);
}

/* NAPI off, the QP in error: reap what came back, say what is still out. */
static unsigned int sendq_left(void *ctx)
{
	struct ipoib_sendq *sq = ctx;

	local_bh_disable();
	reap_cq(sq->priv, sq->cq, &sq->tx, sq->wcs, 0);
	local_bh_enable();
	return ipoib_tx_outstanding(&sq->tx);
}

static void sendq_down(struct ipoib_dev *priv, struct ipoib_sendq *sq)
{
	napi_disable(&sq->napi);
	netif_napi_del(&sq->napi);
	ipoib_sendq_to_error(sq);
	if (test_bit(IPOIB_CQ_DEAD, &priv->flags))
		sendq_left(sq);
	else if (ipoib_rx_drain(sendq_left, sq))
		netdev_warn(priv->dev, "%u sends never completed; freeing them\n",
			    ipoib_tx_outstanding(&sq->tx));
	ipoib_tx_ring_discard(priv, &sq->tx);
	ipoib_sendq_destroy(sq);
	ipoib_tx_ring_free(&sq->tx);
}

/* TX queue txq's send queue, sized as the UD QP's, ready to post on. */
static int sendq_up(struct ipoib_dev *priv, unsigned int txq)
{
	struct ipoib_sendq *sq = &priv->sendqs[txq - 1];
	unsigned int i;
	int ret;

	sq->tx.txq = txq;
	sq->tx.stats = &sq->stats;
	ret = ipoib_tx_ring_init(&sq->tx, priv->tx_size, GFP_KERNEL);
	if (ret)
		return ret;
	ret = ipoib_sendq_create(priv, sq, txq, &ipoib_ud_handlers);
	if (ret) {
		ipoib_sendq_destroy(sq);
		ipoib_tx_ring_free(&sq->tx);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(sq->sge); i++)
		sq->sge[i].lkey = priv->pd->local_dma_lkey;
	sq->wr.wr.sg_list = sq->sge;
	netif_napi_add_tx(priv->dev, &sq->napi, sendq_poll);
	napi_enable(&sq->napi);
	ib_req_notify_cq(sq->cq, IB_CQ_NEXT_COMP);
	return 0;
}

/* The further send queues, as many as the netdev has TX queues. */
static int sendqs_up(struct ipoib_dev *priv)
{
	unsigned int txq;
	int ret;

	for (txq = 1; txq < priv->dev->real_num_tx_queues; txq++) {
		ret = sendq_up(priv, txq);
		if (ret) {
			while (--txq)
				sendq_down(priv, &priv->sendqs[txq - 1]);
			return ret;
		}
	}
	return 0;
}

static void sendqs_down(struct ipoib_dev *priv)
{
	unsigned int txq;

	for (txq = 1; txq < priv->dev->real_num_tx_queues; txq++)
		sendq_down(priv, &priv->sendqs[txq - 1]);
}

/*
 * Rings and QP up, NAPI on: the UD data path can carry packets once this
 * returns 0.  The caller (ipoib_state.c) decides everything around it and
 * has read the port's MTU (ipoib_set_mtu_limits()), which sizes them.
 */
int ipoib_rings_up(struct ipoib_dev *priv)
{
	int ret;

	lockdep_assert_held(&priv->state_lock);
	priv->rx_buf_size = priv->max_ib_mtu + IPOIB_GRH_LEN;
	ret = alloc_rings(priv);
	if (ret)
		return ret;
	ret = ipoib_qp_bring_up(priv);
	if (ret)
		goto err_rings;
	ret = rx_fill_ring(priv);
	if (ret) {
		netdev_warn(priv->dev, "could not fill the receive ring: %d\n",
			    ret);
		goto err_qp;
	}
	ret = sendqs_up(priv);
	if (ret) {
		netdev_warn(priv->dev, "could not make the send queues: %d\n",
			    ret);
		goto err_qp;
	}
	set_bit(IPOIB_QP_READY, &priv->flags);
	napi_enable(&priv->napi);
	ib_req_notify_cq(priv->recv_cq, IB_CQ_NEXT_COMP);
	ib_req_notify_cq(priv->send_cq, IB_CQ_NEXT_COMP);
	/* Completions may have arrived before the CQs were armed. */
	napi_schedule(&priv->napi);
	return 0;

err_qp:
	ipoib_qp_to_error(priv);
	drain_rings(priv);
	ipoib_qp_reset(priv);
err_rings:
	free_rings(priv);
	return ret;
}

/* QP_READY already cleared and nothing sends: every buffer back, freed. */
void ipoib_rings_down(struct ipoib_dev *priv)
{
	lockdep_assert_held(&priv->state_lock);
	WARN_ON_ONCE(test_bit(IPOIB_QP_READY, &priv->flags));
	napi_disable(&priv->napi);
	ipoib_qp_to_error(priv);
	drain_rings(priv);
	ipoib_qp_reset(priv);
	free_rings(priv);
	sendqs_down(priv);
}
