// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel API probes for tests_compat.h (see Kbuild.compat): each block is
 * compiled on its own, and compiles only on a kernel that has what it is
 * named for.  Not part of any module.
 */
#include <rdma/ib_verbs.h>
#include <rdma/ib_sa.h>
#include <linux/dma-mapping.h>

#ifdef TESTS_HAVE_LINUX_UNALIGNED_H
#include <linux/unaligned.h>
#endif

#ifdef TESTS_HAVE_CREATE_CQ_ATTR_BUNDLE
/* The create_cq verb is given the uverbs_attr_bundle. */
static int probe_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			   struct uverbs_attr_bundle *attrs)
{
	return 0;
}

static const struct ib_device_ops probe_ops __maybe_unused = {
	.create_cq = probe_create_cq,
};
#endif

#ifdef TESTS_HAVE_SA_PATH_NUM_PRS_UINT
/* The SA's path record callback counts the records in an unsigned int. */
static void probe_path_done(int status, struct sa_path_rec *rec,
			    unsigned int num_prs, void *context)
{
}

int probe_path_rec_get(struct ib_device *ca);
int probe_path_rec_get(struct ib_device *ca)
{
	return ib_sa_path_rec_get(NULL, ca, 1, NULL, 0, 0, GFP_KERNEL,
				  probe_path_done, NULL, NULL);
}
#endif

#ifdef TESTS_HAVE_DMA_MAX_SEG_SIZE_INT
/* dma_set_max_seg_size() returns an error. */
int probe_max_seg_size(struct device *dev);
int probe_max_seg_size(struct device *dev)
{
	return dma_set_max_seg_size(dev, UINT_MAX);
}
#endif
