/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_debugfs.c's functions for the driver's other files.
 */
#ifndef IPOIB_DEBUGFS_H
#define IPOIB_DEBUGFS_H

#include "ipoib.h"

/* ipoib_debugfs.c */
void ipoib_debugfs_init(void);
void ipoib_debugfs_exit(void);
void ipoib_debugfs_add(struct ipoib_dev *priv);
void ipoib_debugfs_remove(struct ipoib_dev *priv);

#endif /* IPOIB_DEBUGFS_H */
