/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, kept here so the driver's files read as if
 * written for one kernel.  Baseline: Debian 12's 6.1.
 *
 * Differences are detected from the headers themselves, not by version
 * number: Kbuild.compat compiles each probe of compat_probes.c against them
 * and writes the IPOIB_HAVE_* of those that compile in compat_generated.h,
 * so distribution kernels with backports build too.
 */
#ifndef IPOIB_COMPAT_H
#define IPOIB_COMPAT_H

#include <linux/netdevice.h>
#include "compat_generated.h"

/* header_ops.parse gained a second argument: the net_device. */
#ifdef IPOIB_HAVE_HEADER_PARSE_DEV
#define IPOIB_HEADER_PARSE(fn)						\
	int fn(const struct sk_buff *skb, const struct net_device *dev,	\
	       unsigned char *haddr)
#else
#define IPOIB_HEADER_PARSE(fn)						\
	int fn(const struct sk_buff *skb, unsigned char *haddr)
#endif

/* ib_sa_path_rec_get's callback: the record count became unsigned int. */
#ifdef IPOIB_HAVE_SA_PATH_NUM_PRS_UINT
#define ipoib_sa_num_prs unsigned int
#else
#define ipoib_sa_num_prs int
#endif

/*
 * page_pool is built only when a driver of the kernel selects it (Debian's
 * kernels have it; a lean config may not): without, receive pages come
 * from the page allocator and are not recycled.
 */
#if IS_ENABLED(CONFIG_PAGE_POOL)
#define IPOIB_RX_PAGE_POOL 1
#endif

/* page_pool's API: its own folder of headers since 6.6. */
#ifdef IPOIB_HAVE_PAGE_POOL_HELPERS
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

/*
 * Whether a NAPI instance's GRO holds no packet: none in its hash (being
 * merged) and none in its list (merged, waiting for the poll's end).
 * napi_struct's fields, the same in 6.1 and 6.12; read only by the poll
 * that owns them.
 */
static inline bool ipoib_napi_gro_empty(const struct napi_struct *napi)
{
	return !napi->gro_bitmask && !napi->rx_count;
}

#endif /* IPOIB_COMPAT_H */
