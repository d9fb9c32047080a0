// SPDX-License-Identifier: GPL-2.0
/*
 * Connected-mode transmit: which way a unicast packet goes (the peer's
 * connection, or UD), posting it on an RC/UC QP, and telling the local
 * stack when a packet is bigger than its destination can take (RFC 4755
 * 7.2) so that path MTU discovery adapts instead of packets vanishing.
 * Multicast, broadcast, ARP and ND never come here: they go over UD.
 */
#include <linux/icmp.h>
#include <linux/delay.h>
#include <linux/icmpv6.h>
#include <net/icmp.h>
#include "ipoib_cm.h"

/*
 * Too big for where it must go: an ICMP "fragmentation needed" or ICMPv6
 * "packet too big" into the local stack, and the packet is dropped.
 */
static void pmtu_signal(struct ipoib_dev *priv, struct sk_buff *skb,
			unsigned int mtu)
{
	ipoib_count(priv, IPOIB_CNT_CM_PMTU_SIGNALS);
	ipoib_count(priv, IPOIB_CNT_TX_DROP_TOO_BIG);
	atomic_long_inc(&priv->tx_dropped);
	if (skb->protocol == htons(ETH_P_IP))
		icmp_ndo_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED,
			      htonl(mtu));
	else if (skb->protocol == htons(ETH_P_IPV6))
		icmpv6_ndo_send(skb, ICMPV6_PKT_TOOBIG, 0, mtu);
	dev_kfree_skb_any(skb);
}

/* Payload of the packet: skb->data is at the IPoIB header. */
static unsigned int payload_len(const struct sk_buff *skb)
{
	return skb->len - IPOIB_ENCAP_LEN;
}

/* Going over UD: true when the packet was too big and is dealt with. */
static bool ud_too_big(struct ipoib_dev *priv, struct sk_buff *skb)
{
	unsigned int mtu = ipoib_ud_payload_mtu(priv);

	if (skb_is_gso(skb) || payload_len(skb) <= mtu)
		return false;
	pmtu_signal(priv, skb, mtu);
	return true;
}

/* Softirq, from the connection's send CQ; completions come in order. */
static void tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ipoib_cm_conn *conn = cq->cq_context;
	struct ipoib_dev *priv = conn->priv;
	struct ipoib_cm_tx_slot *slot =
		container_of(wc->wr_cqe, struct ipoib_cm_tx_slot, cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS &&
		     wc->status != IB_WC_WR_FLUSH_ERR)) {
		net_info_ratelimited("%s: send to %pI6 failed: %s; back to datagrams for it\n",
				     priv->dev->name,
				     ipoib_addr_gid(conn->peer),
				     ib_wc_status_msg(wc->status));
		ipoib_count(priv, IPOIB_CNT_CM_ERRORS_WC);
		atomic_long_inc(&priv->tx_errors);
		ipoib_cm_conn_kill(conn, true);
	}
	ipoib_tx_unmap(priv, slot->skb, &slot->map);
	dev_consume_skb_any(slot->skb);
	slot->skb = NULL;
	WRITE_ONCE(conn->tx_tail, conn->tx_tail + 1);

	/* Pairs with the barrier after netif_stop_queue() in send. */
	smp_mb();
	if (unlikely(netif_queue_stopped(priv->dev)) &&
	    READ_ONCE(conn->tx_head) - conn->tx_tail <= IPOIB_CM_TX_RING / 2 &&
	    test_bit(IPOIB_QP_READY, &priv->flags))
		netif_wake_queue(priv->dev);
}

int ipoib_cm_tx_alloc(struct ipoib_cm_conn *conn)
{
	conn->tx_ring = kvcalloc(IPOIB_CM_TX_RING, sizeof(*conn->tx_ring),
				 GFP_KERNEL);
	return conn->tx_ring ? 0 : -ENOMEM;
}

/* The QP is in error: wait for its sends to come back flushed. */
void ipoib_cm_tx_drain(struct ipoib_cm_conn *conn)
{
	unsigned long deadline = jiffies + IPOIB_CM_DRAIN_TIMEOUT;

	while (READ_ONCE(conn->tx_tail) != conn->tx_head &&
	       time_before(jiffies, deadline))
		usleep_range(5000, 10000);
}

/* QP and CQ gone: free what never completed, and let the queue run. */
void ipoib_cm_tx_free(struct ipoib_cm_conn *conn)
{
	struct ipoib_dev *priv = conn->priv;

	if (!conn->tx_ring)
		return;
	for (; conn->tx_tail != conn->tx_head; conn->tx_tail++) {
		struct ipoib_cm_tx_slot *slot =
			&conn->tx_ring[conn->tx_tail & (IPOIB_CM_TX_RING - 1)];

		if (!slot->skb)
			continue;
		ipoib_tx_unmap(priv, slot->skb, &slot->map);
		dev_kfree_skb_any(slot->skb);
		slot->skb = NULL;
	}
	kvfree(conn->tx_ring);
	conn->tx_ring = NULL;
	if (netif_queue_stopped(priv->dev) &&
	    test_bit(IPOIB_QP_READY, &priv->flags))
		netif_wake_queue(priv->dev);
}

/*
 * Post one packet (IPoIB header at skb->data) on a live connection.
 * Under netif_tx_lock; consumes the skb.
 */
void ipoib_cm_send(struct ipoib_dev *priv, struct ipoib_cm_conn *conn,
		   struct sk_buff *skb)
{
	unsigned int i = conn->tx_head & (IPOIB_CM_TX_RING - 1);
	struct ipoib_cm_tx_slot *slot = &conn->tx_ring[i];
	struct ib_send_wr wr = {
		.wr_cqe = &slot->cqe,
		.sg_list = conn->tx_sge,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	unsigned int len = skb->len;
	int n, ret;

