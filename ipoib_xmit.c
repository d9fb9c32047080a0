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
