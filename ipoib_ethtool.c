// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool: driver and link information, statistics (-S), completion
 * moderation (-c/-C), ring sizes (-g/-G) and TX queues (-l/-L).  Offloads (-k/-K) are plain
 * netdev features and need nothing here.  ethtool calls in with rtnl held.
 */
#include <linux/ethtool.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/stringify.h>
#include "ipoib_cm.h"
#include "ipoib_ethtool.h"
#include "ipoib_link.h"
#include "ipoib_rx_pages.h"
#include "ipoib_state.h"

static const char *const ipoib_counter_names[IPOIB_NR_COUNTERS] = {
	[IPOIB_CNT_TX_DROP_NO_PATH]	= "tx_drop_no_path",
	[IPOIB_CNT_TX_DROP_QUEUE_FULL]	= "tx_drop_queue_full",
	[IPOIB_CNT_TX_DROP_NO_MCAST]	= "tx_drop_no_mcast",
	[IPOIB_CNT_TX_DROP_TOO_BIG]	= "tx_drop_too_big",
	[IPOIB_CNT_TX_DROP_MAP]		= "tx_drop_map",
	[IPOIB_CNT_TX_DROP_POST]	= "tx_drop_post",
	[IPOIB_CNT_TX_DROP_BAD_ADDR]	= "tx_drop_bad_addr",
	[IPOIB_CNT_TX_DROP_RING_FULL]	= "tx_drop_ring_full",
	[IPOIB_CNT_TX_LSO]		= "tx_lso",
	[IPOIB_CNT_TX_CSUM]		= "tx_csum",
	[IPOIB_CNT_TX_LINEARIZED]	= "tx_linearized",
	[IPOIB_CNT_TX_ERRORS_WC]	= "tx_errors_wc",
	[IPOIB_CNT_TX_TIMEOUTS]		= "tx_timeouts",
	[IPOIB_CNT_RX_DROP_NO_MEM]	= "rx_drop_no_mem",
	[IPOIB_CNT_RX_DROP_OWN_MCAST]	= "rx_drop_own_mcast",
	[IPOIB_CNT_RX_DROP_BAD_LEN]	= "rx_drop_bad_len",
	[IPOIB_CNT_RX_DROP_BAD_ARP]	= "rx_drop_bad_arp",
	[IPOIB_CNT_RX_ERRORS_WC]	= "rx_errors_wc",
	[IPOIB_CNT_RX_CSUM_OK]		= "rx_csum_ok",
	[IPOIB_CNT_PATH_QUERIES]	= "path_queries",
	[IPOIB_CNT_PATH_FAILURES]	= "path_failures",
	[IPOIB_CNT_PATH_LID_MOVED]	= "path_lid_moved",
	[IPOIB_CNT_MCAST_JOINS]		= "mcast_joins",
	[IPOIB_CNT_MCAST_JOIN_FAILURES]	= "mcast_join_failures",
	[IPOIB_CNT_MCAST_LEAVES]	= "mcast_leaves",
	[IPOIB_CNT_NEIGH_CREATED]	= "neigh_created",
	[IPOIB_CNT_NEIGH_GC]		= "neigh_gc",
	[IPOIB_CNT_FLUSHES]		= "flushes",
	[IPOIB_CNT_CM_CONNECTIONS]	= "cm_connections",
	[IPOIB_CNT_CM_ESTABLISHED]	= "cm_established",
	[IPOIB_CNT_CM_REQS_SENT]	= "cm_reqs_sent",
	[IPOIB_CNT_CM_REQS_RECEIVED]	= "cm_reqs_received",
	[IPOIB_CNT_CM_REJECTS_SENT]	= "cm_rejects_sent",
	[IPOIB_CNT_CM_REJECTS_RECEIVED]	= "cm_rejects_received",
	[IPOIB_CNT_CM_CROSSINGS]	= "cm_crossings",
	[IPOIB_CNT_CM_REJ_SERVICE_ID]	= "cm_rej_service_id",
	[IPOIB_CNT_CM_PEERS_LINUX]	= "cm_peers_linux_form",
	[IPOIB_CNT_CM_PEERS_RFC]	= "cm_peers_rfc_form",
	[IPOIB_CNT_CM_FALLBACKS]	= "cm_fallbacks",
	[IPOIB_CNT_CM_PMTU_SIGNALS]	= "cm_pmtu_signals",
	[IPOIB_CNT_CM_REAPED]		= "cm_reaped",
	[IPOIB_CNT_CM_DISCONNECTS]	= "cm_disconnects",
	[IPOIB_CNT_CM_TX_PACKETS]	= "cm_tx_packets",
	[IPOIB_CNT_CM_RX_PACKETS]	= "cm_rx_packets",
	[IPOIB_CNT_CM_TX_DROP_QUEUE]	= "cm_tx_drop_queue",
	[IPOIB_CNT_CM_TX_BACKLOGGED]	= "cm_tx_backlogged",
	[IPOIB_CNT_CM_TX_DROP_BACKLOG]	= "cm_tx_drop_backlog",
	[IPOIB_CNT_CM_REJ_SMALL_MTU]	= "cm_rej_small_mtu",
	[IPOIB_CNT_CM_RX_DROP_NO_MEM]	= "cm_rx_drop_no_mem",
	[IPOIB_CNT_CM_RX_DROP_OVER_SHARE] = "cm_rx_drop_over_share",
	[IPOIB_CNT_CM_ERRORS_WC]	= "cm_errors_wc",
	[IPOIB_CNT_CM_TX_DROP_NO_MEM]	= "cm_tx_drop_no_mem",
	[IPOIB_CNT_CM_CONNECT_TIMEOUTS]	= "cm_connect_timeouts",
	[IPOIB_CNT_CM_PEERS_LOST]	= "cm_peers_lost",
	[IPOIB_CNT_CM_PORT_FLAP_ENDS]	= "cm_port_flap_ends",
	[IPOIB_CNT_CM_TX_VIA_QUEUE0]	= "cm_tx_via_queue0",
	[IPOIB_CNT_WAIT_PATH_FULL]	= "tx_drop_wait_path_full",
	[IPOIB_CNT_WAIT_PATH_PURGED]	= "tx_drop_wait_path_purged",
	[IPOIB_CNT_WAIT_JOIN_FULL]	= "tx_drop_wait_join_full",
	[IPOIB_CNT_WAIT_JOIN_PURGED]	= "tx_drop_wait_join_purged",
	[IPOIB_CNT_WAIT_CONNECT_FULL]	= "tx_drop_wait_connect_full",
	[IPOIB_CNT_WAIT_CONNECT_PURGED]	= "tx_drop_wait_connect_purged",
	[IPOIB_CNT_WAIT_RING_FULL]	= "tx_drop_wait_ring_full",
	[IPOIB_CNT_WAIT_RING_PURGED]	= "tx_drop_wait_ring_purged",
	[IPOIB_CNT_UD_QP_FATAL]		= "ud_qp_fatal",
	[IPOIB_CNT_UD_CQ_ERRORS]	= "ud_cq_errors",
	[IPOIB_CNT_HW_RECOVERIES]	= "hw_recoveries",
	[IPOIB_CNT_DEVICE_FATAL]	= "device_fatal",
	[IPOIB_CNT_CM_QP_FATAL]		= "cm_qp_fatal",
};

