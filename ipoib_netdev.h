/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_netdev.c's functions for the driver's other files: the net_device:
 * ops table, set-up, init, making one.
 */
#ifndef IPOIB_NETDEV_H
#define IPOIB_NETDEV_H

#include "ipoib.h"

/* ipoib_netdev.c */
void ipoib_setup(struct net_device *dev);
struct net_device *ipoib_create_netdev(struct ib_device *ca, u32 port,
				       const char *name, u16 pkey,
				       struct ipoib_dev *parent);
void ipoib_netdev_registered(struct net_device *dev);

#endif /* IPOIB_NETDEV_H */
