/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_pmtu.c's functions for the driver's other files: packets too big:
 * dropped, their senders told (ICMP).
 */
#ifndef IPOIB_PMTU_H
#define IPOIB_PMTU_H

#include "ipoib.h"

/* ipoib_pmtu.c */
void ipoib_too_big(struct ipoib_dev *priv, struct sk_buff *skb,
		   unsigned int mtu);
void ipoib_too_big_task(struct work_struct *work);
void ipoib_too_big_flush(struct ipoib_dev *priv);

#endif /* IPOIB_PMTU_H */
