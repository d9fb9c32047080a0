/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sibperf: how fast the software fabric itself moves messages between two
 * QPs, with no IPoIB on top.  The ceiling the benchmark compares against.
 */
#ifndef SIBPERF_H
#define SIBPERF_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

/* What one run is asked to do. */
struct sibperf_job {
	enum ib_qp_type type;		/* IB_QPT_UD or IB_QPT_RC */
	u32 size;			/* bytes per message */
	u32 msecs;			/* how long to send */
	const char *src;		/* IB device names, port 1 of each */
	const char *dst;
};

/* What it did. */
struct sibperf_result {
	u64 msgs;			/* received by the destination QP */
	u64 bytes;			/* payload bytes received */
	u64 nsecs;			/* wall time of the sending loop */
};

int sibperf_run(const struct sibperf_job *job, struct sibperf_result *res);

#endif /* SIBPERF_H */