	if (unlikely(payload_len(skb) > conn->mtu)) {
		pmtu_signal(priv, skb, conn->mtu);
		return;
	}
	if (skb_shinfo(skb)->nr_frags + 1 > priv->max_send_sge &&
	    unlikely(skb_linearize(skb))) {
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_MAP);
		return;
	}
	n = ipoib_tx_map(priv, skb, 0, &slot->map, conn->tx_sge);
	if (unlikely(n < 0)) {
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_MAP);
		return;
	}
	wr.num_sge = n;
	slot->cqe.done = tx_done;
	slot->skb = skb;
	ret = ib_post_send(conn->qp, &wr, NULL);
	if (unlikely(ret)) {
		netdev_warn_once(priv->dev, "posting a connected-mode send failed: %d\n",
				 ret);
		ipoib_tx_unmap(priv, slot->skb, &slot->map);
		slot->skb = NULL;
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_POST);
		return;
	}
	ipoib_count(priv, IPOIB_CNT_CM_TX_PACKETS);
	u64_stats_update_begin(&priv->tx_stats.sync);
	priv->tx_stats.packets++;
	priv->tx_stats.bytes += len;
	u64_stats_update_end(&priv->tx_stats.sync);
	ipoib_cm_touch(conn);

	WRITE_ONCE(conn->tx_head, conn->tx_head + 1);
	if (unlikely(conn->tx_head - READ_ONCE(conn->tx_tail) >=
		     IPOIB_CM_TX_RING)) {
		netif_stop_queue(priv->dev);
		/* A completion may have freed room meanwhile. */
		smp_mb();
		if (conn->tx_head - READ_ONCE(conn->tx_tail) < IPOIB_CM_TX_RING)
			netif_wake_queue(priv->dev);
	}
}

/* Does the peer's address say it takes connections we can make? */
static bool peer_wants_cm(const u8 *daddr)
{
	return ipoib_addr_flags(daddr) & ipoib_cm_addr_flags();
}

/*
 * Under priv->lock: a connection for this neighbour, found or started.
 * Returns NULL when the packet should go over UD for now.
 */
static struct ipoib_cm_conn *conn_for(struct ipoib_dev *priv,
				      struct ipoib_neigh *neigh)
{
	struct ipoib_cm_conn *conn;

	conn = rcu_dereference_protected(neigh->cm,
					 lockdep_is_held(&priv->lock));
	if (conn && conn->state != IPOIB_CM_DEAD)
		return conn;
	conn = ipoib_cm_find_sendable(priv, neigh->daddr);
	if (!conn) {
		if (time_before(jiffies, neigh->cm_retry_at) || !neigh->path ||
		    !neigh->path->valid)
			return NULL;
		conn = ipoib_cm_conn_new(priv, neigh->daddr, true);
		if (!conn) {
			/* No room now: datagrams for a while. */
			neigh->cm_backoff = clamp(neigh->cm_backoff * 2,
						  (unsigned long)IPOIB_CM_RETRY_MIN,
						  (unsigned long)IPOIB_CM_RETRY_MAX);
			neigh->cm_retry_at = jiffies + neigh->cm_backoff;
			return NULL;
		}
		conn->path = neigh->path->rec;
		queue_work(ipoib_cm_wq, &conn->work);
	}
	rcu_assign_pointer(neigh->cm, conn);
	return conn;
}

/*
 * Unicast to a resolved neighbour in connected mode.  Returns false when
 * the caller should send over UD; otherwise the skb is consumed: sent,
 * held until the connection is up, or dropped and counted.  Under
 * rcu_read_lock() and netif_tx_lock.
 */
bool ipoib_cm_xmit(struct ipoib_dev *priv, struct ipoib_neigh *neigh,
		   struct sk_buff *skb)
{
	struct ipoib_cm_conn *conn;

	if (ipoib_addr_is_multicast(neigh->daddr))
		return false;
	if (!peer_wants_cm(neigh->daddr))
		return ud_too_big(priv, skb);
	conn = rcu_dereference(neigh->cm);
	if (likely(conn && READ_ONCE(conn->state) == IPOIB_CM_LIVE &&
		   conn->can_send)) {
		ipoib_cm_send(priv, conn, skb);
		return true;
	}
	if (!rcu_access_pointer(neigh->ah))
		return false;	/* the path comes first */

	spin_lock_bh(&priv->lock);
	if (neigh->dead || !ipoib_cm_active(priv)) {
		spin_unlock_bh(&priv->lock);
		return ud_too_big(priv, skb);
	}
	conn = conn_for(priv, neigh);
	if (!conn) {
		spin_unlock_bh(&priv->lock);
		return ud_too_big(priv, skb);
	}
	if (conn->state == IPOIB_CM_LIVE) {
		spin_unlock_bh(&priv->lock);
		ipoib_cm_send(priv, conn, skb);
		return true;
	}
	if (skb_queue_len(&conn->queue) >= IPOIB_CM_MAX_QUEUED) {
		spin_unlock_bh(&priv->lock);
		ipoib_tx_drop(priv, skb, IPOIB_CNT_CM_TX_DROP_QUEUE);
		return true;
	}
	ipoib_push_pseudo_header(skb, neigh->daddr);
	__skb_queue_tail(&conn->queue, skb);
	spin_unlock_bh(&priv->lock);
	return true;
}

/* A packet for a neighbour not made yet: only the size matters here. */
bool ipoib_cm_xmit_new(struct ipoib_dev *priv, struct sk_buff *skb,
		       const u8 *daddr)
{
	if (ipoib_addr_is_multicast(daddr) || peer_wants_cm(daddr))
		return false;
	return ud_too_big(priv, skb);
}
