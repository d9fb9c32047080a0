// SPDX-License-Identifier: GPL-2.0
/*
 * Self-tests of the driver's pure rules, run at load with selftest=1: send
 * ring arithmetic across the wrap of its counters, backoff, the connected
 * mode's choice of service ID and sharing and how long it believes what it
 * learned of a peer, and a sample of the wire rules as this kernel's
 * compiler built them (tests/unit has the full set, in userspace).  A
 * failure names the check and refuses the load.
 */
#include <linux/module.h>
#include <linux/string.h>
#include "ipoib_cm.h"
#include "ipoib_selftest.h"

static bool ipoib_selftest;
module_param_named(selftest, ipoib_selftest, bool, 0444);
MODULE_PARM_DESC(selftest,
		 "Run the self-tests of the pure rules at load and refuse to load if one fails (default N)");

struct selftest {
	unsigned int run;
	unsigned int failed;
};

#define CHECK(st, cond) check(st, cond, #cond, __LINE__)

static void check(struct selftest *st, bool ok, const char *what, int line)
{
	st->run++;
	if (ok)
		return;
	st->failed++;
	pr_err(DRV_NAME ": self-test failed (%s:%d): %s\n",
	       kbasename(__FILE__), line, what);
}

/* head and tail run on and wrap; their difference is what is posted. */
static void ring_rules(struct selftest *st)
{
	struct ipoib_tx_ring r = { .size = 4 };
	unsigned int i;

	r.head = UINT_MAX - 1;
	r.tail = r.head;
	CHECK(st, ipoib_tx_outstanding(&r) == 0);
	CHECK(st, ipoib_tx_room(&r));
	for (i = 0; i < r.size; i++)
		r.head++;
	CHECK(st, r.head < r.tail);		/* wrapped */
	CHECK(st, ipoib_tx_outstanding(&r) == r.size);
	CHECK(st, !ipoib_tx_room(&r));
	r.tail++;
	CHECK(st, ipoib_tx_outstanding(&r) == r.size - 1);
	CHECK(st, ipoib_tx_room(&r));
}

static void backoff_rules(struct selftest *st)
{
	unsigned long b = 0;
	unsigned int i;

	b = ipoib_backoff_next(b, HZ, 64 * HZ);
	CHECK(st, b == HZ);
	b = ipoib_backoff_next(b, HZ, 64 * HZ);
	CHECK(st, b == 2 * HZ);
	for (i = 0; i < 40; i++)
		b = ipoib_backoff_next(b, HZ, 64 * HZ);
	CHECK(st, b == 64 * HZ);
}

/* Which service ID our REQ goes to, and whether both ends send on it. */
static void policy_rules(struct selftest *st)
{
	bool sid_rfc, shared;

	ipoib_cm_req_form(IPOIB_CM_POLICY_AUTO, IPOIB_CM_PEER_UNKNOWN, false,
			  &sid_rfc, &shared);
	CHECK(st, sid_rfc && shared);		/* the RFC first */
	ipoib_cm_req_form(IPOIB_CM_POLICY_AUTO, IPOIB_CM_PEER_RFC, false,
			  &sid_rfc, &shared);
	CHECK(st, sid_rfc && shared);
	ipoib_cm_req_form(IPOIB_CM_POLICY_AUTO, IPOIB_CM_PEER_LINUX, true,
			  &sid_rfc, &shared);
	CHECK(st, !sid_rfc && !shared);		/* learned: in-tree form */
	ipoib_cm_req_form(IPOIB_CM_POLICY_COMPATIBLE, IPOIB_CM_PEER_RFC, false,
			  &sid_rfc, &shared);
	CHECK(st, !sid_rfc && !shared);		/* explicit choices stand */
	ipoib_cm_req_form(IPOIB_CM_POLICY_RFC, IPOIB_CM_PEER_LINUX, true,
			  &sid_rfc, &shared);
	CHECK(st, sid_rfc && shared);
}

