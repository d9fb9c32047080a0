/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_selftest.c's functions for the driver's other files: pure rules
 * checked at load (selftest=1).
 */
#ifndef IPOIB_SELFTEST_H
#define IPOIB_SELFTEST_H

#include "ipoib.h"

/* ipoib_selftest.c */
int ipoib_selftest_run(void);

#endif /* IPOIB_SELFTEST_H */
