// SPDX-License-Identifier: GPL-2.0
/*
 * Where a packet goes: the neighbour's connection, its UD address, or the
 * slow path that resolves it (a path, a join, a connection to set up).
 *
 * Packets that waited for a resolution come back through one queue,
 * priv->staged (ipoib_tx.c), and one function here drains it under the
 * transmit lock, as ndo_start_xmit sends: never through dev_queue_xmit()
 * again, so a packet crosses the qdisc once, and the UD ring's room is
 * checked the one way.  Lock order: the transmit lock, then staged.lock.
 *
 * Several TX queues: TX queue 0 (its lock is "the transmit lock") is the
 * UD QP's and takes every kind of packet.  The others each have a send
 * queue of their own (ipoib_ib.c) and take only datagram mode's unicast
 * to a neighbour whose address handle is ready, and in connected mode
 * the packets of the live connections given that queue (ipoib_cm_tx.c);
 * ndo_select_queue sends everything else to queue 0, and what changed in
 * between goes there through the staged queue.  Queue 0's lock may be
 * held while a further queue's is taken, never the other way round: a
 * further queue hands what it cannot send to a work item.
 */
#include <linux/netpoll.h>
#include "ipoib_cm.h"
#include "ipoib_ib.h"
#include "ipoib_multicast.h"
#include "ipoib_neigh.h"
#include "ipoib_netpoll.h"
#include "ipoib_path.h"
#include "ipoib_tx.h"
#include "ipoib_xmit.h"

/* skb->data at the pseudo header; under the transmit lock. */
static void xmit(struct ipoib_dev *priv, struct sk_buff *skb)
{
	struct ipoib_neigh *neigh;
	struct ipoib_ah *ah;
	const u8 *daddr;

	if (unlikely(skb->len < IPOIB_HARD_LEN)) {
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_BAD_ADDR);
		return;
	}
	daddr = skb->data;
	skb_pull(skb, IPOIB_PSEUDO_LEN);

	rcu_read_lock();
	neigh = ipoib_neigh_find(priv, daddr);
	if (likely(neigh)) {
		if (ipoib_cm_active(priv) && ipoib_cm_xmit(priv, neigh, skb)) {
			rcu_read_unlock();
			return;
		}
		ah = rcu_dereference(neigh->ah);
		if (likely(ah)) {
			ipoib_neigh_touch(neigh);
			ipoib_ud_send(priv, skb, ah, neigh->qpn);
			rcu_read_unlock();
			return;
		}
	}
	rcu_read_unlock();

	/* Only the slow paths make neighbours: check the address once, here. */
	if (unlikely(!ipoib_addr_sendable(daddr, priv->pkey))) {
		net_info_ratelimited("%s: dropping a packet to the malformed link address %*phN\n",
				     priv->dev->name, IPOIB_ALEN, daddr);
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_BAD_ADDR);
		return;
	}
	if (ipoib_addr_is_multicast(daddr))
		ipoib_mcast_send(priv, skb, daddr);
	else if (!ipoib_cm_active(priv) || !ipoib_cm_xmit_new(priv, skb, daddr))
		ipoib_xmit_unicast_slow(priv, skb, daddr);
}

/* A unicast whose address handle is ready: a further send queue takes it. */
static struct ipoib_neigh *sendq_neigh(struct ipoib_dev *priv,
				       const u8 *daddr)
{
	struct ipoib_neigh *neigh;

	if (ipoib_mode_connected(priv) || ipoib_addr_is_multicast(daddr))
		return NULL;
	neigh = ipoib_neigh_find(priv, daddr);
	return neigh && rcu_access_pointer(neigh->ah) ? neigh : NULL;
}

/*
 * ndo_select_queue.  skb->data is at the pseudo header.  In connected
 * mode, the queue of the connection the packet goes on; otherwise XPS's
 * choice, or the flow's hash, among all queues for what any queue can
 * send.  Queue 0 for the rest, and for netpoll, which sends with queue
 * 0's state.
 */
