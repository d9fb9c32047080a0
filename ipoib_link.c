// SPDX-License-Identifier: GPL-2.0
/*
 * The interface's link layer: the IPoIB header (header_ops), the link
 * address, the MTU rules of each mode and the statistics.  The net_device
 * that uses them (ops table, set-up) is ipoib_netdev.c's.
 */
#include "ipoib_cm.h"
#include "ipoib_link.h"

/*
 * The IPoIB header, and ahead of it the destination address for the
 * transmit path: a qdisc may own skb->cb, so the address rides in the
 * packet (RFC 4391 has no link-layer destination field on the wire).
 */
static int ipoib_hard_header(struct sk_buff *skb, struct net_device *dev,
			     unsigned short type, const void *daddr,
			     const void *saddr, unsigned int len)
{
	struct ipoib_header *hdr;

	hdr = skb_push(skb, sizeof(*hdr));
	hdr->proto = htons(type);
	hdr->reserved = 0;
	if (!daddr)
		return -IPOIB_HARD_LEN;
	ipoib_push_pseudo_header(skb, daddr);
	return IPOIB_HARD_LEN;
}

/* Received packets carry the sender's address where the pseudo header is. */
static IPOIB_HEADER_PARSE(ipoib_header_parse)
{
	memcpy(haddr, skb_mac_header(skb), IPOIB_ALEN);
	return IPOIB_ALEN;
}

const struct header_ops ipoib_header_ops = {
	.create = ipoib_hard_header,
	.parse = ipoib_header_parse,
};

/* Ours: only our interfaces have our header ops. */
bool ipoib_is_our_netdev(const struct net_device *dev)
{
	return dev->header_ops == &ipoib_header_ops;
}

/* What TX queue q sent: its UD send queue's and its connections'. */
void ipoib_tx_queue_stats(struct ipoib_dev *priv, unsigned int q,
			  u64 *packets, u64 *bytes)
{
	const struct ipoib_ring_stats *st = q ? &priv->sendqs[q - 1].stats :
						&priv->tx_stats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		*packets = st->packets;
		*bytes = st->bytes;
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

void ipoib_stats_fold(struct ipoib_dev *priv, struct rtnl_link_stats64 *s)
{
	unsigned int start, q;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct ipoib_ring_stats *rx = per_cpu_ptr(priv->rx_stats, cpu);
		u64 packets, bytes, multicast;

		do {
			start = u64_stats_fetch_begin(&rx->syncp);
			packets = rx->packets;
			bytes = rx->bytes;
			multicast = rx->multicast;
		} while (u64_stats_fetch_retry(&rx->syncp, start));
		s->rx_packets += packets;
		s->rx_bytes += bytes;
		s->multicast += multicast;
	}
	for (q = 0; q < priv->dev->num_tx_queues; q++) {
		u64 packets, bytes;

		ipoib_tx_queue_stats(priv, q, &packets, &bytes);
		s->tx_packets += packets;
		s->tx_bytes += bytes;
	}
	s->rx_dropped = atomic_long_read(&priv->rx_dropped);
	s->tx_dropped = atomic_long_read(&priv->tx_dropped);
	s->rx_errors = atomic_long_read(&priv->rx_errors);
	s->tx_errors = atomic_long_read(&priv->tx_errors);
}

int ipoib_set_umcast(struct ipoib_dev *priv, bool on)
{
	if (on)
		set_bit(IPOIB_UMCAST, &priv->flags);
	else
		clear_bit(IPOIB_UMCAST, &priv->flags);
	return 0;
}

/* The largest MTU the current mode allows on this port. */
unsigned int ipoib_mode_max_mtu(const struct ipoib_dev *priv)
{
	if (ipoib_mode_connected(priv))
		return ipoib_cm_rx_mtu(priv) - IPOIB_ENCAP_LEN;
	return ipoib_ud_payload_mtu(priv);
}

/*
 * Largest MTU the mode and, in datagram mode, the broadcast group allow.
 * Connected mode leaves it to each destination (ICMP "too big").
 */
unsigned int ipoib_usable_mtu(const struct ipoib_dev *priv)
{
	if (ipoib_mode_connected(priv))
		return ipoib_mode_max_mtu(priv);
	return min(priv->mcast_mtu, ipoib_mode_max_mtu(priv));
}

int ipoib_set_mtu_limits(struct ipoib_dev *priv)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(priv->ca, priv->port, &attr);
	if (ret) {
		netdev_warn(priv->dev, "cannot query port %u of %s for its MTU: %d\n",
			    priv->port, dev_name(&priv->ca->dev), ret);
		return ret;
	}
	priv->max_ib_mtu = ib_mtu_enum_to_int(attr.active_mtu);
	ipoib_set_local_lid(priv, &attr);
	priv->dev->max_mtu = ipoib_mode_max_mtu(priv);
	if (!priv->mcast_mtu)
		priv->mcast_mtu = ipoib_ud_mtu(priv->max_ib_mtu);
	return 0;
}

/*
 * The broadcast group or the port changed what we may use: follow it, but
 * never above what the user set.  Called with rtnl held.  dev_set_mtu()
 * tells the notifiers the old MTU too, which some of them read.
 */
void ipoib_update_mtu(struct ipoib_dev *priv)
{
	unsigned int admin = priv->admin_mtu;
	unsigned int mtu = min(admin, ipoib_usable_mtu(priv));
	int ret;

	ASSERT_RTNL();
	if (mtu > priv->dev->max_mtu)
		priv->dev->max_mtu = ipoib_mode_max_mtu(priv);
	if (priv->dev->mtu != mtu) {
		ret = dev_set_mtu(priv->dev, mtu);
		if (ret)
			netdev_warn(priv->dev, "cannot follow the fabric to MTU %u: %d\n",
				    mtu, ret);
	}
	priv->admin_mtu = admin;	/* following is not the user's choice */
	priv->dev->max_mtu = ipoib_mode_max_mtu(priv);
}

void ipoib_set_dev_addr(struct ipoib_dev *priv)
{
	u8 addr[IPOIB_ALEN];

	ipoib_addr_make(addr, ipoib_addr_flags(priv->dev->dev_addr), priv->qpn,
			priv->local_gid.raw);
	dev_addr_set(priv->dev, addr);
}

/* The QPN or GID changed; tell ARP/ND and the neighbours. */
void ipoib_update_dev_addr(struct ipoib_dev *priv)
{
	u8 old[IPOIB_ALEN];

	ASSERT_RTNL();
	memcpy(old, priv->dev->dev_addr, IPOIB_ALEN);
	ipoib_set_dev_addr(priv);
	if (memcmp(old, priv->dev->dev_addr, IPOIB_ALEN))
		call_netdevice_notifiers(NETDEV_CHANGEADDR, priv->dev);
}
