// SPDX-License-Identifier: GPL-2.0
/*
 * What both modes do with a received buffer: a completion error told and
 * counted, a small packet copied into an skb of its own, a larger one's
 * pages made its skb, each packet checked, counted and handed to GRO or
 * the stack, drops counted, and at teardown the wait for a ring's buffers
 * to come back.  The UD data path (ipoib_ib.c) and connected-mode receive
 * (ipoib_cm_rx.c) keep only what differs: their rings, the shape of their
 * buffers and what a completion says about the sender.
 */
#include <linux/delay.h>
#include <net/gro.h>
#include "ipoib.h"
#include "ipoib_rx.h"
#include "ipoib_rx_pages.h"

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
 * A small packet, copied from data (where the HCA wrote it, at addr) into
 * an skb of its own: the buffer stays posted as it is.  The skb has a
 * kmalloc'd head: on 6.1, napi_alloc_skb() cuts heads this small from a
 * page of their own, a new page (zeroed under init_on_alloc, Debian's
 * default) every fourth packet, and that cost connected-mode
 * request/response 3% (tests/bench/README.md, "Request/response, both
 * drivers at once").
 */
struct sk_buff *ipoib_rx_copy(struct ipoib_dev *priv, const void *data,
			      u64 addr, unsigned int len)
{
	struct sk_buff *skb = netdev_alloc_skb_ip_align(priv->dev, len);

	if (unlikely(!skb))
		return NULL;
	ib_dma_sync_single_for_cpu(priv->ca, addr, len, DMA_FROM_DEVICE);
	skb_put_data(skb, data, len);
	ib_dma_sync_single_for_device(priv->ca, addr, len, DMA_FROM_DEVICE);
	return skb;
}

/*
 * A page of rp (mapped at addr) becomes the head of the packet's skb, the
 * packet len bytes from headroom on; the page goes back to the pool when
 * the stack frees the skb.  NULL when no skb could be made: the page is
 * still the caller's.
 */
struct sk_buff *ipoib_rx_page_skb(struct ipoib_dev *priv,
				  struct ipoib_rx_pages *rp, struct page *page,
				  u64 addr, unsigned int headroom,
				  unsigned int len)
{
	struct sk_buff *skb;

	ipoib_rx_page_sync(priv, addr + headroom, len);
	skb = napi_build_skb(page_address(page), PAGE_SIZE << rp->order);
	if (unlikely(!skb))
		return NULL;
	skb_reserve(skb, headroom);
	skb_put(skb, len);
	ipoib_rx_page_to_stack(rp, skb, addr);
	return skb;
}

/*
 * A page of rp (mapped at addr) with size bytes of the packet becomes the
 * skb's next fragment, to go back to the pool with the skb.
 */
void ipoib_rx_page_frag(struct ipoib_dev *priv, struct ipoib_rx_pages *rp,
			struct sk_buff *skb, struct page *page, u64 addr,
			unsigned int size)
{
	ipoib_rx_page_sync(priv, addr, size);
	ipoib_rx_page_to_stack(rp, skb, addr);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page, 0, size);
	skb->len += size;
	skb->data_len += size;
	skb->truesize += PAGE_SIZE << rp->order;
}

/*
 * Softirq, skb->data at the payload of an ARP packet: may the stack have
 * it?  One that is not RFC 4391's, or whose sender address no packet can
 * go to, would only fill the neighbour table with addresses we cannot use.
 * Out of line, as is the next: where the kernel zeroes stack variables,
 * their buffers would otherwise be cleared for every packet.
 */
static noinline bool rx_arp_acceptable(struct ipoib_dev *priv,
				       struct sk_buff *skb)
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
static noinline void rx_note_sender_lid(struct ipoib_dev *priv,
					struct sk_buff *skb,
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
 * A small packet seldom merges with anything, and GRO would hold it until
 * the poll ends: when GRO holds nothing it goes up at once.  Otherwise it
 * queues behind what GRO holds, so that a flow stays in order.
 */
static void rx_hand_up(struct napi_struct *napi, struct sk_buff *skb)
{
	if (skb->len <= IPOIB_RX_COPYBREAK && ipoib_napi_gro_empty(napi))
		netif_receive_skb(skb);
	else
		napi_gro_receive(napi, skb);
}

/*
 * From a NAPI poll, the UD one or connected mode's: skb->data at the IPoIB
 * header, the sender's pseudo header before it.  To the stack, counted;
 * false when dropped (and counted as such).
 */
bool ipoib_rx_to_stack(struct ipoib_dev *priv, struct sk_buff *skb,
		       unsigned char pkt_type, const struct ib_wc *wc,
		       struct napi_struct *napi)
{
	struct net_device *dev = priv->dev;
	struct ipoib_ring_stats *stats;
	__be16 proto;

	proto = ((struct ipoib_header *)skb->data)->proto;
	skb_pull(skb, IPOIB_ENCAP_LEN);
	skb_reset_network_header(skb);
	skb->protocol = proto;
	if (unlikely(proto == htons(ETH_P_ARP) &&
		     !rx_arp_acceptable(priv, skb))) {
		ipoib_rx_drop(priv, skb, IPOIB_CNT_RX_DROP_BAD_ARP);
		return false;
	}
	if (unlikely(ipoib_is_addr_resolution(skb, proto, 0)))
		rx_note_sender_lid(priv, skb, wc);
	skb->pkt_type = pkt_type;
	skb->dev = dev;
	if ((wc->wc_flags & IB_WC_IP_CSUM_OK) &&
	    likely(dev->features & NETIF_F_RXCSUM)) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		ipoib_count(priv, IPOIB_CNT_RX_CSUM_OK);
	}

	stats = this_cpu_ptr(priv->rx_stats);
	u64_stats_update_begin(&stats->syncp);
	stats->packets++;
	stats->bytes += skb->len;
	if (pkt_type != PACKET_HOST)
		stats->multicast++;
	u64_stats_update_end(&stats->syncp);
	rx_hand_up(napi, skb);
	return true;
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
