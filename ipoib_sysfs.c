// SPDX-License-Identifier: GPL-2.0
/*
 * The interface's own files in /sys/class/net/<if>/, as the in-tree driver
 * has them: mode, umcast, pkey, create_child and delete_child on a parent,
 * parent on a child, and dev_id with a nudge towards dev_port.
 *
 * Stores that need rtnl take it with rtnl_trylock() and restart the system
 * call when it is busy: unregistering a netdev holds rtnl while it waits
 * for the netdev's sysfs callbacks to finish, so blocking on rtnl here can
 * deadlock.
 */
#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/rtnetlink.h>
#include <linux/sysfs.h>
#include "ipoib.h"
#include "ipoib_child.h"
#include "ipoib_link.h"
#include "ipoib_state.h"
#include "ipoib_sysfs.h"

static struct ipoib_dev *to_ipoib(struct device *d)
{
	return ipoib_priv(to_net_dev(d));
}

static ssize_t mode_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	bool cm = ipoib_mode_connected(to_ipoib(d));

	return sysfs_emit(buf, "%s\n", cm ? "connected" : "datagram");
}

static ssize_t mode_store(struct device *d, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct net_device *dev = to_net_dev(d);
	bool connected;
	int ret;

	if (sysfs_streq(buf, "connected")) {
		connected = true;
	} else if (sysfs_streq(buf, "datagram")) {
		connected = false;
	} else {
		netdev_warn(dev, "mode is \"datagram\" or \"connected\"\n");
		return -EINVAL;
	}

	if (!rtnl_trylock())
		return restart_syscall();
	if (dev->reg_state == NETREG_REGISTERED)
		ret = ipoib_set_mode(ipoib_priv(dev), connected, NULL);
	else
		ret = -EPERM;
	rtnl_unlock();
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(mode);

static ssize_t umcast_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  test_bit(IPOIB_UMCAST, &to_ipoib(d)->flags));
}

/* Any number, as in-tree: non-zero turns it on.  Anything else is refused. */
static ssize_t umcast_store(struct device *d, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	unsigned int val;
	int ret;

	if (kstrtouint(buf, 0, &val)) {
		netdev_warn(to_net_dev(d), "umcast is a number: 0 for off, any other for on\n");
		return -EINVAL;
	}
	if (!rtnl_trylock())
		return restart_syscall();
	ret = ipoib_set_umcast(to_ipoib(d), val != 0);
	rtnl_unlock();
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(umcast);

static ssize_t pkey_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", to_ipoib(d)->pkey);
}
static DEVICE_ATTR_RO(pkey);

/* Children only: the parent outlives them, so its name is there to read. */
static ssize_t parent_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct ipoib_dev *priv = to_ipoib(d);

	if (!priv->parent)
		return -ENODEV;
	return sysfs_emit(buf, "%s\n", priv->parent->dev->name);
}
static DEVICE_ATTR_RO(parent);

/*
 * A P_Key as create_child and delete_child take it: decimal, 0x-hex or
 * 0-octal, one that may name a partition.  Returned without the
 * full-membership bit, as written.  Children take HCA resources: the
 * writer needs CAP_NET_ADMIN in the initial namespace, not a container's.
 */
static int parse_child_pkey(struct net_device *dev, const char *buf,
			    u16 *pkey)
{
	unsigned int val;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (kstrtouint(buf, 0, &val) || !ipoib_pkey_valid(val)) {
		netdev_warn(dev, "P_Key must be a number in 0x0001-0xffff other than 0x8000\n");
		return -EINVAL;
	}
	*pkey = val;
	return 0;
}

static ssize_t create_child_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct net_device *dev = to_net_dev(d);
	char name[IFNAMSIZ];
	u16 pkey;
	int ret;

	ret = parse_child_pkey(dev, buf, &pkey);
	if (ret)
		return ret;

	/* The in-tree name: the parent's, cut to fit, and the P_Key as given. */
	BUILD_BUG_ON(sizeof("0123456789.abcd") > IFNAMSIZ);
	snprintf(name, sizeof(name), "%.10s.%04x", dev->name, pkey);

	/* Children are always full members, as the main interface is. */
	ret = ipoib_child_add(ipoib_priv(dev), pkey | IPOIB_PKEY_FULL, name,
			      NULL);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(create_child);

static ssize_t delete_child_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct net_device *dev = to_net_dev(d);
	u16 pkey;
	int ret;

	ret = parse_child_pkey(dev, buf, &pkey);
	if (ret)
		return ret;

	pkey |= IPOIB_PKEY_FULL;
	ret = ipoib_child_del(ipoib_priv(dev), pkey);
	if (ret == -ENODEV)
		netdev_warn(dev, "no child with P_Key 0x%04x made by create_child (ip link children are deleted with ip link)\n",
			    pkey);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(delete_child);

static struct attribute *ipoib_attrs[] = {
	&dev_attr_mode.attr,
	&dev_attr_umcast.attr,
	&dev_attr_pkey.attr,
	&dev_attr_parent.attr,
	&dev_attr_create_child.attr,
	&dev_attr_delete_child.attr,
	NULL
};

/* Children have a parent and cannot have children of their own. */
static umode_t ipoib_attr_visible(struct kobject *kobj, struct attribute *a,
				  int n)
{
	bool child = ipoib_is_child(to_ipoib(kobj_to_dev(kobj)));

	if (a == &dev_attr_parent.attr)
		return child ? a->mode : 0;
	if (a == &dev_attr_create_child.attr ||
	    a == &dev_attr_delete_child.attr)
		return child ? 0 : a->mode;
	return a->mode;
}

static const struct attribute_group ipoib_attr_group = {
	.attrs = ipoib_attrs,
	.is_visible = ipoib_attr_visible,
};

const struct attribute_group *ipoib_sysfs_groups[] = {
	&ipoib_attr_group,
	NULL
};
