// SPDX-License-Identifier: GPL-2.0
/*
 * The net_device put together: making one, its set-up and teardown
 * (ndo_init, ndo_uninit), its ops table and features.  What it wires
 * together lies below: the link layer (ipoib_link.c), open and stop
 * (ipoib_state.c), the transmit entry point (ipoib_xmit.c), ethtool, VFs
 * and debugfs.  Its sysfs attributes and link ops come from whoever makes
 * the interface (ipoib_main.c, ipoib_child.c, ipoib_netlink.c).
 */
#include <linux/if_arp.h>
#include <linux/etherdevice.h>
#include <rdma/ib_cache.h>
#include "ipoib_cm.h"
#include "ipoib_ah.h"
#include "ipoib_debugfs.h"
#include "ipoib_ethtool.h"
#include "ipoib_events.h"
#include "ipoib_ib.h"
#include "ipoib_link.h"
#include "ipoib_multicast.h"
#include "ipoib_neigh.h"
#include "ipoib_netdev.h"
#include "ipoib_path.h"
#include "ipoib_pmtu.h"
#include "ipoib_state.h"
#include "ipoib_tx.h"
#include "ipoib_verbs.h"
#include "ipoib_vf.h"
#include "ipoib_xmit.h"

static void ipoib_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	netdev_warn(dev, "transmit queue %u timed out with %u sends outstanding; resetting the data path\n",
		    txqueue,
		    ipoib_tx_outstanding(ipoib_ud_ring(priv, txqueue)));
	ipoib_count(priv, IPOIB_CNT_TX_TIMEOUTS);
	queue_work(priv->wq, &priv->tx_recover_task);
}

