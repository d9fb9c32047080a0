/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, kept here so the driver's files read as if
 * written for one kernel.  Baseline: Debian 12's 6.1.
 */
#ifndef IPOIB_COMPAT_H
#define IPOIB_COMPAT_H

#include <linux/netdevice.h>

/*
 * Differences are detected by Kbuild from the headers themselves (see the
 * IPOIB_HAVE_* probes there) rather than by version number, so distribution
 * kernels with backports build too.
 */

#endif /* IPOIB_COMPAT_H */
