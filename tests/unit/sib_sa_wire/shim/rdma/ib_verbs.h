/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: the one ib_verbs type the wire codecs use. */
#ifndef SHIM_RDMA_IB_VERBS_H
#define SHIM_RDMA_IB_VERBS_H

#include <linux/types.h>

/* The codecs only use the bytes. */
union ib_gid {
	u8 raw[16];
};

#endif
