/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_vf.c's functions for the driver's other files: SR-IOV VFs' GUIDs
 * and link state, through the HCA.
 */
#ifndef IPOIB_VF_H
#define IPOIB_VF_H

#include "ipoib.h"

/* ipoib_vf.c */
int ipoib_set_vf_link_state(struct net_device *dev, int vf, int state);
int ipoib_get_vf_config(struct net_device *dev, int vf,
			struct ifla_vf_info *ivf);
int ipoib_set_vf_guid(struct net_device *dev, int vf, u64 guid, int type);
int ipoib_get_vf_guid(struct net_device *dev, int vf,
		      struct ifla_vf_guid *node_guid,
		      struct ifla_vf_guid *port_guid);
int ipoib_get_vf_stats(struct net_device *dev, int vf,
		       struct ifla_vf_stats *stats);

#endif /* IPOIB_VF_H */
