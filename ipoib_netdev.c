// SPDX-License-Identifier: GPL-2.0
/*
 * The net_device: set-up and teardown (ndo_init, ndo_uninit), its ops
 * table, the link-layer header, MTU rules, features and statistics.  Open
 * and stop are in ipoib_state.c, the transmit entry point in ipoib_xmit.c.
 */
#include <linux/if_arp.h>
#include <linux/etherdevice.h>
#include <rdma/ib_cache.h>
#include "ipoib.h"

static const struct net_device_ops ipoib_netdev_ops;

bool ipoib_is_our_netdev(const struct net_device *dev)
{
	return dev->netdev_ops == &ipoib_netdev_ops;
}

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

static const struct header_ops ipoib_header_ops = {
	.create = ipoib_hard_header,
	.parse = ipoib_header_parse,
};

static void ipoib_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	netdev_warn(dev, "transmit timed out with %u sends outstanding; resetting the data path\n",
		    ipoib_tx_outstanding(&priv->tx));
	ipoib_count(priv, IPOIB_CNT_TX_TIMEOUTS);
	queue_work(priv->wq, &priv->tx_recover_task);
}

void ipoib_stats_fold(struct ipoib_dev *priv, struct rtnl_link_stats64 *s)
{
	unsigned int start;
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
	do {
		start = u64_stats_fetch_begin(&priv->tx_stats.syncp);
		s->tx_packets = priv->tx_stats.packets;
		s->tx_bytes = priv->tx_stats.bytes;
	} while (u64_stats_fetch_retry(&priv->tx_stats.syncp, start));
	s->rx_dropped = atomic_long_read(&priv->rx_dropped);
	s->tx_dropped = atomic_long_read(&priv->tx_dropped);
	s->rx_errors = atomic_long_read(&priv->rx_errors);
	s->tx_errors = atomic_long_read(&priv->tx_errors);
}

static void ipoib_get_stats64(struct net_device *dev,
			      struct rtnl_link_stats64 *s)
{
	ipoib_stats_fold(ipoib_priv(dev), s);
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

static int ipoib_change_mtu(struct net_device *dev, int new_mtu)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	unsigned int limit = ipoib_usable_mtu(priv);

	if (new_mtu > limit) {
		if (ipoib_mode_connected(priv))
			netdev_warn(dev, "MTU %d refused: connected mode allows at most %u\n",
				    new_mtu, limit);
		else
			netdev_warn(dev, "MTU %d refused: datagram mode allows at most %u (IB MTU %u of the broadcast group, minus 4)\n",
				    new_mtu, limit, limit + IPOIB_ENCAP_LEN);
		return -EINVAL;
	}
	priv->admin_mtu = new_mtu;
	dev->mtu = new_mtu;
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

/*
 * Connected mode: RC and UC have no checksum or segmentation offload, and
 * a TSO packet could exceed a connection's MTU.
 */
static netdev_features_t ipoib_fix_features(struct net_device *dev,
					    netdev_features_t features)
{
	if (ipoib_mode_connected(ipoib_priv(dev)))
		features &= ~(NETIF_F_IP_CSUM | NETIF_F_TSO);
	return features;
}

static void ipoib_set_rx_mode(struct net_device *dev)
{
	ipoib_mcast_restart(ipoib_priv(dev));
}

static int ipoib_get_iflink(const struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	return priv->parent ? priv->parent->dev->ifindex : dev->ifindex;
}

static void set_dev_addr(struct ipoib_dev *priv)
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
	set_dev_addr(priv);
	if (memcmp(old, priv->dev->dev_addr, IPOIB_ALEN))
		call_netdevice_notifiers(NETDEV_CHANGEADDR, priv->dev);
}

