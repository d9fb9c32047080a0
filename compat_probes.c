// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel API probes for compat.h (see Kbuild.compat): each block is compiled
 * on its own, and compiles only on a kernel that has what it is named for.
 * Not part of the module.
 */
#include <linux/netdevice.h>
#include <rdma/ib_sa.h>

#ifdef IPOIB_HAVE_HEADER_PARSE_DEV
/* header_ops.parse is told the device. */
static int probe_parse(const struct sk_buff *skb, const struct net_device *dev,
		       unsigned char *haddr)
{
	return 0;
}

static const struct header_ops probe_header_ops __maybe_unused = {
	.parse = probe_parse,
};
#endif

#ifdef IPOIB_HAVE_SA_PATH_NUM_PRS_UINT
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

#ifdef IPOIB_HAVE_PAGE_POOL_HELPERS
/* page_pool's API moved to a header of its own (6.6). */
#include <net/page_pool/helpers.h>
#endif
