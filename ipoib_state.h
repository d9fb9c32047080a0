/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_state.c's functions for the driver's other files: data path up and
 * down, mode, ring resize, link task.
 */
#ifndef IPOIB_STATE_H
#define IPOIB_STATE_H

#include "ipoib.h"

/* ipoib_state.c */
int ipoib_open(struct net_device *dev);
int ipoib_stop(struct net_device *dev);
void ipoib_restart(struct ipoib_dev *priv);
int ipoib_resize_rings(struct ipoib_dev *priv, unsigned int rx,
		       unsigned int tx, struct netlink_ext_ack *extack);
void ipoib_set_xps(struct ipoib_dev *priv);
int ipoib_set_send_queues(struct ipoib_dev *priv, unsigned int n,
			  struct netlink_ext_ack *extack);
int ipoib_set_mode(struct ipoib_dev *priv, bool connected,
		   struct netlink_ext_ack *extack);
void ipoib_cm_fallback_task(struct work_struct *work);
void ipoib_up_retry_task(struct work_struct *work);
void ipoib_link_task(struct work_struct *work);
void ipoib_gc_task(struct work_struct *work);

#endif /* IPOIB_STATE_H */
