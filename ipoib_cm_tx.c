// SPDX-License-Identifier: GPL-2.0
/*
 * Connected-mode transmit: which way a unicast packet goes (the peer's
 * connection, or UD), posting it on an RC/UC QP, and holding each packet
 * to what its destination can take (RFC 4755 7.2): a bigger one goes to
 * ipoib_too_big(), whose ICMP lets path MTU discovery adapt instead of
 * packets vanishing.  Multicast and broadcast never come here; ARP and ND
 * go back to UD.
 *
 * Each connection posts under the lock of one netdev TX queue, its
 * tx.txq, given when we first send on it (conn_take_txq()) and kept for
 * its life, so that its packets are posted in the order they came.
 * ndo_select_queue sends a packet for a live connection to that queue;
 * what reaches a connection through TX queue 0 instead (packets that
 * waited for it, or chosen just before it came up) takes the
 * connection's queue's lock inside queue 0's (cm_send_from_q0()).
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

	ipoib_assert_txq_locked(priv, conn->tx.txq);
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
	txq = netdev_get_tx_queue(priv->dev, conn->tx.txq);
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

	ipoib_assert_txq_locked(priv, conn->tx.txq);
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
 * A packet (IPoIB header at skb->data) for a live connection, under its
 * TX queue's lock: posted, or kept in the connection's backlog while its
 * ring is full (ipoib_waitq.c's limit and policy).  Consumes the skb.
 */
static void cm_send(struct ipoib_dev *priv, struct ipoib_cm_conn *conn,
		    struct sk_buff *skb)
{
	ipoib_assert_txq_locked(priv, conn->tx.txq);
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

/*
 * Under TX queue 0's lock, for a connection of any queue: another
 * queue's lock is taken inside it.  Always queue 0's first: whoever holds
 * a further queue's lock takes no other (ipoib_xmit.c hands what that
 * queue cannot send to queue 0 through a work item), so the order never
 * inverts.  Not from netpoll, which never sends on a connection.
 */
static void cm_send_from_q0(struct ipoib_dev *priv,
			    struct ipoib_cm_conn *conn, struct sk_buff *skb)
{
	struct netdev_queue *txq;

	ipoib_assert_tx_locked(priv);
	if (likely(!conn->tx.txq)) {
		cm_send(priv, conn, skb);
		return;
	}
	ipoib_count(priv, IPOIB_CNT_CM_TX_VIA_QUEUE0);
	txq = netdev_get_tx_queue(priv->dev, conn->tx.txq);
	spin_lock_nested(&txq->_xmit_lock, SINGLE_DEPTH_NESTING);
	WRITE_ONCE(txq->xmit_lock_owner, smp_processor_id());
	cm_send(priv, conn, skb);
	WRITE_ONCE(txq->xmit_lock_owner, -1);
	spin_unlock(&txq->_xmit_lock);
}

/*
 * Address resolution must not hang on a connection that is stuck.  The
 * IPoIB header is at off.
 */
static bool is_addr_resolution(const struct sk_buff *skb, unsigned int off)
{
	const struct ipoib_header *hdr = (const void *)(skb->data + off);

	return ipoib_is_addr_resolution(skb, hdr->proto,
					off + IPOIB_ENCAP_LEN);
}

/* Does the peer's address say it takes connections we can make? */
static bool peer_wants_cm(const u8 *daddr)
{
	return ipoib_addr_flags(daddr) & ipoib_cm_addr_flags();
}

/*
 * The TX queue a connection posts on, for its life, given when it becomes
 * the one we send to its peer on (nothing was posted on it before): the
 * one XPS gives the CPU that sent this packet (CPU n, queue n modulo
 * their number, unless xps_cpus says otherwise), where a datagram from
 * that CPU would go.  Its packets are counted on that queue.
 */
static void conn_take_txq(struct ipoib_dev *priv, struct ipoib_cm_conn *conn,
			  struct sk_buff *skb)
{
	unsigned int q = 0;