u16 ipoib_select_queue(struct net_device *dev, struct sk_buff *skb,
		       struct net_device *sb_dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	struct ipoib_neigh *neigh;
	u16 q = 0;

	if (dev->real_num_tx_queues == 1 || netpoll_tx_running(dev) ||
	    skb->len < IPOIB_HARD_LEN)
		return 0;
	rcu_read_lock();
	if (ipoib_cm_active(priv)) {
		neigh = ipoib_neigh_find(priv, skb->data);
		if (neigh)
			q = ipoib_cm_select_queue(neigh, skb);
	} else if (sendq_neigh(priv, skb->data)) {
		q = netdev_pick_tx(dev, skb, sb_dev);
	}
	rcu_read_unlock();
	return q < dev->real_num_tx_queues ? q : 0;
}

/* Datagram mode's unicast to a resolved neighbour; under RCU. */
static bool sendq_ud(struct ipoib_dev *priv, unsigned int txq,
		     struct sk_buff *skb)
{
	struct ipoib_neigh *neigh = sendq_neigh(priv, skb->data);
	struct ipoib_ah *ah = neigh ? rcu_dereference(neigh->ah) : NULL;

	if (unlikely(!ah))
		return false;
	ipoib_neigh_touch(neigh);
	skb_pull(skb, IPOIB_PSEUDO_LEN);
	ipoib_sendq_send(priv, txq, skb, ah, neigh->qpn);
	return true;
}

/* A live connection of this queue; under RCU. */
static bool sendq_cm(struct ipoib_dev *priv, unsigned int txq,
		     struct sk_buff *skb)
{
	struct ipoib_neigh *neigh = ipoib_neigh_find(priv, skb->data);

	return neigh && ipoib_cm_xmit_txq(priv, txq, neigh, skb);
}

/* On TX queue txq >= 1, whose lock we hold. */
static void xmit_sendq(struct ipoib_dev *priv, unsigned int txq,
		       struct sk_buff *skb)
{
	bool sent = false;

	rcu_read_lock();
	if (likely(skb->len >= IPOIB_HARD_LEN))
		sent = ipoib_cm_active(priv) ? sendq_cm(priv, txq, skb) :
					       sendq_ud(priv, txq, skb);
	rcu_read_unlock();
	if (likely(sent))
		return;
	/*
	 * Gone or changed since ndo_select_queue: queue 0's, from process
	 * context, as its lock may not be taken under this one.
	 */
	skb_queue_tail(&priv->staged, skb);
	queue_work(system_wq, &priv->staged_task);
}

/*
 * Under the transmit lock: what waited goes out, in order, while we may
 * send.  The lower layers reach it through priv->xmit_staged
 * (ipoib_send_staged() in ipoib_tx.c).
 */
void ipoib_xmit_staged(struct ipoib_dev *priv)
{
	struct netdev_queue *txq = netdev_get_tx_queue(priv->dev, 0);
	struct sk_buff *skb;

	ipoib_assert_tx_locked(priv);
	while (!netif_xmit_stopped(txq) &&
	       (skb = skb_dequeue(&priv->staged)) != NULL)
		xmit(priv, skb);
}

netdev_tx_t ipoib_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	unsigned int txq = skb_get_queue_mapping(skb);

	if (txq) {
		xmit_sendq(priv, txq, skb);
		return NETDEV_TX_OK;
	}
	/* Interrupts off: netpoll's Ethernet frame (ipoib_netpoll.c). */
	if (unlikely(netpoll_tx_running(dev))) {
		ipoib_netpoll_xmit(priv, skb);
		return NETDEV_TX_OK;
	}
	/* Packets that waited go first: they are older. */
	if (unlikely(!skb_queue_empty_lockless(&priv->staged))) {
		skb_queue_tail(&priv->staged, skb);
		ipoib_xmit_staged(priv);
		return NETDEV_TX_OK;
	}
	xmit(priv, skb);
	/* The slow path may have found packets ready to go. */
	if (unlikely(!skb_queue_empty_lockless(&priv->staged)))
		ipoib_xmit_staged(priv);
	return NETDEV_TX_OK;
}
