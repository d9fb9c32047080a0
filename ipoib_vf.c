// SPDX-License-Identifier: GPL-2.0
/*
 * SR-IOV: the PF's interface manages its port's virtual functions
 * (`ip link set ib0 vf N node_guid G port_guid G state enable`, as the
 * SR-IOV network operator does); the HCA driver does the work.  A VF's
 * own interface has nothing to manage.
 */
#include <linux/if_link.h>
#include <linux/netdevice.h>
#include "ipoib.h"
#include "ipoib_vf.h"

static bool is_vf(const struct ipoib_dev *priv)
{
	return priv->ca->attrs.kernel_cap_flags & IBK_VIRTUAL_FUNCTION;
}

int ipoib_set_vf_link_state(struct net_device *dev, int vf, int state)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	if (is_vf(priv))
		return -EOPNOTSUPP;
	return ib_set_vf_link_state(priv->ca, vf, priv->port, state);
}

int ipoib_get_vf_config(struct net_device *dev, int vf,
			struct ifla_vf_info *ivf)
{
	struct ipoib_dev *priv = ipoib_priv(dev);
	int ret;

	if (is_vf(priv))
		return -EOPNOTSUPP;
	ret = ib_get_vf_config(priv->ca, vf, priv->port, ivf);
	if (ret)
		return ret;
	ivf->vf = vf;
	/* The PF's own address stands for the VF's, as in-tree. */
	memcpy(ivf->mac, dev->dev_addr, IPOIB_ALEN);
	return 0;
}

int ipoib_set_vf_guid(struct net_device *dev, int vf, u64 guid, int type)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	if (is_vf(priv))
		return -EOPNOTSUPP;
	if (type != IFLA_VF_IB_NODE_GUID && type != IFLA_VF_IB_PORT_GUID)
		return -EINVAL;
	return ib_set_vf_guid(priv->ca, vf, priv->port, guid, type);
}

int ipoib_get_vf_guid(struct net_device *dev, int vf,
		      struct ifla_vf_guid *node_guid,
		      struct ifla_vf_guid *port_guid)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	if (is_vf(priv))
		return -EOPNOTSUPP;
	return ib_get_vf_guid(priv->ca, vf, priv->port, node_guid, port_guid);
}

int ipoib_get_vf_stats(struct net_device *dev, int vf,
		       struct ifla_vf_stats *stats)
{
	struct ipoib_dev *priv = ipoib_priv(dev);

	if (is_vf(priv))
		return -EOPNOTSUPP;
	return ib_get_vf_stats(priv->ca, vf, priv->port, stats);
}
