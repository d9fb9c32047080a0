// SPDX-License-Identifier: GPL-2.0
/*
 * rtnl link type: "ip link add link ib0 name ib0.8001 type ipoib pkey
 * 0x8001" makes a child, "ip link set ... type ipoib mode connected umcast
 * 1" changes one, and "ip -d link show" prints P_Key, mode and umcast.
 * The attributes are the uAPI's IFLA_IPOIB_*, as the in-tree driver uses
 * them.  rtnl is held throughout; a child that newlink fails to make is
 * left unregistered for rtnl to free.
 */
#include <linux/module.h>
#include <net/rtnetlink.h>
#include "ipoib.h"
#include "ipoib_child.h"
#include "ipoib_link.h"
#include "ipoib_netdev.h"
#include "ipoib_netlink.h"
#include "ipoib_state.h"

#ifndef IPOIB_LINK_KIND
#define IPOIB_LINK_KIND "ipoib"
#endif

static const struct nla_policy ipoib_nl_policy[IFLA_IPOIB_MAX + 1] = {
	[IFLA_IPOIB_PKEY]	= { .type = NLA_U16 },
	[IFLA_IPOIB_MODE]	= { .type = NLA_U16 },
	[IFLA_IPOIB_UMCAST]	= { .type = NLA_U16 },
};

/* Called for both newlink and changelink, before either changes a thing. */
static int ipoib_nl_validate(struct nlattr *tb[], struct nlattr *data[],
			     struct netlink_ext_ack *extack)
{
	u16 v;

	if (!data)
		return 0;
	if (data[IFLA_IPOIB_PKEY]) {
		v = nla_get_u16(data[IFLA_IPOIB_PKEY]);
		if (!ipoib_pkey_valid(v)) {
			NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPOIB_PKEY],
					    "P_Keys 0x0000 and 0x8000 are reserved");
			return -EINVAL;
		}
	}
	if (data[IFLA_IPOIB_MODE]) {
		v = nla_get_u16(data[IFLA_IPOIB_MODE]);
		if (v != IPOIB_MODE_DATAGRAM && v != IPOIB_MODE_CONNECTED) {
			NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPOIB_MODE],
					    "mode is 0 (datagram) or 1 (connected)");
			return -EINVAL;
		}
	}
	return 0;
}

/* Mode first: it is the one that can fail, and then umcast is untouched. */
static int ipoib_nl_apply(struct ipoib_dev *priv, struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	int ret;

	if (data[IFLA_IPOIB_MODE]) {
		ret = ipoib_set_mode(priv, nla_get_u16(data[IFLA_IPOIB_MODE]) ==
				     IPOIB_MODE_CONNECTED, extack);
		if (ret)
			return ret;
	}
	if (data[IFLA_IPOIB_UMCAST])
		return ipoib_set_umcast(priv,
					nla_get_u16(data[IFLA_IPOIB_UMCAST]));
	return 0;
}

static int ipoib_nl_changelink(struct net_device *dev, struct nlattr *tb[],
			       struct nlattr *data[],
			       struct netlink_ext_ack *extack)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	u16 pkey;

	if (data[IFLA_IPOIB_PKEY]) {
		pkey = nla_get_u16(data[IFLA_IPOIB_PKEY]) | IPOIB_PKEY_FULL;
		if (pkey != priv->pkey) {
			NL_SET_ERR_MSG_ATTR(extack, data[IFLA_IPOIB_PKEY],
					    "the P_Key of an interface cannot change; make a new child");
			return -EOPNOTSUPP;
		}
	}
	return ipoib_nl_apply(priv, data, extack);
}

/* IFLA_LINK must name a main interface of this driver. */
static struct ipoib_dev *ipoib_nl_parent(struct net *net, struct nlattr *tb[],
					 struct netlink_ext_ack *extack)
{
	struct net_device *pdev;

