// SPDX-License-Identifier: GPL-2.0
/*
 * Port events and what they cost us.  Anything that can move a LID, a path
 * or the SM makes every path stale and every group to be rejoined; a P_Key
 * table change may take our P_Key away, bring it, or move its index, which
 * restarts the data path.  A port that went down and came back ends its
 * connections.  A UD QP or CQ the HCA failed is restarted or replaced; a
 * device that died takes the carrier away for good.
 */
#include <linux/rtnetlink.h>
#include <rdma/ib_cache.h>
#include "ipoib.h"
#include "ipoib_cm.h"
#include "ipoib_events.h"
#include "ipoib_multicast.h"
#include "ipoib_path.h"
#include "ipoib_state.h"
#include "ipoib_verbs.h"

static void queue_flush(struct ipoib_dev *priv, enum ipoib_flush_level level)
{
	struct work_struct *work = level == IPOIB_FLUSH_HEAVY ?
				   &priv->flush_heavy : &priv->flush_light;

	if (level == IPOIB_FLUSH_NORMAL)
		work = &priv->flush_normal;
	queue_work(priv->wq, work);
}

/*
 * The HCA is gone until its driver resets it (mlx5 unregisters the device
 * and registers it anew, which takes this interface away with it): no
 * carrier, and the join that would turn it on again is not tried.
 */
static void device_fatal(struct ipoib_dev *priv)
{
	if (test_and_set_bit(IPOIB_DEV_FATAL, &priv->flags))
		return;
	ipoib_count(priv, IPOIB_CNT_DEVICE_FATAL);
	netif_carrier_off(priv->dev);
	netdev_err(priv->dev, "%s reported a fatal error; no carrier until the device is reset\n",
		   dev_name(&priv->ca->dev));
}

void ipoib_event(struct ib_event_handler *handler, struct ib_event *event)
{
	struct ipoib_dev *priv = container_of(handler, struct ipoib_dev,
					      event_handler);
	enum ipoib_flush_level level;
	struct ipoib_dev *child;

	/* The whole device, whatever port the event names. */
	if (event->event == IB_EVENT_DEVICE_FATAL) {
		device_fatal(priv);
		mutex_lock(&priv->children_lock);
		list_for_each_entry(child, &priv->children, child_link)
			device_fatal(child);
		mutex_unlock(&priv->children_lock);
		return;
	}
	if (event->element.port_num != priv->port)
		return;
	switch (event->event) {
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_GID_CHANGE:
		level = IPOIB_FLUSH_LIGHT;
		break;
	case IB_EVENT_CLIENT_REREGISTER:
		level = IPOIB_FLUSH_NORMAL;
		break;
	case IB_EVENT_PKEY_CHANGE:
		level = IPOIB_FLUSH_HEAVY;
		break;
	default:
		return;
	}
	ipoib_dbg(priv, "port event %s: flush level %d\n",
		  ib_event_msg(event->event), level);
	if (event->event == IB_EVENT_PORT_ERR)
		set_bit(IPOIB_PORT_WENT_DOWN, &priv->flags);
	queue_flush(priv, level);
	mutex_lock(&priv->children_lock);
	list_for_each_entry(child, &priv->children, child_link) {
		if (event->event == IB_EVENT_PORT_ERR)
			set_bit(IPOIB_PORT_WENT_DOWN, &child->flags);
		queue_flush(child, level);
	}
	mutex_unlock(&priv->children_lock);
}

/* Paths stale, groups rejoined, if the port is up. */
static void flush_paths_and_groups(struct ipoib_dev *priv)
{
	struct ib_port_attr attr;

	lockdep_assert_held(&priv->state_lock);
	ipoib_count(priv, IPOIB_CNT_FLUSHES);
	ipoib_paths_invalidate(priv);
	ipoib_mcast_stop(priv);
	if (ib_query_port(priv->ca, priv->port, &attr) ||
	    attr.state != IB_PORT_ACTIVE)
		return;		/* PORT_ACTIVE will bring us back */
	if (test_and_clear_bit(IPOIB_PORT_WENT_DOWN, &priv->flags))
		ipoib_cm_port_back(priv);
	ipoib_set_local_lid(priv, &attr);
	if (test_bit(IPOIB_QP_READY, &priv->flags))
		ipoib_mcast_start(priv);
}