static void ipoib_get_drvinfo(struct net_device *dev,
			      struct ethtool_drvinfo *info)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	struct device *bus = priv->ca->dev.parent;

	strscpy(info->driver, DRV_NAME, sizeof(info->driver));
	strscpy(info->version, DRV_VERSION, sizeof(info->version));
	BUILD_BUG_ON(sizeof(info->fw_version) < IB_FW_VERSION_NAME_MAX);
	ib_get_device_fw_str(priv->ca, info->fw_version);
	/* Software HCAs have no bus device: name the IB device instead. */
	strscpy(info->bus_info, bus ? dev_name(bus) : dev_name(&priv->ca->dev),
		sizeof(info->bus_info));
}

/*
 * Mb/s of one lane at each IB speed, by the bit the speed enum sets:
 * SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR.  Data rates, past the line
 * encoding, as ethtool reports for Ethernet.
 */
static const u32 ipoib_lane_mbps[] = {
	2500, 5000, 10000, 10000, 14000, 25000, 50000, 100000,
};

static u32 ipoib_link_mbps(const struct ib_port_attr *attr)
{
	unsigned int speed = attr->active_speed;
	int width = ib_width_enum_to_int(attr->active_width);

	if (!is_power_of_2(speed) || ilog2(speed) >= ARRAY_SIZE(ipoib_lane_mbps) ||
	    width <= 0)
		return SPEED_UNKNOWN;
	return ipoib_lane_mbps[ilog2(speed)] * width;
}

