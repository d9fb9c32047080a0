// SPDX-License-Identifier: GPL-2.0
/*
 * The interface's state.  Its data path goes up and down one way for every
 * caller (open and stop, a restart after a P_Key move or a transmit
 * timeout, a ring resize); connected mode starts and stops with it, or
 * gives way to datagram mode; the link task makes the netdev follow the
 * fabric (MTU, GID, announcements).
 */
#include <net/sch_generic.h>
#include <rdma/ib_cache.h>
#include "ipoib_cm.h"
#include "ipoib_ib.h"
#include "ipoib_link.h"
#include "ipoib_multicast.h"
#include "ipoib_neigh.h"
#include "ipoib_path.h"
#include "ipoib_pmtu.h"
#include "ipoib_state.h"
#include "ipoib_tx.h"
#include "ipoib_verbs.h"

/*
 * Rings and QP, connected mode, then the joins that turn the carrier on.
 * Without our P_Key in the port's table the interface waits, up and
 * without carrier, for the P_Key change event.
 */
static int ipoib_up(struct ipoib_dev *priv)
{
	int ret;

	lockdep_assert_held(&priv->state_lock);
	if (!ipoib_find_pkey_index(priv)) {
		netdev_info(priv->dev, "P_Key 0x%04x is not in the port's table; waiting for it\n",
			    priv->pkey);
		return 0;
	}
	ret = ipoib_set_mtu_limits(priv);
	if (ret)
		return ret;
	ret = ipoib_rings_up(priv);
	if (ret)
		return ret;
	/* Connected mode that cannot start gives way to datagram mode. */
	if (ipoib_cm_up(priv))
		queue_delayed_work(priv->wq, &priv->cm_fallback_task, 0);
	ipoib_mcast_start(priv);
	netif_tx_wake_all_queues(priv->dev);
	return 0;
}

/* No send, group, path or connection left; the rings freed. */
static void ipoib_down(struct ipoib_dev *priv)
{
	bool was_ready;

	lockdep_assert_held(&priv->state_lock);
	/*
	 * Not ready first: completions reaped from here on no longer wake
	 * the queue, and a send that saw the bit set still holds the
	 * transmit lock, which netif_tx_disable() waits for.  After it, no
	 * send can slip in behind the drain.
	 */
	was_ready = test_and_clear_bit(IPOIB_QP_READY, &priv->flags);
	netif_tx_disable(priv->dev);
	ipoib_mcast_stop(priv);
	ipoib_paths_flush(priv);
	if (!was_ready)
		return;
	ipoib_cm_down(priv);
	ipoib_staged_drop(priv);
	ipoib_rings_down(priv);
}

/*
 * Bring the data path up for an interface that stays up whatever happens
 * (a restart, a resize).  When that fails (memory short, the HCA
 * refusing), nothing else would try again: a work item does, backing off,
 * until it works or the interface goes down.
 */
static void up_or_retry(struct ipoib_dev *priv)
{
	int ret;

	lockdep_assert_held(&priv->state_lock);
	ret = ipoib_up(priv);
	if (!ret) {
		priv->up_retry_backoff = 0;
		return;
	}
	priv->up_retry_backoff = ipoib_backoff_next(priv->up_retry_backoff,
						    IPOIB_RETRY_MIN,
						    IPOIB_RETRY_MAX);
	netdev_warn(priv->dev, "bringing the data path up failed (%d); trying again in %u ms\n",
		    ret, jiffies_to_msecs(priv->up_retry_backoff));
	queue_delayed_work(priv->wq, &priv->up_retry_task,
			   priv->up_retry_backoff);
}

void ipoib_up_retry_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(to_delayed_work(work),
					      struct ipoib_dev, up_retry_task);

	mutex_lock(&priv->state_lock);
	if (test_bit(IPOIB_OPEN, &priv->flags) &&
	    !test_bit(IPOIB_QP_READY, &priv->flags))
		up_or_retry(priv);
	mutex_unlock(&priv->state_lock);
}

/* Everything down, and up again if our P_Key is there. */
void ipoib_restart(struct ipoib_dev *priv)
{
	lockdep_assert_held(&priv->state_lock);
	ipoib_down(priv);
	up_or_retry(priv);
}

/* Connected mode was chosen but could not start. */
static void cm_fallback(struct ipoib_dev *priv)
{
	ASSERT_RTNL();
	if (!ipoib_mode_connected(priv) || ipoib_cm_active(priv) ||
	    !test_bit(IPOIB_QP_READY, &priv->flags))
		return;
	netdev_warn(priv->dev, "connected mode could not start; running in datagram mode\n");
	ipoib_set_mode(priv, false, NULL);
}

/*
 * From a bring-up, which holds state_lock and so cannot take rtnl: the
 * mode change waits for rtnl without blocking the workqueue.
 */