static void ipoib_get_stats64(struct net_device *dev,
			      struct rtnl_link_stats64 *s)
{
	ipoib_stats_fold(ipoib_priv(dev), s);
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

/*
 * TX queues 1 and up, each a send queue of its own.  Their rings outlive
 * the QPs: the array lives as long as the netdev.
 */
static int sendqs_init(struct ipoib_dev *priv)
{
	unsigned int i, n = priv->dev->num_tx_queues - 1;

	if (!n)
		return 0;
	priv->sendqs = kcalloc(n, sizeof(*priv->sendqs), GFP_KERNEL);
	if (!priv->sendqs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		priv->sendqs[i].priv = priv;
		u64_stats_init(&priv->sendqs[i].stats.syncp);
	}
	return 0;
}

/* As many TX queues as send_queues asks, if the HCA can, CPUs and XPS. */
static void set_send_queues(struct ipoib_dev *priv)
{
	struct net_device *dev = priv->dev;
	unsigned int n = 1;

	if (priv->hca_source_qpn)
		n = min(ipoib_send_queues, dev->num_tx_queues);
	netif_set_real_num_tx_queues(dev, n);
	ipoib_set_xps(priv);
}

static int ipoib_init(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	int ret;

	priv->dev = dev;
	priv->rx_stats = netdev_alloc_pcpu_stats(struct ipoib_ring_stats);
	if (!priv->rx_stats)
		return -ENOMEM;
	ret = sendqs_init(priv);
	if (ret)
		goto err_stats;
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
	ret = ipoib_transport_init(priv, &ipoib_ud_handlers);
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
	ipoib_set_dev_addr(priv);
	ipoib_broadcast_addr(dev->broadcast, priv->pkey, IPOIB_SCOPE_LINK);
	set_features(priv);
	set_send_queues(priv);
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
	kfree(priv->sendqs);
	priv->sendqs = NULL;
	free_percpu(priv->rx_stats);
	priv->rx_stats = NULL;
	return ret;
}

/* After the last reader: the stats outlive ndo_uninit. */
static void ipoib_destructor(struct net_device *dev)
{
	kfree(ipoib_priv(dev)->sendqs);
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
	cancel_delayed_work_sync(&priv->hw_recover_task);
	cancel_delayed_work_sync(&priv->cm_fallback_task);
	cancel_delayed_work_sync(&priv->up_retry_task);
	cancel_work_sync(&priv->staged_task);
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
	.ndo_select_queue = ipoib_select_queue,
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
	INIT_DELAYED_WORK(&priv->gc_task, ipoib_gc_task);
	INIT_DELAYED_WORK(&priv->ah_reap_task, ipoib_ah_reap);
	INIT_DELAYED_WORK(&priv->link_task, ipoib_link_task);
	INIT_WORK(&priv->flush_light, ipoib_flush_light);
	INIT_WORK(&priv->flush_normal, ipoib_flush_normal);
	INIT_WORK(&priv->flush_heavy, ipoib_flush_heavy);
	INIT_WORK(&priv->tx_recover_task, ipoib_tx_recover);
	INIT_DELAYED_WORK(&priv->hw_recover_task, ipoib_hw_recover);
	INIT_DELAYED_WORK(&priv->cm_fallback_task, ipoib_cm_fallback_task);
	INIT_DELAYED_WORK(&priv->up_retry_task, ipoib_up_retry_task);
	skb_queue_head_init(&priv->staged);
	INIT_WORK(&priv->staged_task, ipoib_staged_task);
	priv->xmit_staged = ipoib_xmit_staged;
	priv->check_sender_lid = ipoib_path_check_lid;
	skb_queue_head_init(&priv->too_big);
	INIT_WORK(&priv->too_big_task, ipoib_too_big_task);

	dev->netdev_ops = &ipoib_netdev_ops;
	dev->header_ops = &ipoib_header_ops;
	dev->ethtool_ops = &ipoib_ethtool_ops;
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

/*
 * A new interface on the port, not registered yet.  Its sysfs attributes
 * and link ops are its parent's; a parent's are the caller's to set.
 */
struct net_device *ipoib_create_netdev(struct ib_device *ca, u32 port,
				       const char *name, u16 pkey,
				       struct ipoib_dev *parent)
{
	struct net_device *dev;
	struct ipoib_dev *priv;

	/* As many TX queues as send_queues may ever ask: ethtool -L picks. */
	dev = alloc_netdev_mqs(sizeof(struct ipoib_dev), name,
			       NET_NAME_UNKNOWN, ipoib_setup,
			       min_t(unsigned int, num_possible_cpus(),
				     IPOIB_MAX_SEND_QUEUES), 1);
	if (!dev)
		return NULL;
	priv = ipoib_priv(dev);
	priv->ca = ca;
	priv->port = port;
	priv->pkey = pkey;
	priv->parent = parent;
	if (parent) {
		/* Its parent's attributes and link kind. */
		dev->sysfs_groups[0] = parent->dev->sysfs_groups[0];
		dev->rtnl_link_ops = parent->dev->rtnl_link_ops;
		dev->dev_port = parent->dev->dev_port;
		dev->dev_id = parent->dev->dev_id;
		dev->mtu = parent->dev->mtu;
	} else {
		/* Compatibility: dev_id used to carry the port, too. */
		dev->dev_port = port - 1;
		dev->dev_id = port - 1;
		/*
		 * Only the main interface hangs off the HCA, as in-tree: udev
		 * rules that match the port's GID with DRIVERS=="?*" (rdma-core's
		 * persistent naming example) must not match its children too.
		 */
		SET_NETDEV_DEV(dev, ca->dev.parent);
	}
	return dev;
}

/*
 * dev_id once carried the port number, which dev_port has held for years.
 * Port numbers above 1 make the two equal: tell whoever still reads
 * dev_id, once.  dev_port 0 is what kernels before dev_port reported, and
 * tools fall back to dev_id then, so reading it is no mistake.
 */
static ssize_t dev_id_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct net_device *dev = to_net_dev(d);

	if (dev->dev_port && dev->dev_port == dev->dev_id)
		netdev_info_once(dev, "%s reads dev_id for the port number; dev_port has it (Documentation/ABI/testing/sysfs-class-net)\n",
				 current->comm);
	return sysfs_emit(buf, "%#x\n", dev->dev_id);
}
static DEVICE_ATTR_RO(dev_id);

/*
 * The net core's own dev_id file exists before any group of ours is made,
 * and a group cannot replace it: swap it for ours once registered.
 */
void ipoib_netdev_registered(struct net_device *dev)
{
	int ret;

	device_remove_file(&dev->dev, &dev_attr_dev_id);
	ret = device_create_file(&dev->dev, &dev_attr_dev_id);
	if (ret)
		netdev_warn(dev, "cannot create sysfs dev_id: %d\n", ret);
}