/* IB links train speed and width themselves: hence autoneg on, as in-tree. */
static int ipoib_get_link_ksettings(struct net_device *dev,
				    struct ethtool_link_ksettings *ks)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	struct ib_port_attr attr;
	int ret;

	ks->base.port = PORT_OTHER;
	ks->base.phy_address = 0xff;
	ks->base.autoneg = AUTONEG_ENABLE;
	ks->base.speed = SPEED_UNKNOWN;
	ks->base.duplex = DUPLEX_UNKNOWN;
	if (!netif_carrier_ok(dev))
		return 0;

	ret = ib_query_port(priv->ca, priv->port, &attr);
	if (ret) {
		netdev_warn(dev, "querying port %u failed: %d\n", priv->port,
			    ret);
		return ret;
	}
	ks->base.speed = ipoib_link_mbps(&attr);
	ks->base.duplex = DUPLEX_FULL;
	/* The link width (1x, 4x, ...): ethtool prints it as lanes. */
	ks->lanes = max(ib_width_enum_to_int(attr.active_width), 0);
	return 0;
}

/*
 * ethtool -S: first the in-tree driver's figures, in its order, so that
 * scripts reading them by position keep working; then ours.
 */
static const char *const ipoib_link_stat_names[] = {
	"rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "tx_errors",
	"rx_dropped", "tx_dropped", "multicast", "rx_errors",
};

static const char *const ipoib_ring_stat_names[] = {
	"rx_ring_size", "rx_ring_posted", "tx_ring_size", "tx_ring_outstanding",
	"rx_pages_new",
	/* The port's connected-mode receive pool: ipoib_cm_pool_stats(). */
	"cm_rx_pool_buffers", "cm_rx_pool_target", "cm_rx_pool_ceiling",
	"cm_rx_pool_users", "cm_rx_pool_grows", "cm_rx_pool_shrinks",
};

#define IPOIB_NR_STATS	(ARRAY_SIZE(ipoib_link_stat_names) + \
			 IPOIB_NR_COUNTERS + ARRAY_SIZE(ipoib_ring_stat_names))

/* Then each TX queue's packets and bytes, as many as there are queues. */
#define IPOIB_TXQ_STATS	2

static int ipoib_get_sset_count(struct net_device *dev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return IPOIB_NR_STATS + IPOIB_TXQ_STATS * dev->real_num_tx_queues;
}

static void ipoib_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ARRAY_SIZE(ipoib_link_stat_names); i++)
		ethtool_sprintf(&data, "%s", ipoib_link_stat_names[i]);
	for (i = 0; i < IPOIB_NR_COUNTERS; i++)
		if (ipoib_counter_names[i])
			ethtool_sprintf(&data, "%s", ipoib_counter_names[i]);
		else
			ethtool_sprintf(&data, "counter_%u", i);
	for (i = 0; i < ARRAY_SIZE(ipoib_ring_stat_names); i++)
		ethtool_sprintf(&data, "%s", ipoib_ring_stat_names[i]);
	for (i = 0; i < dev->real_num_tx_queues; i++) {
		ethtool_sprintf(&data, "tx_queue_%u_packets", i);
		ethtool_sprintf(&data, "tx_queue_%u_bytes", i);
	}
}

