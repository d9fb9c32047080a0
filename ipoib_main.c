// SPDX-License-Identifier: GPL-2.0
/*
 * Module life: checking the parameters (ipoib_params.c), the ib_client
 * that gives every InfiniBand port its interface, and taking them all away
 * again.
 */
#include <linux/module.h>
#include <linux/log2.h>
#include <rdma/ib_cache.h>
#include "ipoib_cm.h"
#include "ipoib_debugfs.h"
#include "ipoib_events.h"
#include "ipoib_netdev.h"
#include "ipoib_netlink.h"
#include "ipoib_rdma_cm.h"
#include "ipoib_selftest.h"
#include "ipoib_sysfs.h"

MODULE_DESCRIPTION("IP over InfiniBand (RFC 4391, 4392, 4755)");
MODULE_LICENSE("GPL");
MODULE_VERSION(DRV_VERSION);

/* What the client keeps per IB device: the ports' main interfaces. */
struct ipoib_ca {
	struct list_head parents;
};

static int ipoib_add_one(struct ib_device *ca);
static void ipoib_remove_one(struct ib_device *ca, void *client_data);

/* rdma_cm asks who owns the address of a connection request. */
static struct net_device *get_net_dev_by_params(struct ib_device *ca,
						u32 port, u16 pkey,
						const union ib_gid *gid,
						const struct sockaddr *addr,
						void *client_data)
{
	struct ipoib_ca *ipca = client_data;

	return ipoib_rdma_cm_owner(ca, port, pkey, gid, addr, &ipca->parents);
}

static struct ib_client ipoib_client = {
	.name = DRV_NAME,
	.add = ipoib_add_one,
	.remove = ipoib_remove_one,
	.get_net_dev_by_params = get_net_dev_by_params,
};

static int check_queue_param(const char *name, unsigned int *value)
{
	unsigned int v = *value;

	if (v < IPOIB_MIN_QUEUE || v > IPOIB_MAX_QUEUE) {
		pr_err(DRV_NAME ": %s=%u out of range %u-%u\n", name, v,
		       IPOIB_MIN_QUEUE, IPOIB_MAX_QUEUE);
		return -EINVAL;
	}
	if (!is_power_of_2(v)) {
		*value = roundup_pow_of_two(v);
		pr_info(DRV_NAME ": %s=%u rounded up to %u\n", name, v, *value);
	}
	return 0;
}

static struct net_device *add_port(struct ib_device *ca, u32 port)
{
	struct net_device *dev;
	struct ipoib_dev *priv;
	u16 pkey;
	int ret;

	/* The main interface uses the P_Key at index 0, as a full member. */
	ret = ib_query_pkey(ca, port, 0, &pkey);
	if (ret) {
		dev_warn(&ca->dev, DRV_NAME ": port %u: no P_Key at index 0 (%d)\n",
			 port, ret);
		return ERR_PTR(ret);
	}
	dev = ipoib_create_netdev(ca, port, "ib%d", pkey | IPOIB_PKEY_FULL,
				  NULL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	/* Children made later take these from their parent. */
	dev->sysfs_groups[0] = ipoib_sysfs_groups[0];
	dev->rtnl_link_ops = &ipoib_link_ops;
	priv = ipoib_priv(dev);
	INIT_IB_EVENT_HANDLER(&priv->event_handler, ca, ipoib_event);

	ret = register_netdev(dev);
	if (ret) {
		dev_warn(&ca->dev, DRV_NAME ": port %u: register_netdev: %d\n",
			 port, ret);
		free_netdev(dev);
		return ERR_PTR(ret);
	}
	ipoib_netdev_registered(dev);
	ib_register_event_handler(&priv->event_handler);
	return dev;
}

static int ipoib_add_one(struct ib_device *ca)
{
	struct ipoib_ca *ipca;
	unsigned int count = 0;
	u32 port;

	ipca = kzalloc(sizeof(*ipca), GFP_KERNEL);
	if (!ipca)
		return -ENOMEM;
	INIT_LIST_HEAD(&ipca->parents);

	rdma_for_each_port(ca, port) {
		struct net_device *dev;

		/* RoCE and iWARP ports have no IPoIB. */
		if (!rdma_protocol_ib(ca, port))
			continue;
		dev = add_port(ca, port);
		if (IS_ERR(dev))
			continue;
		list_add_tail(&ipoib_priv(dev)->child_link, &ipca->parents);
		count++;
	}
	if (!count) {
		kfree(ipca);
		return -EOPNOTSUPP;
	}
	ib_set_client_data(ca, &ipoib_client, ipca);
	return 0;
}

/* Children first, then the parent, all in one rtnl batch. */
static void remove_parent(struct ipoib_dev *priv)
{
	struct ipoib_dev *child, *next;
	LIST_HEAD(kill);

	ib_unregister_event_handler(&priv->event_handler);
	rtnl_lock();
	mutex_lock(&priv->children_lock);
	list_for_each_entry_safe(child, next, &priv->children, child_link) {
		list_del_init(&child->child_link);
		unregister_netdevice_queue(child->dev, &kill);
	}
	mutex_unlock(&priv->children_lock);
	unregister_netdevice_queue(priv->dev, &kill);
	unregister_netdevice_many(&kill);
	rtnl_unlock();
}

static void ipoib_remove_one(struct ib_device *ca, void *client_data)
{
	struct ipoib_ca *ipca = client_data;
	struct ipoib_dev *priv, *next;

	list_for_each_entry_safe(priv, next, &ipca->parents, child_link) {
		list_del(&priv->child_link);
		remove_parent(priv);
	}
	kfree(ipca);
}

static int __init ipoib_init_module(void)
{
	int ret;

	ret = check_queue_param("send_queue_size", &ipoib_sendq_size);
	if (ret)
		return ret;
	ret = check_queue_param("recv_queue_size", &ipoib_recvq_size);
	if (ret)
		return ret;
	if (ipoib_send_queues < 1 ||
	    ipoib_send_queues > IPOIB_MAX_SEND_QUEUES) {
		pr_err(DRV_NAME ": send_queues=%u out of range 1-%u\n",
		       ipoib_send_queues, IPOIB_MAX_SEND_QUEUES);
		return -EINVAL;
	}
	ret = ipoib_cm_check_params();
	if (ret)
		return ret;
	ret = ipoib_selftest_run();
	if (ret)
		return ret;
	ret = ipoib_cm_module_init();
	if (ret)
		return ret;

	ipoib_debugfs_init();
	ib_sa_register_client(&ipoib_sa_client);
	ret = ipoib_netlink_init();
	if (ret)
		goto err_sa;
	ret = ib_register_client(&ipoib_client);
	if (ret)
		goto err_netlink;
	return 0;

err_netlink:
	ipoib_netlink_exit();
err_sa:
	ib_sa_unregister_client(&ipoib_sa_client);
	ipoib_debugfs_exit();
	ipoib_cm_module_exit();
	return ret;
}

static void __exit ipoib_cleanup_module(void)
{
	/*
	 * Interfaces first: unregistering the link ops would otherwise
	 * "dellink" the parents too.  With the parents gone, no child can
	 * be created meanwhile.
	 */
	ib_unregister_client(&ipoib_client);
	ipoib_netlink_exit();
	ib_sa_unregister_client(&ipoib_sa_client);
	ipoib_debugfs_exit();
	ipoib_cm_module_exit();
}

module_init(ipoib_init_module);
module_exit(ipoib_cleanup_module);
