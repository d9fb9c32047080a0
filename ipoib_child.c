// SPDX-License-Identifier: GPL-2.0
/*
 * P_Key child interfaces: each a full interface of its own (QP, rings,
 * groups) on the parent's port, in another partition.  They are made
 * through sysfs create_child (named parent.PKEY) or through rtnl.
 */
#include "ipoib.h"
#include "ipoib_child.h"
#include "ipoib_netdev.h"

static bool pkey_ok(struct ipoib_dev *parent, u16 pkey)
{
	if (ipoib_pkey_valid(pkey))
		return true;
	netdev_warn(parent->dev, "P_Key 0x%04x is reserved and cannot be used\n",
		    pkey);
	return false;
}

/* Only one sysfs child per P_Key, and none with the parent's. */
static bool sysfs_child_exists(struct ipoib_dev *parent, u16 pkey)
{
	struct ipoib_dev *child;

	ASSERT_RTNL();
	lockdep_assert_held(&parent->children_lock);
	if (parent->pkey == pkey)
		return true;
	list_for_each_entry(child, &parent->children, child_link)
		if (child->sysfs_child && child->pkey == pkey)
			return true;
	return false;
}

/* Register a child netdev already made for this parent. */
static int register_child(struct ipoib_dev *parent, struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	int ret;

	ASSERT_RTNL();
	ret = register_netdevice(dev);
	if (ret)
		return ret;
	ipoib_netdev_registered(dev);
	mutex_lock(&parent->children_lock);
	list_add_tail(&priv->child_link, &parent->children);
	mutex_unlock(&parent->children_lock);
	return 0;
}

/* sysfs create_child: called without rtnl. */
int ipoib_child_add(struct ipoib_dev *parent, u16 pkey, const char *name,
		    struct net_device **out)
{
	char ifname[IFNAMSIZ];
	struct net_device *dev;
	int ret;

	if (ipoib_is_child(parent))
		return -EOPNOTSUPP;
	if (!pkey_ok(parent, pkey))
		return -EINVAL;
	if (!rtnl_trylock())
		return restart_syscall();

	mutex_lock(&parent->children_lock);
	ret = sysfs_child_exists(parent, pkey) ? -ENOTUNIQ : 0;
	mutex_unlock(&parent->children_lock);
	if (ret) {
		netdev_warn(parent->dev, "a child with P_Key 0x%04x exists already\n",
			    pkey);
		goto out;
	}
	if (!name) {
		scnprintf(ifname, sizeof(ifname), "%s.%04x", parent->dev->name,
			  pkey);
		name = ifname;
	}
	ret = -ENOMEM;
	dev = ipoib_create_netdev(parent->ca, parent->port, name, pkey, parent);
	if (!dev)
		goto out;
	ipoib_priv(dev)->sysfs_child = true;
	/* Made where the parent lives, as a user in that namespace expects. */
	dev_net_set(dev, dev_net(parent->dev));
	ret = register_child(parent, dev);
	if (ret) {
		netdev_warn(parent->dev, "registering child %s failed: %d\n",
			    name, ret);
		free_netdev(dev);
		goto out;
	}
	if (out)
		*out = dev;
out:
	rtnl_unlock();
	return ret;
}

/* sysfs delete_child: only children made through create_child. */
int ipoib_child_del(struct ipoib_dev *parent, u16 pkey)
{
	struct ipoib_dev *child, *found = NULL;

	if (ipoib_is_child(parent))
		return -EOPNOTSUPP;
	if (!rtnl_trylock())
		return restart_syscall();
	mutex_lock(&parent->children_lock);
	list_for_each_entry(child, &parent->children, child_link) {
		if (child->sysfs_child && child->pkey == pkey) {
			found = child;
			break;
		}
	}
	mutex_unlock(&parent->children_lock);
	if (found)
		unregister_netdevice(found->dev);
	rtnl_unlock();
	return found ? 0 : -ENODEV;
}

/* rtnl newlink, rtnl held: the netdev was allocated by the core. */
int ipoib_child_init_netlink(struct ipoib_dev *parent, struct net_device *dev,
			     u16 pkey, struct netlink_ext_ack *extack)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	ASSERT_RTNL();
	if (ipoib_is_child(parent)) {
		NL_SET_ERR_MSG(extack, "the link must be a parent interface");
		return -EINVAL;
	}
	if (!ipoib_pkey_valid(pkey)) {
		NL_SET_ERR_MSG(extack, "P_Key 0x0000 and 0x8000 are reserved");
		return -EINVAL;
	}
	priv->ca = parent->ca;
	priv->port = parent->port;
	priv->pkey = pkey;
	priv->parent = parent;
	/* The core set the link ops; the attributes are the parent's. */
	dev->sysfs_groups[0] = parent->dev->sysfs_groups[0];
	dev->dev_port = parent->dev->dev_port;
	dev->dev_id = parent->dev->dev_id;
	/* No parent device, as ipoib_create_netdev() says. */
	return register_child(parent, dev);
}

void ipoib_child_dellink(struct net_device *dev, struct list_head *head)
{
	unregister_netdevice_queue(dev, head);
}