	if (!tb[IFLA_LINK]) {
		NL_SET_ERR_MSG(extack, "a parent IPoIB interface (link) is required");
		return ERR_PTR(-EINVAL);
	}
	pdev = __dev_get_by_index(net, nla_get_u32(tb[IFLA_LINK]));
	if (!pdev || !ipoib_is_our_netdev(pdev)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK],
				    "link is not an interface of " DRV_NAME);
		return ERR_PTR(-ENODEV);
	}
	if (ipoib_is_child(ipoib_priv(pdev))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_LINK],
				    "link is a child; children are made on a main interface");
		return ERR_PTR(-EINVAL);
	}
	return ipoib_priv(pdev);
}

/*
 * Without a P_Key the child shares its parent's partition, as in-tree:
 * several interfaces on one partition, told apart by their QPN.
 */
static int ipoib_nl_newlink(struct net *src_net, struct net_device *dev,
			    struct nlattr *tb[], struct nlattr *data[],
			    struct netlink_ext_ack *extack)
{
	struct ipoib_dev *parent;
	u16 pkey;
	int ret;

	parent = ipoib_nl_parent(src_net, tb, extack);
	if (IS_ERR(parent))
		return PTR_ERR(parent);
	if (data && data[IFLA_IPOIB_PKEY])
		pkey = nla_get_u16(data[IFLA_IPOIB_PKEY]);
	else
		pkey = parent->pkey;

	ret = ipoib_child_init_netlink(parent, dev, pkey | IPOIB_PKEY_FULL,
				       extack);
	if (ret || !data)
		return ret;

	ret = ipoib_nl_apply(ipoib_priv(dev), data, extack);
	if (ret)
		/* rtnl frees it once unregistered. */
		unregister_netdevice(dev);
	return ret;
}

/* The main interfaces belong to their port: they go when it goes. */
static void ipoib_nl_dellink(struct net_device *dev, struct list_head *head)
{
	if (!ipoib_is_child(ipoib_priv(dev))) {
		netdev_warn(dev, "the main interface of a port cannot be deleted\n");
		return;
	}
	ipoib_child_dellink(dev, head);
}

static size_t ipoib_nl_get_size(const struct net_device *dev)
{
	return 3 * nla_total_size(sizeof(u16));	/* P_Key, mode, umcast */
}

static int ipoib_nl_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	u16 mode = ipoib_mode_connected(priv) ? IPOIB_MODE_CONNECTED :
						 IPOIB_MODE_DATAGRAM;

	if (nla_put_u16(skb, IFLA_IPOIB_PKEY, priv->pkey) ||
	    nla_put_u16(skb, IFLA_IPOIB_MODE, mode) ||
	    nla_put_u16(skb, IFLA_IPOIB_UMCAST,
			test_bit(IPOIB_UMCAST, &priv->flags)))
		return -EMSGSIZE;
	return 0;
}

/* A child moved to another namespace still names its parent's. */
static struct net *ipoib_nl_get_link_net(const struct net_device *dev)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	return dev_net(priv->parent ? priv->parent->dev : dev);
}

struct rtnl_link_ops ipoib_link_ops __read_mostly = {
	.kind		= IPOIB_LINK_KIND,
	.priv_size	= sizeof(struct ipoib_dev),
	.setup		= ipoib_setup,
	/* Bound to an HCA port: back to init_net when a namespace dies. */
	.netns_refund	= true,
	.maxtype	= IFLA_IPOIB_MAX,
	.policy		= ipoib_nl_policy,
	.validate	= ipoib_nl_validate,
	.newlink	= ipoib_nl_newlink,
	.changelink	= ipoib_nl_changelink,
	.dellink	= ipoib_nl_dellink,
	.get_size	= ipoib_nl_get_size,
	.fill_info	= ipoib_nl_fill_info,
	.get_link_net	= ipoib_nl_get_link_net,
};

int ipoib_netlink_init(void)
{
	return rtnl_link_register(&ipoib_link_ops);
}

void ipoib_netlink_exit(void)
{
	rtnl_link_unregister(&ipoib_link_ops);
}

/* "ip link add ... type ipoib" loads the module. */
MODULE_ALIAS_RTNL_LINK(IPOIB_LINK_KIND);