/* Until the first open, the sizes the module parameters give. */
static unsigned int ipoib_rx_entries(const struct ipoib_dev *priv)
{
	return priv->rx_size ?: ipoib_recvq_size;
}

static unsigned int ipoib_tx_entries(const struct ipoib_dev *priv)
{
	return priv->tx_size ?: ipoib_sendq_size;
}

/*
 * Receive buffers the HCA holds.  The ring goes away under state_lock on
 * the way down; rather than wait behind a drain, report 0 then.
 */
static unsigned int ipoib_rx_posted(struct ipoib_dev *priv)
{
	unsigned int i, n = 0;

	if (!mutex_trylock(&priv->state_lock))
		return 0;
	if (test_bit(IPOIB_QP_READY, &priv->flags) && priv->rx_ring)
		for (i = 0; i < priv->rx_size; i++)
			n += !!READ_ONCE(priv->rx_ring[i].page);
	mutex_unlock(&priv->state_lock);
	return n;
}

/*
 * Receive pages that had to come from the page allocator rather than back
 * from the stack; 0 while the pools are being made or torn down.
 */
static u64 ipoib_rx_pages_new_all(struct ipoib_dev *priv)
{
	u64 n;

	if (!mutex_trylock(&priv->state_lock))
		return 0;
	n = ipoib_rx_pages_new(&priv->rx_pages) + ipoib_cm_rx_pages_new(priv);
	mutex_unlock(&priv->state_lock);
	return n;
}

/* The pool's figures; 0 while it is being made or torn down. */
static void ipoib_cm_pool_stats_of(struct ipoib_dev *priv, u64 *data)
{
	BUILD_BUG_ON(IPOIB_CM_POOL_NR_STATS != 6);
	if (!mutex_trylock(&priv->state_lock)) {
		memset(data, 0, IPOIB_CM_POOL_NR_STATS * sizeof(*data));
		return;
	}
	ipoib_cm_pool_stats(priv, data);
	mutex_unlock(&priv->state_lock);
}

/* In the order of ipoib_link_stat_names. */
static u64 *ipoib_put_link_stats(const struct rtnl_link_stats64 *s, u64 *data)
{
	const u64 v[] = {
		s->rx_packets, s->tx_packets, s->rx_bytes, s->tx_bytes,
		s->tx_errors, s->rx_dropped, s->tx_dropped, s->multicast,
		s->rx_errors,
	};

	BUILD_BUG_ON(ARRAY_SIZE(v) != ARRAY_SIZE(ipoib_link_stat_names));
	memcpy(data, v, sizeof(v));
	return data + ARRAY_SIZE(v);
}

static void ipoib_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	struct rtnl_link_stats64 s = {};
	unsigned int i;

	ipoib_stats_fold(priv, &s);
	data = ipoib_put_link_stats(&s, data);
	for (i = 0; i < IPOIB_NR_COUNTERS; i++)
		*data++ = atomic_long_read(&priv->counters[i]);
	*data++ = ipoib_rx_entries(priv);
	*data++ = ipoib_rx_posted(priv);
	*data++ = ipoib_tx_entries(priv);
	*data++ = ipoib_tx_outstanding(&priv->tx);
	*data++ = ipoib_rx_pages_new_all(priv);
	ipoib_cm_pool_stats_of(priv, data);
	data += IPOIB_CM_POOL_NR_STATS;
	for (i = 0; i < dev->real_num_tx_queues; i++) {
		ipoib_tx_queue_stats(priv, i, &data[0], &data[1]);
		data += IPOIB_TXQ_STATS;
	}
}

static int ipoib_get_coalesce(struct net_device *dev,
			      struct ethtool_coalesce *ec,
			      struct kernel_ethtool_coalesce *kec,
			      struct netlink_ext_ack *extack)
{
	const struct ipoib_coalesce *c = &ipoib_priv(dev)->coal;