void ipoib_cm_fallback_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(to_delayed_work(work),
					      struct ipoib_dev,
					      cm_fallback_task);

	if (!rtnl_trylock()) {
		queue_delayed_work(priv->wq, &priv->cm_fallback_task, 1);
		return;
	}
	cm_fallback(priv);
	rtnl_unlock();
}

int ipoib_open(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	int ret;

	mutex_lock(&priv->state_lock);
	ret = ipoib_up(priv);
	if (!ret) {
		set_bit(IPOIB_OPEN, &priv->flags);
		queue_delayed_work(priv->wq, &priv->gc_task,
				   IPOIB_GC_INTERVAL);
	}
	mutex_unlock(&priv->state_lock);
	/*
	 * We hold rtnl: the user sees the mode change when "up" returns.  The
	 * work item may be running already (it then waits for rtnl), so the
	 * fallback is done here whether or not it was still pending.
	 */
	if (!ret) {
		cancel_delayed_work(&priv->cm_fallback_task);
		cm_fallback(priv);
	}
	return ret;
}

/*
 * While the interface is open, every IPOIB_GC_INTERVAL: idle neighbours
 * go, then send-only groups nobody sends to any more.
 */
void ipoib_gc_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(to_delayed_work(work),
					      struct ipoib_dev, gc_task);

	ipoib_neigh_gc(priv);
	ipoib_mcast_gc(priv);
	if (test_bit(IPOIB_OPEN, &priv->flags))
		queue_delayed_work(priv->wq, &priv->gc_task, IPOIB_GC_INTERVAL);
}

int ipoib_stop(struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	mutex_lock(&priv->state_lock);
	clear_bit(IPOIB_OPEN, &priv->flags);
	cancel_delayed_work_sync(&priv->gc_task);
	ipoib_down(priv);
	netif_carrier_off(dev);
	priv->up_retry_backoff = 0;
	mutex_unlock(&priv->state_lock);
	ipoib_too_big_flush(priv);
	/* It takes state_lock; closed, it would do nothing if it ran. */
	cancel_delayed_work_sync(&priv->up_retry_task);
	return 0;
}

/*
 * ethtool -G, rtnl held.  The data path goes down for the swap and comes
 * back with a new QPN, which neighbours learn from the address change.
 */
int ipoib_resize_rings(struct ipoib_dev *priv, unsigned int rx,
		       unsigned int tx, struct netlink_ext_ack *extack)
{
	bool open;
	int ret;

	ASSERT_RTNL();
	mutex_lock(&priv->state_lock);
	open = test_bit(IPOIB_OPEN, &priv->flags);
	if (open)
		ipoib_down(priv);
	ret = ipoib_transport_resize(priv, &ipoib_ud_handlers, rx, tx);
	if (ret)
		NL_SET_ERR_MSG(extack, "the HCA refused queues of that size");
	else
		ipoib_update_dev_addr(priv);
	if (open)
		up_or_retry(priv);
	mutex_unlock(&priv->state_lock);
	return ret;
}

/*
 * XPS: CPU c sends on TX queue c modulo their number, so that CPUs share
 * a queue, and its lock, only when there are fewer queues than CPUs.
 */
void ipoib_set_xps(struct ipoib_dev *priv)
{
	unsigned int q, n = priv->dev->real_num_tx_queues;
	cpumask_var_t mask;
	int cpu;

	if (n < 2 || !zalloc_cpumask_var(&mask, GFP_KERNEL))
		return;
	for (q = 0; q < n; q++) {
		cpumask_clear(mask);
		for_each_possible_cpu(cpu)
			if (cpu % n == q)
				cpumask_set_cpu(cpu, mask);
		netif_set_xps_queue(priv->dev, mask, q);
	}
	free_cpumask_var(mask);
}

/*
 * ethtool -L tx N, rtnl held: the data path goes down, each further TX
 * queue comes back with a send queue of its own.  The QPN stays.
 */
int ipoib_set_send_queues(struct ipoib_dev *priv, unsigned int n,
			  struct netlink_ext_ack *extack)
{
	struct net_device *dev = priv->dev;
	bool open;
	int ret;

	ASSERT_RTNL();
	if (n > 1 && !priv->hca_source_qpn) {
		NL_SET_ERR_MSG(extack, "the HCA takes no IB_QP_CREATE_SOURCE_QPN");
		return -EOPNOTSUPP;
	}
	if (n == dev->real_num_tx_queues)
		return 0;
	mutex_lock(&priv->state_lock);
	open = test_bit(IPOIB_OPEN, &priv->flags);
	if (open)
		ipoib_down(priv);
	ret = netif_set_real_num_tx_queues(dev, n);
	if (ret)
		NL_SET_ERR_MSG(extack, "the stack refused that many TX queues");
	else
		ipoib_set_xps(priv);
	if (open)
		up_or_retry(priv);
	mutex_unlock(&priv->state_lock);
	return ret;
}

