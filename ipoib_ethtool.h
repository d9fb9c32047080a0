/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_ethtool.c's functions for the driver's other files.
 */
#ifndef IPOIB_ETHTOOL_H
#define IPOIB_ETHTOOL_H

#include "ipoib.h"

/* ipoib_ethtool.c */
extern const struct ethtool_ops ipoib_ethtool_ops;

#endif /* IPOIB_ETHTOOL_H */
