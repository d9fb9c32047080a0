// SPDX-License-Identifier: GPL-2.0
/*
 * What both modes do with a received buffer.  The steps every packet
 * takes (copy-break, the skb made of the buffer's pages, GRO or the stack,
 * the counts) are inline in ipoib_rx.h; here is what is out of line: a
 * completion error told and counted, a drop counted, the ARP check and the
 * sender's LID noted, and at teardown the wait for a ring's buffers to
 * come back.  The UD data path (ipoib_ib.c) and connected-mode receive
 * (ipoib_cm_rx.c) keep only what differs: their rings, the shape of their
 * buffers and what a completion says about the sender.
 */
#include <linux/delay.h>
#include "ipoib.h"
#include "ipoib_rx.h"

#define IPOIB_RX_DRAIN_TIMEOUT	(5 * HZ)

/*
 * A receive that completed in error.  A flush is the QP going down, said
 * nowhere; anything else is counted, and told once for each mode.  True
 * for the latter: the caller decides what the buffer and the QP become.
 */
bool ipoib_rx_failed(struct ipoib_dev *priv, const struct ib_wc *wc,
		     enum ipoib_rx_mode mode)
{
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		return false;
	if (mode == IPOIB_RX_CM) {
		netdev_warn_once(priv->dev, "connected-mode receive error %d (%s)\n",
				 wc->status, ib_wc_status_msg(wc->status));
		ipoib_count(priv, IPOIB_CNT_CM_ERRORS_WC);
	} else {
		netdev_warn_once(priv->dev, "receive completion error %d (%s)\n",
				 wc->status, ib_wc_status_msg(wc->status));
		ipoib_count(priv, IPOIB_CNT_RX_ERRORS_WC);
	}
	atomic_long_inc(&priv->rx_errors);
	return true;
}

/* A packet that does not go up, counted; skb may be NULL (none made). */
void ipoib_rx_drop(struct ipoib_dev *priv, struct sk_buff *skb,
		   enum ipoib_counter why)
{
	ipoib_count(priv, why);
	atomic_long_inc(&priv->rx_dropped);
	dev_kfree_skb_any(skb);
}

/*
 * Softirq, skb->data at the payload of an ARP packet: may the stack have
 * it?  One that is not RFC 4391's, or whose sender address no packet can
 * go to, would only fill the neighbour table with addresses we cannot use.
 * Out of line, as is the next: where the kernel zeroes stack variables,
 * their buffers would otherwise be cleared for every packet.
 */
bool ipoib_rx_arp_acceptable(struct ipoib_dev *priv, struct sk_buff *skb)
{
	u8 buf[IPOIB_ARP_LEN];
	const u8 *arp;

	arp = skb_header_pointer(skb, 0, sizeof(buf), buf);
	if (arp && ipoib_arp_acceptable(arp, skb->len))
		return true;
	net_info_ratelimited("%s: dropped an ARP packet that is not IPoIB's or names a sender address nothing can be sent to\n",
			     priv->dev->name);
	return false;
}

/*
 * A peer that resolves addresses, or answers, tells us where it is now:
 * the GID of its GRH (multicast) or of its ARP sender address, and the
 * LID the packet came from.  A peer whose LID changed announces itself
 * (gratuitous ARP, unsolicited NA) and so reaches us again here.
 */
void ipoib_rx_note_sender_lid(struct ipoib_dev *priv, struct sk_buff *skb,
			      const struct ib_wc *wc)
{
	u8 buf[IPOIB_ARP_FIXED_LEN + IPOIB_ALEN];
	const u8 *gid = NULL, *arp;

	if (wc->wc_flags & IB_WC_GRH) {
		gid = ipoib_addr_gid(skb_mac_header(skb));
	} else if (skb->protocol == htons(ETH_P_ARP)) {
		arp = skb_header_pointer(skb, 0, sizeof(buf), buf);
		if (arp)
			gid = ipoib_addr_gid(arp + IPOIB_ARP_FIXED_LEN);
	}
	if (gid)
		priv->check_sender_lid(priv, (const union ib_gid *)gid,
				       wc->slid);
}

/*
 * Teardown, the QP in error: every posted receive comes back flushed.
 * left() reaps what has come back, where the caller's context must, and
 * says how many requests are still out; wait until none are, or
 * IPOIB_RX_DRAIN_TIMEOUT has passed.  Returns how many are left.  Sleeps.
 */
unsigned int ipoib_rx_drain(unsigned int (*left)(void *ctx), void *ctx)
{
	unsigned long deadline = jiffies + IPOIB_RX_DRAIN_TIMEOUT;
	unsigned int n;

	might_sleep();
	while ((n = left(ctx)) && time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	return n;
}