static void set_features(struct ipoib_dev *priv)
{
	struct net_device *dev = priv->dev;
	netdev_features_t hw = 0;

	priv->hca_csum = priv->ca->attrs.device_cap_flags & IB_DEVICE_UD_IP_CSUM;
	priv->hca_lso = priv->hca_csum &&
			(priv->ca->attrs.kernel_cap_flags & IBK_UD_TSO);
	if (priv->max_send_sge > 1)
		hw |= NETIF_F_SG;
	if (priv->hca_csum)
		hw |= NETIF_F_IP_CSUM | NETIF_F_RXCSUM;
	if (priv->hca_lso)
		hw |= NETIF_F_TSO;
	dev->hw_features |= hw;
	dev->features |= hw;
}

static int ipoib_init(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	int ret;

	priv->dev = dev;
	priv->rx_stats = netdev_alloc_pcpu_stats(struct ipoib_ring_stats);
	if (!priv->rx_stats)
		return -ENOMEM;
	ret = -ENOMEM;
	priv->wq = alloc_ordered_workqueue("%s", WQ_MEM_RECLAIM, dev->name);
	if (!priv->wq)
		goto err_stats;
	ret = ipoib_neigh_table_init(priv);
	if (ret)
		goto err_wq;
	if (!priv->rx_size)
		priv->rx_size = ipoib_recvq_size;
	if (!priv->tx_size)
		priv->tx_size = ipoib_sendq_size;
	ret = ipoib_cm_dev_init(priv);
	if (ret)
		goto err_neigh;
	ret = ipoib_transport_init(priv);
	if (ret)
		goto err_cm;
	ret = rdma_query_gid(priv->ca, priv->port, 0, &priv->local_gid);
	if (ret)
		goto err_transport;

	ret = ipoib_set_mtu_limits(priv);
	if (ret)
		goto err_transport;
	if (!priv->admin_mtu)
		priv->admin_mtu = priv->mcast_mtu;
	dev->mtu = min(priv->admin_mtu, ipoib_usable_mtu(priv));
	set_dev_addr(priv);
	ipoib_broadcast_addr(dev->broadcast, priv->pkey, IPOIB_SCOPE_LINK);
	set_features(priv);
	netif_carrier_off(dev);
	ipoib_debugfs_add(priv);
	return 0;

err_transport:
	ipoib_transport_cleanup(priv);
err_cm:
	ipoib_cm_dev_cleanup(priv);
err_neigh:
	ipoib_neigh_table_destroy(priv);
err_wq:
	destroy_workqueue(priv->wq);
err_stats:
	free_percpu(priv->rx_stats);
	priv->rx_stats = NULL;
	return ret;
}

/* After the last reader: the stats outlive ndo_uninit. */
static void ipoib_destructor(struct net_device *dev)
{
	free_percpu(ipoib_priv(dev)->rx_stats);
}

static void ipoib_uninit(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	if (priv->parent) {
		mutex_lock(&priv->parent->children_lock);
		list_del_init(&priv->child_link);
		mutex_unlock(&priv->parent->children_lock);
	}
	ipoib_debugfs_remove(priv);
	cancel_work_sync(&priv->flush_light);
	cancel_work_sync(&priv->flush_normal);
	cancel_work_sync(&priv->flush_heavy);
	cancel_work_sync(&priv->tx_recover_task);
	cancel_delayed_work_sync(&priv->cm_fallback_task);
	cancel_delayed_work_sync(&priv->up_retry_task);
	ipoib_staged_drop(priv);
	ipoib_too_big_flush(priv);
	cancel_delayed_work_sync(&priv->link_task);
	ipoib_mcast_stop(priv);
	ipoib_paths_flush(priv);
	ipoib_neigh_table_destroy(priv);
	/* AHs must go before the PD they were made on. */
	cancel_delayed_work_sync(&priv->ah_reap_task);
	ipoib_ah_reap_all(priv);
	ipoib_transport_cleanup(priv);
	ipoib_cm_dev_cleanup(priv);
	destroy_workqueue(priv->wq);
}

