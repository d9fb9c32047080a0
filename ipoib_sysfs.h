/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_sysfs.c's functions for the driver's other files.
 */
#ifndef IPOIB_SYSFS_H
#define IPOIB_SYSFS_H

#include "ipoib.h"

/* ipoib_sysfs.c */
extern const struct attribute_group *ipoib_sysfs_groups[];

#endif /* IPOIB_SYSFS_H */
