// SPDX-License-Identifier: GPL-2.0
/*
 * The RC requester's timers (tests/sib/sib_timers.h), built in userspace
 * and checked against IBA's figures written out by hand: the local ACK
 * timeout 4.096 us * 2^timeout (9.7.6.1.3), 0 meaning no timer, and the
 * time a message nobody answers takes to fail, retry_cnt + 1 timeouts.
 */
#include <stdio.h>
#include <stdlib.h>
#include "../../sib/sib_timers.h"
#include "../unit.h"

/* timeout field -> ns, from the spec's 4.096 us unit. */
static const struct {
	u8 timeout;
	unsigned long long ns;
} ack_table[] = {
	{ 1, 8192ULL },
	{ 8, 1048576ULL },
	{ 14, 67108864ULL },		/* sib's SA path lifetime */
	{ 16, 268435456ULL },		/* what ib_cm programs on sib */
	{ 19, 2147483648ULL },		/* ... under OpenSM's default 0x12 */
	{ 31, 8796093022208ULL },	/* the largest: about 2.4 hours */
};

static void test_ack_timeout(void)
{
	unsigned int i;

	CHECK(sib_ack_timeout_ns(0, 0) == 0, "timeout 0 is no timer");
	for (i = 0; i < sizeof(ack_table) / sizeof(ack_table[0]); i++)
		CHECK(sib_ack_timeout_ns(ack_table[i].timeout, 0) ==
		      ack_table[i].ns, "timeout %u: %llu ns, expected %llu",
		      ack_table[i].timeout,
		      (unsigned long long)sib_ack_timeout_ns(ack_table[i].timeout, 0),
		      ack_table[i].ns);
	/* Each step doubles it. */
	for (i = 1; i < SIB_ACK_TIMER_MAX; i++)
		CHECK(sib_ack_timeout_ns(i + 1, 0) == 2 * sib_ack_timeout_ns(i, 0),
		      "timeout %u is not twice %u", i + 1, i);
}

static void test_ack_timeout_cap(void)
{
	/* A cap shortens what is longer, leaves what is shorter. */
	CHECK(sib_ack_timeout_ns(16, 100) == 100000000ULL, "16 capped at 100 ms");
	CHECK(sib_ack_timeout_ns(16, 1000) == 268435456ULL, "16 under a 1 s cap");
	CHECK(sib_ack_timeout_ns(16, 268) == 268000000ULL, "16 capped at 268 ms");
	CHECK(sib_ack_timeout_ns(31, 3600000) == 3600000000000ULL,
	      "31 capped at an hour");
	/* No timer stays no timer: IBA's infinite is not capped. */
	CHECK(sib_ack_timeout_ns(0, 100) == 0, "timeout 0 with a cap");
}

static void test_give_up(void)
{
	/* ours asks retry_count 3, the in-tree driver 0, nvme-rdma 7. */
	CHECK(sib_give_up_ns(16, 3, 0) == 4 * 268435456ULL, "16, 3 retries");
	CHECK(sib_give_up_ns(16, 0, 0) == 268435456ULL, "16, no retry");
	CHECK(sib_give_up_ns(16, 7, 0) == 8 * 268435456ULL,
	      "16, 7 retries (7 is not infinite, unlike rnr_retry)");
	CHECK(sib_give_up_ns(16, 3, 100) == 400000000ULL, "16, 3 retries, 100 ms cap");
	CHECK(sib_give_up_ns(0, 3, 0) == 0, "no timer never gives up");
	CHECK(sib_give_up_ns(0, 7, 100) == 0, "no timer never gives up, capped");
}

int main(void)
{
	RUN(test_ack_timeout);
	RUN(test_ack_timeout_cap);
	RUN(test_give_up);
	return unit_report();
}