static void flush_if_open(struct ipoib_dev *priv)
{
	mutex_lock(&priv->state_lock);
	if (test_bit(IPOIB_OPEN, &priv->flags))
		flush_paths_and_groups(priv);
	else	/* a closed interface has no connections to end */
		clear_bit(IPOIB_PORT_WENT_DOWN, &priv->flags);
	mutex_unlock(&priv->state_lock);
}

void ipoib_flush_light(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      flush_light);

	/* The GID may have changed: the link task updates the address. */
	queue_delayed_work(priv->wq, &priv->link_task, 0);
	flush_if_open(priv);
}

void ipoib_flush_normal(struct work_struct *work)
{
	flush_if_open(container_of(work, struct ipoib_dev, flush_normal));
}

void ipoib_flush_heavy(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      flush_heavy);
	bool was_ready, present;
	u16 old_index;

	mutex_lock(&priv->state_lock);
	if (!test_bit(IPOIB_OPEN, &priv->flags))
		goto out;
	was_ready = test_bit(IPOIB_QP_READY, &priv->flags);
	old_index = priv->pkey_index;
	present = ipoib_find_pkey_index(priv);
	if (was_ready && present && old_index == priv->pkey_index) {
		flush_paths_and_groups(priv);
		goto out;
	}
	if (present)
		netdev_info(priv->dev, "P_Key 0x%04x now at index %u\n",
			    priv->pkey, priv->pkey_index);
	else if (was_ready)
		netdev_info(priv->dev, "P_Key 0x%04x left the port's table; no carrier until it returns\n",
			    priv->pkey);
	ipoib_count(priv, IPOIB_CNT_FLUSHES);
	ipoib_restart(priv);
out:
	mutex_unlock(&priv->state_lock);
}

void ipoib_tx_recover(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(work, struct ipoib_dev,
					      tx_recover_task);

	mutex_lock(&priv->state_lock);
	if (test_bit(IPOIB_OPEN, &priv->flags) &&
	    test_bit(IPOIB_QP_READY, &priv->flags))
		ipoib_restart(priv);
	mutex_unlock(&priv->state_lock);
}

static void hw_error_again(struct ipoib_dev *priv)
{
	set_bit(IPOIB_HW_CQ_ERR, &priv->hw_errors);
	queue_delayed_work(priv->wq, &priv->hw_recover_task, HZ);
}

/*
 * After the HCA failed the UD QP (QP_FATAL): the data path restarts on
 * the same QP, reset, and keeps its QPN.  After a CQ error: new CQs and a
 * new QP, as a ring resize makes them (rtnl: the QPN, so the address,
 * changes); never blocking on rtnl, whose holder may wait for this queue.
 */
void ipoib_hw_recover(struct work_struct *work)
{
	struct ipoib_dev *priv = container_of(to_delayed_work(work),
					      struct ipoib_dev,
					      hw_recover_task);
	int ret;

	if (test_bit(IPOIB_DEV_FATAL, &priv->flags))
		return;
	if (test_bit(IPOIB_HW_CQ_ERR, &priv->hw_errors)) {
		/* Going away: its queues are being freed anyway. */
		if (READ_ONCE(priv->dev->reg_state) != NETREG_REGISTERED)
			return;
		if (!rtnl_trylock()) {
			queue_delayed_work(priv->wq, &priv->hw_recover_task, 1);
			return;
		}
		clear_bit(IPOIB_HW_CQ_ERR, &priv->hw_errors);
		clear_bit(IPOIB_HW_QP_FATAL, &priv->hw_errors);
		ret = ipoib_resize_rings(priv, priv->rx_size, priv->tx_size,
					 NULL);
		rtnl_unlock();
		if (ret) {
			netdev_warn(priv->dev, "new queues could not be made (%d); trying again in 1 s\n",
				    ret);
			hw_error_again(priv);
			return;
		}
		ipoib_count(priv, IPOIB_CNT_HW_RECOVERIES);
		return;
	}
	if (!test_and_clear_bit(IPOIB_HW_QP_FATAL, &priv->hw_errors))
		return;
	mutex_lock(&priv->state_lock);
	if (test_bit(IPOIB_OPEN, &priv->flags) &&
	    test_bit(IPOIB_QP_READY, &priv->flags)) {
		ipoib_restart(priv);
		ipoib_count(priv, IPOIB_CNT_HW_RECOVERIES);
	}
	mutex_unlock(&priv->state_lock);
}