	lockdep_assert_held(&priv->lock);
	if (priv->dev->real_num_tx_queues > 1)
		q = netdev_pick_tx(priv->dev, skb, NULL);
	if (WARN_ON_ONCE(q >= priv->dev->real_num_tx_queues))
		q = 0;
	conn->tx.txq = q;
	conn->tx.stats = q ? &priv->sendqs[q - 1].stats : NULL;
	ipoib_waitq_set_txq(&conn->backlog, q);
}

/*
 * A connection for this neighbour, found or started.  Returns NULL when
 * the packet should go over UD for now.
 */
static struct ipoib_cm_conn *conn_for(struct ipoib_dev *priv,
				      struct ipoib_neigh *neigh,
				      struct ipoib_cm_peer *cp,
				      struct sk_buff *skb)
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
	conn_take_txq(priv, conn, skb);
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
 * Under RCU: the neighbour's live connection this packet would go on,
 * whose IPoIB header is at off; NULL when it goes some other way.
 */
static struct ipoib_cm_conn *live_conn(struct ipoib_neigh *neigh,
				       const struct sk_buff *skb,
				       unsigned int off)
{
	struct ipoib_cm_conn *conn = NULL;
	struct ipoib_cm_peer *cp;

	if (ipoib_addr_is_multicast(neigh->daddr) ||
	    !peer_wants_cm(neigh->daddr) || is_addr_resolution(skb, off))
		return NULL;
	cp = rcu_dereference(neigh->cm_peer);
	if (likely(cp))
		conn = rcu_dereference(cp->tx);
	if (likely(conn && READ_ONCE(conn->state) == IPOIB_CM_LIVE &&
		   conn->can_send))
		return conn;
	return NULL;
}

/*
 * ndo_select_queue, under RCU, skb->data at the pseudo header: the TX
 * queue of the connection the packet goes on, 0 when there is none (yet).
 */
u16 ipoib_cm_select_queue(struct ipoib_neigh *neigh, const struct sk_buff *skb)
{
	struct ipoib_cm_conn *conn = live_conn(neigh, skb, IPOIB_PSEUDO_LEN);

	return conn ? conn->tx.txq : 0;
}

/*
 * On TX queue txq >= 1, under its lock, skb->data at the pseudo header: a
 * packet for a live connection of this queue is sent.  false otherwise
 * (its connection went, or came up on another queue): the caller hands
 * it to queue 0.
 */
bool ipoib_cm_xmit_txq(struct ipoib_dev *priv, unsigned int txq,
		       struct ipoib_neigh *neigh, struct sk_buff *skb)
{
	struct ipoib_cm_conn *conn = live_conn(neigh, skb, IPOIB_PSEUDO_LEN);

	ipoib_assert_txq_locked(priv, txq);
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "connected-mode send outside RCU");
	if (!conn || conn->tx.txq != txq)
		return false;
	ipoib_neigh_touch(neigh);
	skb_pull(skb, IPOIB_PSEUDO_LEN);
	cm_send(priv, conn, skb);
	return true;
}

/*
 * Unicast to a resolved neighbour in connected mode, under TX queue 0's
 * lock.  Returns false when the caller should send over UD; otherwise the
 * skb is consumed: sent, held until the connection is up, or dropped and
 * counted.
 */
bool ipoib_cm_xmit(struct ipoib_dev *priv, struct ipoib_neigh *neigh,
		   struct sk_buff *skb)
{
	struct ipoib_cm_conn *conn;
	struct ipoib_cm_peer *cp;

	ipoib_assert_tx_locked(priv);
	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(), "connected-mode send outside RCU");
	if (ipoib_addr_is_multicast(neigh->daddr) || is_addr_resolution(skb, 0))
		return false;
	if (!peer_wants_cm(neigh->daddr))
		return ud_too_big(priv, skb);
	conn = live_conn(neigh, skb, 0);
	if (likely(conn)) {
		ipoib_neigh_touch(neigh);
		cm_send_from_q0(priv, conn, skb);
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
	conn = cp ? conn_for(priv, neigh, cp, skb) : NULL;
	if (!conn) {
		spin_unlock_bh(&priv->lock);
		return ud_too_big(priv, skb);
	}
	if (conn->state == IPOIB_CM_LIVE) {
		spin_unlock_bh(&priv->lock);
		ipoib_neigh_touch(neigh);
		cm_send_from_q0(priv, conn, skb);
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