static const struct net_device_ops ipoib_netdev_ops = {
	.ndo_init = ipoib_init,
	.ndo_uninit = ipoib_uninit,
	.ndo_open = ipoib_open,
	.ndo_stop = ipoib_stop,
	.ndo_start_xmit = ipoib_start_xmit,
	.ndo_tx_timeout = ipoib_tx_timeout,
	.ndo_get_stats64 = ipoib_get_stats64,
	.ndo_change_mtu = ipoib_change_mtu,
	.ndo_fix_features = ipoib_fix_features,
	.ndo_set_rx_mode = ipoib_set_rx_mode,
	.ndo_get_iflink = ipoib_get_iflink,
	.ndo_set_vf_link_state = ipoib_set_vf_link_state,
	.ndo_get_vf_config = ipoib_get_vf_config,
	.ndo_get_vf_stats = ipoib_get_vf_stats,
	.ndo_get_vf_guid = ipoib_get_vf_guid,
	.ndo_set_vf_guid = ipoib_set_vf_guid,
};

void ipoib_setup(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	priv->dev = dev;
	spin_lock_init(&priv->lock);
	spin_lock_init(&priv->ah_lock);
	mutex_init(&priv->state_lock);
	mutex_init(&priv->children_lock);
	INIT_LIST_HEAD(&priv->children);
	INIT_LIST_HEAD(&priv->child_link);
	INIT_LIST_HEAD(&priv->mcast_list);
	INIT_LIST_HEAD(&priv->dead_ahs);
	hash_init(priv->paths);
	hash_init(priv->mcasts);
	priv->sendonly_idle_s = IPOIB_SENDONLY_IDLE_S;
	u64_stats_init(&priv->tx_stats.syncp);
	INIT_DELAYED_WORK(&priv->mcast_task, ipoib_mcast_task);
	INIT_WORK(&priv->mcast_restart_task, ipoib_mcast_restart_task);
	INIT_DELAYED_WORK(&priv->gc_task, ipoib_neigh_gc);
	INIT_DELAYED_WORK(&priv->ah_reap_task, ipoib_ah_reap);
	INIT_DELAYED_WORK(&priv->link_task, ipoib_link_task);
	INIT_WORK(&priv->flush_light, ipoib_flush_light);
	INIT_WORK(&priv->flush_normal, ipoib_flush_normal);
	INIT_WORK(&priv->flush_heavy, ipoib_flush_heavy);
	INIT_WORK(&priv->tx_recover_task, ipoib_tx_recover);
	INIT_DELAYED_WORK(&priv->cm_fallback_task, ipoib_cm_fallback_task);
	INIT_DELAYED_WORK(&priv->up_retry_task, ipoib_up_retry_task);
	skb_queue_head_init(&priv->staged);
	priv->xmit_staged = ipoib_xmit_staged;
	skb_queue_head_init(&priv->too_big);
	INIT_WORK(&priv->too_big_task, ipoib_too_big_task);

	dev->netdev_ops = &ipoib_netdev_ops;
	dev->header_ops = &ipoib_header_ops;
	dev->ethtool_ops = &ipoib_ethtool_ops;
	dev->rtnl_link_ops = &ipoib_link_ops;
	dev->sysfs_groups[0] = ipoib_sysfs_groups[0];
	dev->watchdog_timeo = 2 * HZ;
	dev->type = ARPHRD_INFINIBAND;
	dev->addr_len = IPOIB_ALEN;
	dev->hard_header_len = IPOIB_HARD_LEN;
	dev->min_mtu = IPOIB_MIN_MTU;
	dev->max_mtu = IPOIB_CM_MAX_MTU;
	dev->tx_queue_len = ipoib_sendq_size * 2;
	dev->flags = IFF_BROADCAST | IFF_MULTICAST;
	dev->features = NETIF_F_VLAN_CHALLENGED | NETIF_F_HIGHDMA;
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
	dev->needs_free_netdev = true;
	dev->priv_destructor = ipoib_destructor;
	netif_keep_dst(dev);
}
