/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_rx.c's functions for the driver's other files, and the steps of
 * receive both modes take for every packet, inline here so that the UD
 * and connected-mode polls pay no call for them: a small packet copied, a
 * larger one's pages made its skb, each checked, counted and handed to
 * GRO or the stack.
 */
#ifndef IPOIB_RX_H
#define IPOIB_RX_H

#include <net/gro.h>
#include "ipoib.h"
#include "ipoib_rx_pages.h"

/* Whose receive completed: their errors are told and counted apart. */
enum ipoib_rx_mode {
	IPOIB_RX_UD,
	IPOIB_RX_CM,
};

/* ipoib_rx.c */
bool ipoib_rx_failed(struct ipoib_dev *priv, const struct ib_wc *wc,
		     enum ipoib_rx_mode mode);
void ipoib_rx_drop(struct ipoib_dev *priv, struct sk_buff *skb,
		   enum ipoib_counter why);
bool ipoib_rx_arp_acceptable(struct ipoib_dev *priv, struct sk_buff *skb);
void ipoib_rx_note_sender_lid(struct ipoib_dev *priv, struct sk_buff *skb,
			      const struct ib_wc *wc);
unsigned int ipoib_rx_drain(unsigned int (*left)(void *ctx), void *ctx);

/*
 * A small packet, copied from data (where the HCA wrote it, at addr) into
 * an skb of its own: the buffer stays posted as it is.  The skb has a
 * kmalloc'd head: on 6.1, napi_alloc_skb() cuts heads this small from a
 * page of their own, a new page (zeroed under init_on_alloc, Debian's
 * default) every fourth packet, and that cost connected-mode
 * request/response 3% (tests/bench/README.md, "Request/response, both
 * drivers at once").
 */
static inline struct sk_buff *ipoib_rx_copy(struct ipoib_dev *priv,
					    const void *data, u64 addr,
					    unsigned int len)
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
static inline struct sk_buff *ipoib_rx_page_skb(struct ipoib_dev *priv,
						struct ipoib_rx_pages *rp,
						struct page *page, u64 addr,
						unsigned int headroom,
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
static inline void ipoib_rx_page_frag(struct ipoib_dev *priv,
				      struct ipoib_rx_pages *rp,
				      struct sk_buff *skb, struct page *page,
				      u64 addr, unsigned int size)
{
	ipoib_rx_page_sync(priv, addr, size);
	ipoib_rx_page_to_stack(rp, skb, addr);
	skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page, 0, size);
	skb->len += size;
	skb->data_len += size;
	skb->truesize += PAGE_SIZE << rp->order;
}

/*
 * A small packet seldom merges with anything, and GRO would hold it until
 * the poll ends: when GRO holds nothing it goes up at once.  Otherwise it
 * queues behind what GRO holds, so that a flow stays in order.
 */
static inline void ipoib_rx_hand_up(struct napi_struct *napi,
				    struct sk_buff *skb)
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
static inline bool ipoib_rx_to_stack(struct ipoib_dev *priv,
				     struct sk_buff *skb,
				     unsigned char pkt_type,
				     const struct ib_wc *wc,
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
		     !ipoib_rx_arp_acceptable(priv, skb))) {
		ipoib_rx_drop(priv, skb, IPOIB_CNT_RX_DROP_BAD_ARP);
		return false;
	}
	if (unlikely(ipoib_is_addr_resolution(skb, proto, 0)))
		ipoib_rx_note_sender_lid(priv, skb, wc);
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
	ipoib_rx_hand_up(napi, skb);
	return true;
}

#endif /* IPOIB_RX_H */
