/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_child.c's functions for the driver's other files: P_Key child
 * interfaces.
 */
#ifndef IPOIB_CHILD_H
#define IPOIB_CHILD_H

#include "ipoib.h"

/* ipoib_child.c */
int ipoib_child_add(struct ipoib_dev *parent, u16 pkey, const char *name,
		    struct net_device **out);
int ipoib_child_del(struct ipoib_dev *parent, u16 pkey);
int ipoib_child_init_netlink(struct ipoib_dev *parent, struct net_device *dev,
			     u16 pkey, struct netlink_ext_ack *extack);
void ipoib_child_dellink(struct net_device *dev, struct list_head *head);

#endif /* IPOIB_CHILD_H */