	ec->rx_coalesce_usecs = c->rx_usecs;
	ec->rx_max_coalesced_frames = c->rx_frames;
	ec->tx_coalesce_usecs = c->tx_usecs;
	ec->tx_max_coalesced_frames = c->tx_frames;
	return 0;
}

/* The HCA's limits; 0 means it states none, and the verb takes a u16. */
static bool ipoib_coalesce_fits(struct ipoib_dev *priv,
				const struct ethtool_coalesce *ec,
				struct netlink_ext_ack *extack)
{
	const struct ib_cq_caps *caps = &priv->ca->attrs.cq_caps;
	u32 max_frames = caps->max_cq_moderation_count ?: U16_MAX;
	u32 max_usecs = caps->max_cq_moderation_period ?: U16_MAX;

	if (ec->rx_max_coalesced_frames > max_frames ||
	    ec->tx_max_coalesced_frames > max_frames) {
		NL_SET_ERR_MSG(extack, "more frames than the HCA can moderate");
		return false;
	}
	if (ec->rx_coalesce_usecs > max_usecs ||
	    ec->tx_coalesce_usecs > max_usecs) {
		NL_SET_ERR_MSG(extack, "a longer period than the HCA can moderate");
		return false;
	}
	return true;
}

/* An HCA without moderation keeps the values, as in-tree, to no effect. */
static int ipoib_moderate(struct ib_cq *cq, u16 frames, u16 usecs)
{
	int ret = rdma_set_cq_moderation(cq, frames, usecs);

	return ret == -EOPNOTSUPP ? 0 : ret;
}

/* Put priv->coal on the CQs, e.g. after they were made again. */
static int ipoib_coalesce_apply(struct ipoib_dev *priv)
{
	const struct ipoib_coalesce *c = &priv->coal;
	unsigned int q;
	int ret;

	ret = ipoib_moderate(priv->recv_cq, c->rx_frames, c->rx_usecs);
	if (!ret)
		ret = ipoib_moderate(priv->send_cq, c->tx_frames, c->tx_usecs);
	/* The further send queues' CQs come and go with the data path. */
	mutex_lock(&priv->state_lock);
	for (q = 1; !ret && q < priv->dev->real_num_tx_queues; q++)
		if (priv->sendqs[q - 1].cq)
			ret = ipoib_moderate(priv->sendqs[q - 1].cq,
					     c->tx_frames, c->tx_usecs);
	mutex_unlock(&priv->state_lock);
	if (ret)
		netdev_warn(priv->dev, "setting CQ moderation failed: %d\n",
			    ret);
	return ret;
}

static int ipoib_set_coalesce(struct net_device *dev,
			      struct ethtool_coalesce *ec,
			      struct kernel_ethtool_coalesce *kec,
			      struct netlink_ext_ack *extack)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	struct ipoib_coalesce old = priv->coal;
	int ret;

	if (!ipoib_coalesce_fits(priv, ec, extack))
		return -EINVAL;

	priv->coal.rx_usecs = ec->rx_coalesce_usecs;
	priv->coal.rx_frames = ec->rx_max_coalesced_frames;
	priv->coal.tx_usecs = ec->tx_coalesce_usecs;
	priv->coal.tx_frames = ec->tx_max_coalesced_frames;
	ret = ipoib_coalesce_apply(priv);
	if (!ret)
		return 0;

	/* All or nothing: put back what the CQs had. */
	priv->coal = old;
	ipoib_coalesce_apply(priv);
	NL_SET_ERR_MSG(extack, "the HCA refused the moderation settings");
	return ret;
}

/*
 * The largest ring: the QP and CQ limits of the HCA and ours, rounded down
 * to a power of two, so that rounding a request up never goes past it.
 */
static unsigned int ipoib_ring_max(struct ipoib_dev *priv)
{
	const struct ib_device_attr *a = &priv->ca->attrs;
	int max = min3(a->max_qp_wr, a->max_cqe, IPOIB_MAX_QUEUE);

	if (max < IPOIB_MIN_QUEUE)
		return IPOIB_MIN_QUEUE;
	return rounddown_pow_of_two(max);
}