/* The in-tree form is believed for IPOIB_CM_FORM_TTL, then asked again. */
static void form_rules(struct selftest *st)
{
	unsigned long t[] = { 1000, ULONG_MAX - IPOIB_CM_FORM_TTL / 2 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {	/* the second wraps */
		CHECK(st, ipoib_cm_form_now(IPOIB_CM_PEER_LINUX, t[i],
					    t[i] + IPOIB_CM_FORM_TTL) ==
			  IPOIB_CM_PEER_LINUX);
		CHECK(st, ipoib_cm_form_now(IPOIB_CM_PEER_LINUX, t[i],
					    t[i] + IPOIB_CM_FORM_TTL + 1) ==
			  IPOIB_CM_PEER_UNKNOWN);
		CHECK(st, ipoib_cm_form_now(IPOIB_CM_PEER_RFC, t[i],
					    t[i] + 2 * IPOIB_CM_FORM_TTL) ==
			  IPOIB_CM_PEER_RFC);
	}
}

static void wire_rules(struct selftest *st)
{
	static const u8 gid[16] = { 0xfe, 0x80, [15] = 2 };
	u8 a[IPOIB_ALEN], b[IPOIB_ALEN], pd[IPOIB_CM_PRIV_LEN];
	unsigned int qpn, mtu;

	ipoib_addr_make(a, IPOIB_FLAG_RC, 0xabcdef, gid);
	CHECK(st, ipoib_addr_qpn(a) == 0xabcdef);
	CHECK(st, ipoib_addr_flags(a) == IPOIB_FLAG_RC);
	ipoib_addr_make(b, 0, 0xabcdef, gid);
	CHECK(st, ipoib_addr_cmp_noflags(a, b) == 0);	/* same peer */
	b[IPOIB_ALEN - 1]++;
	CHECK(st, ipoib_addr_cmp_noflags(a, b) < 0);	/* a accepts */
	ipoib_broadcast_addr(b, 0x7fff, IPOIB_SCOPE_LINK);
	CHECK(st, ipoib_addr_sendable(b, 0xffff));
	CHECK(st, !ipoib_addr_sendable(b, 0x8001));	/* other partition */
	CHECK(st, !ipoib_pkey_valid(0x8000) && ipoib_pkey_valid(0xffff));
	CHECK(st, ipoib_ud_mtu(ipoib_ib_mtu_bytes(IB_MTU_2048)) == 2044);
	CHECK(st, ipoib_cm_mtu(65524, 2048 + IPOIB_ENCAP_LEN) == 2048);
	CHECK(st, ipoib_cm_mtu(1 << 20, 1 << 20) == IPOIB_CM_MAX_MTU);
	CHECK(st, !ipoib_cm_rx_mtu_usable(1283) && ipoib_cm_rx_mtu_usable(1284));
	ipoib_cm_priv_make(pd, 0x48, 65524);
	CHECK(st, !ipoib_cm_priv_parse(pd, sizeof(pd), &qpn, &mtu) &&
	      qpn == 0x48 && mtu == 65524);
	CHECK(st, ipoib_cm_priv_parse(pd, sizeof(pd) - 1, &qpn, &mtu));
	ipoib_cm_priv_make(pd, IPOIB_MCAST_QPN, 65524);
	CHECK(st, ipoib_cm_priv_parse(pd, sizeof(pd), &qpn, &mtu));
	CHECK(st, ipoib_cm_service_id(0x48, 1) == 0x0100000000000048ULL);
}

int ipoib_selftest_run(void)
{
	struct selftest st = {};

	if (!ipoib_selftest)
		return 0;
	ring_rules(&st);
	backoff_rules(&st);
	policy_rules(&st);
	form_rules(&st);
	wire_rules(&st);
	if (st.failed) {
		pr_err(DRV_NAME ": self-tests: %u of %u failed\n", st.failed,
		       st.run);
		return -EINVAL;
	}
	pr_info(DRV_NAME ": self-tests: %u passed\n", st.run);
	return 0;
}
