// SPDX-License-Identifier: GPL-2.0
/*
 * Connected-mode transmit: which way a unicast packet goes (the peer's
 * connection, or UD), posting it on an RC/UC QP, and holding each packet
 * to what its destination can take (RFC 4755 7.2): a bigger one goes to
 * ipoib_too_big(), whose ICMP lets path MTU discovery adapt instead of
 * packets vanishing.  Multicast and broadcast never come here; ARP and ND
 * go back to UD.
 */
#include <net/ndisc.h>
#include "ipoib_cm.h"
#include "ipoib_pmtu.h"
#include "ipoib_tx.h"
#include "ipoib_waitq.h"

/* Payload of the packet: skb->data is at the IPoIB header. */
static unsigned int payload_len(const struct sk_buff *skb)
{
	return skb->len - IPOIB_ENCAP_LEN;
}

/*
 * Going over UD: true when the packet was too big and is dealt with.  The
 * limit is the broadcast group's: a datagram-mode peer may be on a port
 * or a partition that takes no more, whatever our port could send.
 */
static bool ud_too_big(struct ipoib_dev *priv, struct sk_buff *skb)
{
	unsigned int mtu = ipoib_ud_group_mtu(priv);

	if (skb_is_gso(skb) || payload_len(skb) <= mtu)
		return false;
	ipoib_too_big(priv, skb, mtu);
	return true;
}

static void post_one(struct ipoib_dev *priv, struct ipoib_cm_conn *conn,
		     struct sk_buff *skb);

/* What waited for room goes out, while it fits. */
static void backlog_drain(struct ipoib_dev *priv, struct ipoib_cm_conn *conn)
{
	struct sk_buff *skb;

	ipoib_assert_tx_locked(priv);
	while (READ_ONCE(conn->state) == IPOIB_CM_LIVE &&
	       ipoib_tx_room(&conn->tx) &&
	       (skb = ipoib_waitq_pop(priv, &conn->backlog)))
		post_one(priv, conn, skb);
}

/* From the connected-mode poll (NAPI); a QP's sends complete in order. */
static void tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ipoib_cm_conn *conn = wc->qp->qp_context;
	struct ipoib_dev *priv = conn->priv;
	struct ipoib_tx_slot *slot =
		container_of(wc->wr_cqe, struct ipoib_tx_slot, cqe);
	struct netdev_queue *txq;

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
	ipoib_tx_release(priv, &conn->tx, slot, 0);

	/* Only this connection's own packets wait: never the queue. */
	smp_mb();	/* pairs with the one in cm_send() */
	if (likely(ipoib_waitq_empty(&conn->backlog)))
		return;
	txq = netdev_get_tx_queue(priv->dev, 0);
	__netif_tx_lock(txq, smp_processor_id());
	backlog_drain(priv, conn);
	__netif_tx_unlock(txq);
}

/* With room: post one packet on the QP. */
static void post_one(struct ipoib_dev *priv, struct ipoib_cm_conn *conn,
		     struct sk_buff *skb)
{
	struct ipoib_tx_slot *slot = ipoib_tx_claim(priv, &conn->tx, skb);
	struct ib_send_wr wr = {
		.sg_list = conn->tx_sge,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	unsigned int len = skb->len;
	int n;

	ipoib_assert_tx_locked(priv);
	if (unlikely(!slot))
		return;
	n = ipoib_tx_load(priv, slot, skb, 0, conn->tx_sge);
	if (unlikely(n < 0))
		return;
	wr.num_sge = n;
	wr.wr_cqe = &slot->cqe;
	slot->cqe.done = tx_done;
	if (!ipoib_tx_posted(priv, &conn->tx, slot, len,
			     ib_post_send(conn->qp, &wr, NULL)))
		ipoib_count(priv, IPOIB_CNT_CM_TX_PACKETS);
}

/*
 * A packet (IPoIB header at skb->data) for a live connection, under the
 * transmit lock: posted, or kept in the connection's backlog while its
 * ring is full (ipoib_waitq.c's limit and policy).  Consumes the skb.
 */
static void cm_send(struct ipoib_dev *priv, struct ipoib_cm_conn *conn,
		    struct sk_buff *skb)
{
	if (unlikely(payload_len(skb) > conn->mtu)) {
		ipoib_too_big(priv, skb, conn->mtu);
		return;
	}
	/* The ring comes with the first send: many connections never send. */
	if (unlikely(!conn->tx.slots) &&
	    (WARN_ON_ONCE(!conn->can_send) ||
	     ipoib_tx_ring_init(&conn->tx, conn->sq_size, GFP_ATOMIC))) {
		ipoib_tx_drop(priv, skb, IPOIB_CNT_CM_TX_DROP_NO_MEM);
		return;
	}
	ipoib_cm_touch(conn);
	if (likely(ipoib_tx_room(&conn->tx) &&
		   ipoib_waitq_empty(&conn->backlog))) {
		post_one(priv, conn, skb);
		return;
	}
	ipoib_count(priv, IPOIB_CNT_CM_TX_BACKLOGGED);
	ipoib_waitq_add(priv, &conn->backlog, skb, NULL);
	/* A completion may have found the backlog empty just before. */
	smp_mb();	/* pairs with the one in tx_done() */
	backlog_drain(priv, conn);
}

/* Address resolution must not hang on a connection that is stuck. */
static bool is_addr_resolution(const struct sk_buff *skb)
{
	const struct ipoib_header *hdr = (const void *)skb->data;

	return ipoib_is_addr_resolution(skb, hdr->proto, IPOIB_ENCAP_LEN);
}

/* Does the peer's address say it takes connections we can make? */
static bool peer_wants_cm(const u8 *daddr)
{
	return ipoib_addr_flags(daddr) & ipoib_cm_addr_flags();
}

/*
 * A connection for this neighbour, found or started.  Returns NULL when
 * the packet should go over UD for now.
 */
static struct ipoib_cm_conn *conn_for(struct ipoib_dev *priv,
				      struct ipoib_neigh *neigh,
				      struct ipoib_cm_peer *cp)
{
	struct ipoib_cm_conn *conn;

