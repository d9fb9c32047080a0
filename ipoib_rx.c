// SPDX-License-Identifier: GPL-2.0
/*
 * What both modes do with a received packet: small ones copied into an skb
 * of their own, and each packet checked, counted and handed to GRO or the
 * stack.  The UD data path (ipoib_ib.c) and connected-mode receive
 * (ipoib_cm_rx.c) keep only what differs: their rings and what a
 * completion says about the sender.
 */
#include <net/gro.h>
#include "ipoib.h"
#include "ipoib_rx.h"

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
	ipoib_count(priv, IPOIB_CNT_RX_DROP_BAD_ARP);
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
 * The skb a small packet is copied into, with a kmalloc'd head: on 6.1,
 * napi_alloc_skb() cuts heads this small from a page of their own, a new
 * page (zeroed under init_on_alloc, Debian's default) every fourth packet,
 * and that cost connected-mode request/response 3% (tests/bench/README.md,
 * "Request/response, both drivers at once").
 */
struct sk_buff *ipoib_rx_small_skb(struct ipoib_dev *priv, unsigned int len)
{
	return netdev_alloc_skb_ip_align(priv->dev, len);
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
		atomic_long_inc(&priv->rx_dropped);
		dev_kfree_skb_any(skb);
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
