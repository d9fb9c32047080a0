// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_cm's question: which interface owns the address a connection
 * request was sent to?  A passive rdma_cm id gets a REQ naming a port,
 * a P_Key, the GID it was sent to and an IP address; ib_core asks each
 * client for the net_device behind them (ib_get_net_dev_by_params()), and
 * rdma_cm refuses the request when nobody answers.
 *
 * The link alone (port, P_Key, GID) decides when one interface matches.
 * P_Key children share their parent's GID, and several children may share
 * a P_Key (a container host makes one per pod): then the IP address does.
 * An interface under a bond answers with the bond, whose address rdma_cm
 * matches.  Namespaces are not filtered here: rdma_cm checks them.
 */
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include "ipoib.h"
#include "ipoib_rdma_cm.h"

struct owner_search {
	u16 pkey;			/* without the membership bit */
	const union ib_gid *gid;	/* NULL: any */
	const struct sockaddr *addr;	/* NULL: the link alone decides */
	struct net_device *found;	/* first match, held */
	unsigned int matches;
};

static bool dev_has_addr_rcu(struct net_device *dev,
			     const struct sockaddr *addr)
{
	const struct sockaddr_in6 *sin6;
	const struct sockaddr_in *sin;
	struct in_device *in_dev;

	switch (addr->sa_family) {
	case AF_INET:
		sin = (const struct sockaddr_in *)addr;
		in_dev = __in_dev_get_rcu(dev);
		return in_dev && inet_confirm_addr(dev_net(dev), in_dev, 0,
						   sin->sin_addr.s_addr,
						   RT_SCOPE_HOST);
	case AF_INET6:
		if (!IS_ENABLED(CONFIG_IPV6))
			return false;
		sin6 = (const struct sockaddr_in6 *)addr;
		return ipv6_chk_addr(dev_net(dev), &sin6->sin6_addr, dev, 1);
	default:
		return false;
	}
}

struct upper_search {
	const struct sockaddr *addr;
	struct net_device *owner;
};

static int upper_has_addr(struct net_device *upper,
			  struct netdev_nested_priv *nested)
{
	struct upper_search *s = nested->data;

	if (!dev_has_addr_rcu(upper, s->addr))
		return 0;
	s->owner = upper;
	return 1;		/* stop the walk */
}

/*
 * Who answers for dev, held: with an address, dev or the upper device
 * (bond, VLAN-like stack) that has it; without one, dev's master if it is
 * enslaved, else dev.
 */
static struct net_device *answering_dev(struct net_device *dev,
					const struct sockaddr *addr)
{
	struct upper_search s = { .addr = addr };
	struct netdev_nested_priv nested = { .data = &s };
	struct net_device *owner;

	rcu_read_lock();
	if (!addr) {
		owner = netdev_master_upper_dev_get_rcu(dev) ?: dev;
	} else if (dev_has_addr_rcu(dev, addr)) {
		owner = dev;
	} else {
		netdev_walk_all_upper_dev_rcu(dev, upper_has_addr, &nested);
		owner = s.owner;
	}
	if (owner)
		dev_hold(owner);
	rcu_read_unlock();
	return owner;
}

static void consider(struct ipoib_dev *priv, struct owner_search *s)
{
	union ib_gid gid;
	struct net_device *owner;

	if ((READ_ONCE(priv->pkey) ^ s->pkey) & ~IPOIB_PKEY_FULL)
		return;
	if (s->gid) {
		/* Written under rtnl, which we cannot take here. */
		memcpy(&gid, &priv->local_gid, sizeof(gid));
		if (memcmp(&gid, s->gid, sizeof(gid)))
			return;
	}
	owner = answering_dev(priv->dev, s->addr);
	if (!owner)
		return;
	if (s->found)
		dev_put(owner);
	else
		s->found = owner;
	s->matches++;
}

/* Stops early once the answer is known not to be unique. */
static void search_port(struct list_head *parents, u32 port,
			struct owner_search *s)
{
	struct ipoib_dev *parent, *child;

	list_for_each_entry(parent, parents, child_link) {
		if (parent->port != port)
			continue;
		consider(parent, s);
		mutex_lock(&parent->children_lock);
		list_for_each_entry(child, &parent->children, child_link) {
			if (s->matches > 1)
				break;
			consider(child, s);
		}
		mutex_unlock(&parent->children_lock);
	}
}

static unsigned int search(struct list_head *parents, u32 port,
			   struct owner_search *s)
{
	s->found = NULL;
	s->matches = 0;
	search_port(parents, port, s);
	return s->matches;
}

/*
 * ib_client.get_net_dev_by_params for the port interfaces on parents (the
 * client data of ca).  Returns the interface held, or NULL.
 */
struct net_device *ipoib_rdma_cm_owner(struct ib_device *ca, u32 port,
				       u16 pkey, const union ib_gid *gid,
				       const struct sockaddr *addr,
				       struct list_head *parents)
{
	struct owner_search s = {
		.pkey = pkey & ~IPOIB_PKEY_FULL,
		.gid = gid,
	};

	might_sleep();
	if (!rdma_protocol_ib(ca, port))
		return NULL;

	if (search(parents, port, &s) <= 1)
		return s.found;
	dev_put(s.found);
	if (!addr)
		return NULL;

	s.addr = addr;
	if (search(parents, port, &s) > 1)
		dev_warn_ratelimited(&ca->dev,
				     DRV_NAME ": %pISc on %u interfaces, answering %s\n",
				     addr, s.matches, netdev_name(s.found));
	return s.found;
}