	lockdep_assert_held(&priv->lock);
	conn = rcu_dereference_protected(cp->tx, lockdep_is_held(&priv->lock));
	if (conn && conn->state != IPOIB_CM_DEAD)
		return conn;
	conn = ipoib_cm_find_sendable(cp);
	if (!conn) {
		if (time_before(jiffies, cp->retry_at) || !neigh->path ||
		    !neigh->path->valid)
			return NULL;
		conn = ipoib_cm_conn_start(priv, neigh, cp);
		if (!conn) {
			/* No room now: datagrams for a while. */
			cp->backoff = ipoib_backoff_next(cp->backoff,
							 IPOIB_CM_RETRY_MIN,
							 IPOIB_CM_RETRY_MAX);
			cp->retry_at = jiffies + cp->backoff;
			return NULL;
		}
		conn->path = neigh->path->rec;
		queue_work(ipoib_cm_wq, &conn->work);
	}
	rcu_assign_pointer(cp->tx, conn);
	return conn;
}

/*
 * The neighbour's entry in the peer table, found or made and then kept
 * (a reference the neighbour drops when it dies); NULL without memory.
 */
static struct ipoib_cm_peer *neigh_peer(struct ipoib_dev *priv,
					struct ipoib_neigh *neigh)
{
	struct ipoib_cm_peer *cp;

	lockdep_assert_held(&priv->lock);
	cp = rcu_dereference_protected(neigh->cm_peer,
				       lockdep_is_held(&priv->lock));
	if (cp)
		return cp;
	cp = ipoib_cm_peer_get(priv, neigh->daddr);
	if (cp)
		rcu_assign_pointer(neigh->cm_peer, cp);
	return cp;
}

/*
 * Unicast to a resolved neighbour in connected mode.  Returns false when
 * the caller should send over UD; otherwise the skb is consumed: sent,
 * held until the connection is up, or dropped and counted.
 */
bool ipoib_cm_xmit(struct ipoib_dev *priv, struct ipoib_neigh *neigh,
		   struct sk_buff *skb)
{
	struct ipoib_cm_conn *conn = NULL;
	struct ipoib_cm_peer *cp;

	ipoib_assert_tx_locked(priv);
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "connected-mode send outside RCU");
	if (ipoib_addr_is_multicast(neigh->daddr) || is_addr_resolution(skb))
		return false;
	if (!peer_wants_cm(neigh->daddr))
		return ud_too_big(priv, skb);
	cp = rcu_dereference(neigh->cm_peer);
	if (likely(cp))
		conn = rcu_dereference(cp->tx);
	if (likely(conn && READ_ONCE(conn->state) == IPOIB_CM_LIVE &&
		   conn->can_send)) {
		ipoib_neigh_touch(neigh);
		cm_send(priv, conn, skb);
		return true;
	}
	if (!rcu_access_pointer(neigh->ah))
		return false;	/* the path comes first */

	spin_lock_bh(&priv->lock);
	if (neigh->dead || !ipoib_cm_active(priv)) {
		spin_unlock_bh(&priv->lock);
		return ud_too_big(priv, skb);
	}
	cp = neigh_peer(priv, neigh);
	conn = cp ? conn_for(priv, neigh, cp) : NULL;
	if (!conn) {
		spin_unlock_bh(&priv->lock);
		return ud_too_big(priv, skb);
	}
	if (conn->state == IPOIB_CM_LIVE) {
		spin_unlock_bh(&priv->lock);
		ipoib_neigh_touch(neigh);
		cm_send(priv, conn, skb);
		return true;
	}
	/*
	 * A try after a failure (the peer did not answer, say): datagrams
	 * until it is up, rather than another wait of up to
	 * IPOIB_CM_CONNECT_TIMEOUT.  Only a first try holds packets.
	 */
	if (cp->backoff) {
		spin_unlock_bh(&priv->lock);
		return ud_too_big(priv, skb);
	}
	ipoib_waitq_add(priv, &conn->queue, skb, neigh->daddr);
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