static void ipoib_get_ringparam(struct net_device *dev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	unsigned int limit = ipoib_ring_max(priv);

	ring->rx_pending = ipoib_rx_entries(priv);
	ring->tx_pending = ipoib_tx_entries(priv);
	/* Never below what is in use, whatever the HCA claims now. */
	ring->rx_max_pending = max(limit, ring->rx_pending);
	ring->tx_max_pending = max(limit, ring->tx_pending);
}

/*
 * Sizes are rounded up to a power of two, like the module parameters;
 * ethtool has already checked them against the maximum.
 */
static int ipoib_set_ringparam(struct net_device *dev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	unsigned int rx, tx;
	int ret;

	if (ring->rx_pending < IPOIB_MIN_QUEUE ||
	    ring->tx_pending < IPOIB_MIN_QUEUE) {
		NL_SET_ERR_MSG(extack, "rings hold at least "
			       __stringify(IPOIB_MIN_QUEUE) " entries");
		return -EINVAL;
	}
	rx = roundup_pow_of_two(ring->rx_pending);
	tx = roundup_pow_of_two(ring->tx_pending);
	if (rx != ring->rx_pending || tx != ring->tx_pending)
		NL_SET_ERR_MSG(extack, "ring sizes rounded up to a power of two");
	if (rx == ipoib_rx_entries(priv) && tx == ipoib_tx_entries(priv))
		return 0;
	/*
	 * New rings are a new QP, so a new link address, and a bond takes
	 * its slave's address only when it fails over to it: it would go on
	 * giving its peers the old QPN.
	 */
	if (netif_is_bond_slave(dev)) {
		NL_SET_ERR_MSG(extack, "a bond keeps its slave's old QPN: release the slave first");
		netdev_warn(dev, "ring resize refused: %s would go on announcing our old QPN\n",
			    netdev_master_upper_dev_get(dev)->name);
		return -EBUSY;
	}

	ret = ipoib_resize_rings(priv, rx, tx, extack);
	if (ret)
		return ret;
	/* The CQs may be new ones. */
	ipoib_coalesce_apply(priv);
	/*
	 * The new QP has a new QPN, so our link address changed: gratuitous
	 * ARP and unsolicited NA tell the peers now, rather than after their
	 * neighbour entries time out.
	 */
	if (netif_running(dev))
		__netdev_notify_peers(dev);
	return 0;
}

/*
 * ethtool -l/-L: TX queues, each with a UD send QP of its own, and the one
 * RX queue, the UD QP's.  More than one TX queue needs
 * IB_QP_CREATE_SOURCE_QPN, so that all send as the QPN our link address
 * gives (ipoib_verbs.c).
 */
static void ipoib_get_channels(struct net_device *dev,
			       struct ethtool_channels *ch)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	ch->max_rx = 1;
	ch->rx_count = 1;
	ch->max_tx = priv->hca_source_qpn ? dev->num_tx_queues : 1;
	ch->tx_count = dev->real_num_tx_queues;
}

static int ipoib_set_channels(struct net_device *dev,
			      struct ethtool_channels *ch)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	/* ethtool has checked the counts against the maximums. */
	if (!ch->tx_count || ch->rx_count != 1)
		return -EINVAL;
	return ipoib_set_send_queues(priv, ch->tx_count, NULL);
}

const struct ethtool_ops ipoib_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES,
	.cap_link_lanes_supported = true,
	.get_drvinfo		= ipoib_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= ipoib_get_link_ksettings,
	.get_sset_count		= ipoib_get_sset_count,
	.get_strings		= ipoib_get_strings,
	.get_ethtool_stats	= ipoib_get_ethtool_stats,
	.get_coalesce		= ipoib_get_coalesce,
	.set_coalesce		= ipoib_set_coalesce,
	.get_ringparam		= ipoib_get_ringparam,
	.set_ringparam		= ipoib_set_ringparam,
	.get_channels		= ipoib_get_channels,
	.set_channels		= ipoib_set_channels,
};
