/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RC requester's local ACK timer as numbers.  A QP's 5-bit timeout
 * field codes 4.096 us * 2^timeout, and 0 codes no timer at all (IBA
 * 9.7.6.1.3, 11.2.4.2).  A message nobody acknowledges is sent once and
 * again retry_cnt times, each send followed by the whole timeout, so it
 * fails retry_cnt + 1 timeouts after it first left.  Needs <linux/types.h>
 * alone, so that tests/unit builds this very code.
 */
#ifndef SIB_TIMERS_H
#define SIB_TIMERS_H

#include <linux/types.h>

#define SIB_ACK_TIMER_NONE	0	/* timeout field: wait forever */
#define SIB_ACK_TIMER_MAX	31	/* the field is 5 bits */
#define SIB_ACK_TIMER_UNIT_NS	4096ULL
#define SIB_RETRY_CNT_MAX	7	/* 3 bits; unlike rnr_retry, 7 is 7 */

/*
 * The local ACK timeout of a timeout field in ns, no longer than max_ms
 * when that is not 0; 0 when the field asks for no timer.
 */
static inline u64 sib_ack_timeout_ns(u8 timeout, u32 max_ms)
{
	u64 ns, cap = (u64)max_ms * 1000000;

	if (timeout == SIB_ACK_TIMER_NONE)
		return 0;
	ns = SIB_ACK_TIMER_UNIT_NS << (timeout & SIB_ACK_TIMER_MAX);
	return max_ms && ns > cap ? cap : ns;
}

/* How long after its first send an unanswered message fails; 0: never. */
static inline u64 sib_give_up_ns(u8 timeout, u8 retry_cnt, u32 max_ms)
{
	return sib_ack_timeout_ns(timeout, max_ms) *
	       ((retry_cnt & SIB_RETRY_CNT_MAX) + 1);
}

#endif /* SIB_TIMERS_H */