/* RC/UC flags in our link address as the mode says. */
static void set_addr_flags(struct ipoib_dev *priv, u8 flags)
{
	ASSERT_RTNL();
	if (priv->dev->dev_addr[0] == flags)
		return;
	dev_addr_mod(priv->dev, 0, &flags, 1);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, priv->dev);
	/*
	 * Peers hold the old flags in their ARP and ND caches: a gratuitous
	 * ARP and an unsolicited NA tell them now, so that none keeps asking
	 * for connections we no longer take.
	 */
	if (netif_running(priv->dev))
		__netdev_notify_peers(priv->dev);
}

/*
 * sysfs "mode" and netlink IFLA_IPOIB_MODE, rtnl held.  Connected mode
 * raises the MTU to 65520 and drops the offloads RC/UC lack; datagram
 * mode clamps the MTU back to what UD and the broadcast group carry.
 */
int ipoib_set_mode(struct ipoib_dev *priv, bool connected,
		   struct netlink_ext_ack *extack)
{
	struct net_device *dev = priv->dev;
	int ret = 0;

	ASSERT_RTNL();
	if (connected == ipoib_mode_connected(priv))
		return 0;
	if (connected && !ipoib_cm_supported(priv)) {
		NL_SET_ERR_MSG(extack, "connected mode needs a port with a connection manager");
		netdev_warn(dev, "connected mode refused: port %u has no IB CM\n",
			    priv->port);
		return -EOPNOTSUPP;
	}

	mutex_lock(&priv->state_lock);
	if (connected) {
		set_bit(IPOIB_CM_MODE, &priv->flags);
		if (test_bit(IPOIB_QP_READY, &priv->flags))
			ret = ipoib_cm_up(priv);
		if (ret)
			clear_bit(IPOIB_CM_MODE, &priv->flags);
	} else {
		clear_bit(IPOIB_CM_MODE, &priv->flags);
		/* No transmit uses a connection once this returns. */
		netif_tx_lock_bh(dev);
		netif_tx_unlock_bh(dev);
		ipoib_cm_down(priv);
	}
	mutex_unlock(&priv->state_lock);
	if (ret) {
		NL_SET_ERR_MSG(extack, "connected mode could not start");
		return ret;
	}

	set_addr_flags(priv, connected ? ipoib_cm_addr_flags() : 0);
	netdev_update_features(dev);
	if (connected) {
		dev->max_mtu = ipoib_mode_max_mtu(priv);
		dev_set_mtu(dev, dev->max_mtu);
	} else {
		dev_set_mtu(dev, min_t(unsigned int, dev->mtu,
				       ipoib_usable_mtu(priv)));
		dev->max_mtu = ipoib_mode_max_mtu(priv);
	}
	netdev_info(dev, "%s mode, MTU %u\n",
		    connected ? "connected" : "datagram", dev->mtu);
	return 0;
}

/* A new port GID means a new link address. */
static void refresh_gid(struct ipoib_dev *priv)
{
	union ib_gid gid;

	ASSERT_RTNL();
	if (rdma_query_gid(priv->ca, priv->port, 0, &gid) ||
	    !memcmp(&gid, &priv->local_gid, sizeof(gid)))
		return;
	priv->local_gid = gid;
	ipoib_update_dev_addr(priv);
}

/*
 * rtnl held.  Each load or new QP brings a new QPN, so a peer's ARP and ND
 * entries for us are wrong until they time out (30 s and more) unless we
 * say so: a gratuitous ARP and an unsolicited NA once the carrier is on.
 * They would be dropped until the link watcher gives the queue its qdisc.
 */
static void announce(struct ipoib_dev *priv)
{
	struct net_device *dev = priv->dev;

	ASSERT_RTNL();
	if (!test_bit(IPOIB_ANNOUNCE, &priv->flags))
		return;
	if (!netif_running(dev) || !netif_carrier_ok(dev)) {
		clear_bit(IPOIB_ANNOUNCE, &priv->flags);
		return;
	}
	if (qdisc_tx_is_noop(dev)) {
		queue_delayed_work(priv->wq, &priv->link_task, HZ / 10);
		return;
	}
	clear_bit(IPOIB_ANNOUNCE, &priv->flags);
	__netdev_notify_peers(dev);
}

/*
 * Changes that need rtnl: dev->mtu follows the broadcast group, the
 * address follows the port GID.  Whoever holds rtnl may be waiting for
 * this queue, so never block on it: try again shortly.
 */
void ipoib_link_task(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(to_delayed_work(work),
					      struct ipoib_dev, link_task);

	if (!rtnl_trylock()) {
		queue_delayed_work(priv->wq, &priv->link_task, 1);
		return;
	}
	refresh_gid(priv);
	ipoib_update_mtu(priv);
	announce(priv);
	rtnl_unlock();
}
