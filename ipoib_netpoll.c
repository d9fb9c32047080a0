// SPDX-License-Identifier: GPL-2.0
/*
 * Sends from netpoll (netconsole).  netpoll builds an Ethernet frame
 * whatever the device, calls ndo_start_xmit with interrupts off and polls
 * our NAPI for the completions.  Its 6-byte destination cannot name an
 * IPoIB port, so the destination is the IP neighbour's link address when
 * the stack has resolved it, else (IPv4) the broadcast group; the packet
 * goes on UD (small log lines fit) and only to a destination whose address
 * handle is ready: nothing here may sleep, wait or take a _bh lock.
 */
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/arp.h>
#include <net/ndisc.h>
#include "ipoib.h"
#include "ipoib_ib.h"
#include "ipoib_neigh.h"
#include "ipoib_netpoll.h"
#include "ipoib_tx.h"

/*
 * A neighbour's address without waiting for its writer: netpoll may run
 * in an interrupt that came in on a writer on this CPU (netconsole prints
 * from anywhere), so neither a seqlock reader that spins nor its lockdep
 * class may be used.  A write in progress, or one while we copied, means
 * no address this time.
 */
static bool neigh_ha_nowait(struct neighbour *n, u8 *ha, unsigned int len)
{
	unsigned int seq = raw_read_seqcount(&n->ha_lock.seqcount);

	if (seq & 1)
		return false;
	memcpy(ha, n->ha, len);
	return !read_seqcount_retry(&n->ha_lock.seqcount, seq);
}

/*
 * The link address the stack holds for the packet's IP destination
 * (skb->data at the IP header; netpoll's frames are linear).
 */
static bool stack_lladdr(struct net_device *dev, __be16 proto,
			 const struct sk_buff *skb, u8 *ha)
{
	struct neighbour *n = NULL;
	bool found = false;

	rcu_read_lock();
	if (proto == htons(ETH_P_IP) && skb_headlen(skb) >= sizeof(struct iphdr))
		n = __ipv4_neigh_lookup_noref(dev, (__force u32)ip_hdr(skb)->daddr);
#if IS_ENABLED(CONFIG_IPV6)
	else if (proto == htons(ETH_P_IPV6) && skb_headlen(skb) >= sizeof(struct ipv6hdr))
		n = __ipv6_neigh_lookup_noref(dev, &ipv6_hdr(skb)->daddr);
#endif
	if (n && (READ_ONCE(n->nud_state) & NUD_VALID))
		found = neigh_ha_nowait(n, ha, dev->addr_len);
	rcu_read_unlock();
	return found;
}

/* Under the transmit lock, interrupts off; consumes the skb. */
void ipoib_netpoll_xmit(struct ipoib_dev *priv, struct sk_buff *skb)
{
	struct net_device *dev = priv->dev;
	struct ipoib_header *hdr;
	struct ipoib_neigh *neigh;
	u8 daddr[IPOIB_ALEN];
	struct ipoib_ah *ah;
	__be16 proto;

	if (unlikely(skb->len < ETH_HLEN ||
		     skb_network_offset(skb) != ETH_HLEN)) {
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_BAD_ADDR);
		return;
	}
	proto = ((struct ethhdr *)skb->data)->h_proto;
	skb_pull(skb, ETH_HLEN);
	if (!stack_lladdr(dev, proto, skb, daddr)) {
		if (proto != htons(ETH_P_IP)) {
			ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_NO_PATH);
			return;
		}
		memcpy(daddr, dev->broadcast, IPOIB_ALEN);
	}
	hdr = skb_push(skb, sizeof(*hdr));
	hdr->proto = proto;
	hdr->reserved = 0;
	skb_reset_mac_header(skb);

	rcu_read_lock();
	neigh = ipoib_neigh_find(priv, daddr);
	ah = neigh ? rcu_dereference(neigh->ah) : NULL;
	if (likely(ah))
		ipoib_ud_send(priv, skb, ah, neigh->qpn);
	else
		ipoib_tx_drop(priv, skb, IPOIB_CNT_TX_DROP_NO_PATH);
	rcu_read_unlock();
}
