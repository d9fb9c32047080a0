// SPDX-License-Identifier: GPL-2.0
/*
 * Packets too big for where they must go.  The transmit path finds them
 * with one of the interface's TX queue locks held, and the ICMP "fragmentation
 * needed" or ICMPv6 "packet too big" it owes their sender (RFC 4755 7.2)
 * may leave through this same interface: on a router, or for a peer
 * reached through one.  Sent there, that ICMP's own transmit would take
 * the lock this CPU holds, or on PREEMPT_RT the qdisc's busylock held
 * around us.  So the packet waits on priv->too_big and a work item sends
 * the ICMP with none of our locks held; the route learns the MTU at once,
 * so that local senders size their next packets before the ICMP is out.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <net/dst.h>
#include <net/icmp.h>
#include "ipoib.h"
#include "ipoib_pmtu.h"

/* ICMPs owed at once; past that, packets are only dropped and counted. */
#define IPOIB_TOO_BIG_QUEUED	64

/* What a waiting packet carries in skb->cb: ours once off the qdisc. */
struct too_big_cb {
	unsigned int mtu;
};

static struct too_big_cb *too_big_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct too_big_cb) > sizeof(skb->cb));
	return (struct too_big_cb *)skb->cb;
}

/*
 * Under a TX queue's lock: skb (IPoIB header at skb->data) is bigger than
 * mtu, the IPoIB payload its destination takes.  It is dropped, counted,
 * and its sender is told later.  Consumes the skb.
 */
void ipoib_too_big(struct ipoib_dev *priv, struct sk_buff *skb,
		   unsigned int mtu)
{
	ipoib_count(priv, IPOIB_CNT_TX_DROP_TOO_BIG);
	atomic_long_inc(&priv->tx_dropped);
	if ((skb->protocol != htons(ETH_P_IP) &&
	     skb->protocol != htons(ETH_P_IPV6)) ||
	    skb_queue_len_lockless(&priv->too_big) >= IPOIB_TOO_BIG_QUEUED) {
		dev_kfree_skb_any(skb);
		return;
	}
	skb_dst_update_pmtu_no_confirm(skb, mtu);
	too_big_cb(skb)->mtu = mtu;
	skb_queue_tail(&priv->too_big, skb);
	queue_work(system_wq, &priv->too_big_task);
}

/* Send the ICMPs owed; never with a TX queue's lock held. */
static void too_big_signal(struct ipoib_dev *priv)
{
	struct sk_buff *skb;
	unsigned int q;

	for (q = 0; q < priv->dev->num_tx_queues; q++)
		lockdep_assert_not_held(&netdev_get_tx_queue(priv->dev, q)->_xmit_lock);
	while ((skb = skb_dequeue(&priv->too_big))) {
		unsigned int mtu = too_big_cb(skb)->mtu;

		if (skb->protocol == htons(ETH_P_IP))
			icmp_ndo_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED,
				      htonl(mtu));
		else
			icmpv6_ndo_send(skb, ICMPV6_PKT_TOOBIG, 0, mtu);
		ipoib_count(priv, IPOIB_CNT_CM_PMTU_SIGNALS);
		consume_skb(skb);
	}
}

void ipoib_too_big_task(struct work_struct *work)
{
	too_big_signal(container_of(work, struct ipoib_dev, too_big_task));
}

/*
 * The interface went down (nothing sends any more): what is owed goes
 * now, so that no packet outlives the device holding its route.
 */
void ipoib_too_big_flush(struct ipoib_dev *priv)
{
	cancel_work_sync(&priv->too_big_task);
	too_big_signal(priv);
}
