/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences for the test modules (sib, cmprobe, sibperf), as
 * compat.h is for the driver: detected by the probes of tests_compat_probes.c
 * (see Kbuild.compat), never by version number.
 */
#ifndef TESTS_COMPAT_H
#define TESTS_COMPAT_H

#include "compat_generated.h"

/* asm/unaligned.h moved to linux/unaligned.h (6.12). */
#ifdef TESTS_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* The create_cq verb gets the uverbs_attr_bundle, not its ib_udata (6.11). */
#ifdef TESTS_HAVE_CREATE_CQ_ATTR_BUNDLE
#define sib_create_cq_udata uverbs_attr_bundle
#else
#define sib_create_cq_udata ib_udata
#endif

/* ib_sa_path_rec_get's callback: the record count became unsigned int. */
#ifdef TESTS_HAVE_SA_PATH_NUM_PRS_UINT
#define tests_sa_num_prs unsigned int
#else
#define tests_sa_num_prs int
#endif

/* dma_set_max_seg_size() cannot fail any more, and returns nothing (6.12). */
#ifdef TESTS_HAVE_DMA_MAX_SEG_SIZE_INT
#define tests_dma_set_max_seg_size dma_set_max_seg_size
#else
#include <linux/dma-mapping.h>
static inline int tests_dma_set_max_seg_size(struct device *dev,
					     unsigned int size)
{
	dma_set_max_seg_size(dev, size);
	return 0;
}
#endif

#endif /* TESTS_COMPAT_H */
