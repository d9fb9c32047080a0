/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_ah.c's functions for the driver's other files: address handle
 * lifetime.
 */
#ifndef IPOIB_AH_H
#define IPOIB_AH_H

#include "ipoib.h"

/* ipoib_ah.c */
struct ipoib_ah *ipoib_ah_create(struct ipoib_dev *priv,
				 struct rdma_ah_attr *attr);
void ipoib_ah_put(struct ipoib_ah *ah);
static inline struct ipoib_ah *ipoib_ah_get(struct ipoib_ah *ah)
{
	kref_get(&ah->ref);
	return ah;
}

void ipoib_ah_reap(struct work_struct *work);
void ipoib_ah_reap_all(struct ipoib_dev *priv);

#endif /* IPOIB_AH_H */
