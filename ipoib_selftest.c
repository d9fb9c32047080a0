// SPDX-License-Identifier: GPL-2.0
/*
 * Self-tests of the driver's pure rules, run at load with selftest=1: send
 * ring arithmetic across the wrap of its counters, backoff, the connected
 * mode's choice of service ID and sharing and how long it believes what it
 * learned of a peer, its peer table's lookups, and a sample of the wire rules as this kernel's
 * compiler built them (tests/unit has the full set, in userspace).  A
 * failure names the check and refuses the load.
 */
#include <linux/module.h>
#include <linux/slab.h>
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

/*
 * The peer table on a scratch interface: GIDs times QPNs peers, each
 * found by its address whatever the flags, and by its GID with exactly
 * the others at that GID; the last reference takes each out of both.
 */
#define ST_GIDS	8
#define ST_QPNS	4
static void peer_table_rules(struct selftest *st)
{
	struct ipoib_cm_peer *p[ST_GIDS][ST_QPNS], *at;
	union ib_gid gid = { .raw = { 0xfe, 0x80 } };
	struct ipoib_dev *priv;
	struct rhlist_head *pos;
	unsigned int g, q, n;
	u8 a[IPOIB_ALEN];
	bool ok = true;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (priv)
		priv->cm = kzalloc(sizeof(*priv->cm), GFP_KERNEL);
	if (!priv || !priv->cm || ipoib_cm_peer_table_init(priv->cm)) {
		CHECK(st, !"memory for the peer table");
		if (priv)
			kfree(priv->cm);
		kfree(priv);
		return;
	}
	spin_lock_init(&priv->lock);
	spin_lock_bh(&priv->lock);
	for (g = 0; g < ST_GIDS; g++)
		for (q = 0; q < ST_QPNS; q++) {
			gid.raw[15] = g;
			ipoib_addr_make(a, IPOIB_FLAG_RC, 0x100 + q, gid.raw);
			p[g][q] = ipoib_cm_peer_get(priv, a);
			ok &= p[g][q] && ipoib_cm_peer_find(priv, a) == p[g][q];
		}
	CHECK(st, ok);
	if (!ok)
		goto out;
	CHECK(st, atomic_read(&priv->cm->peers.nelems) == ST_GIDS * ST_QPNS);
	/* Another flag is the same peer: one more reference, no new entry. */
	gid.raw[15] = 3;
	ipoib_addr_make(a, IPOIB_FLAG_RC | IPOIB_FLAG_UC, 0x102, gid.raw);
	CHECK(st, ipoib_cm_peer_get(priv, a) == p[3][2]);
	CHECK(st, kref_read(&p[3][2]->ref) == 2);
	ipoib_cm_peer_put(p[3][2]);
	ipoib_addr_make(a, 0, 0x100 + ST_QPNS, gid.raw);
	CHECK(st, !ipoib_cm_peer_find(priv, a));	/* a QPN not there */
	rcu_read_lock();
	for (g = 0; g < ST_GIDS; g++) {
		gid.raw[15] = g;
		n = 0;
		rhl_for_each_entry_rcu(at, pos, ipoib_cm_peers_at(priv, &gid),
				       gid_node)
			n += at == p[g][at->addr[3] & (ST_QPNS - 1)];
		CHECK(st, n == ST_QPNS);
	}
	gid.raw[15] = ST_GIDS;
	CHECK(st, !ipoib_cm_peers_at(priv, &gid));
	rcu_read_unlock();
	/* The last reference unhashes: the others stay found. */
	ipoib_cm_peer_put(p[5][1]);
	gid.raw[15] = 5;
	ipoib_addr_make(a, 0, 0x101, gid.raw);
	CHECK(st, !ipoib_cm_peer_find(priv, a));
	n = 0;
	rcu_read_lock();
	rhl_for_each_entry_rcu(at, pos, ipoib_cm_peers_at(priv, &gid), gid_node)
		n++;
	rcu_read_unlock();
	CHECK(st, n == ST_QPNS - 1);
	p[5][1] = NULL;
out:
	for (g = 0; g < ST_GIDS; g++)
		for (q = 0; q < ST_QPNS; q++)
			if (p[g][q])
				ipoib_cm_peer_put(p[g][q]);
	CHECK(st, !atomic_read(&priv->cm->peers.nelems));
	CHECK(st, list_empty(&priv->cm->peer_list));
	spin_unlock_bh(&priv->lock);
	ipoib_cm_peer_table_destroy(priv->cm);
	kfree(priv->cm);
	kfree(priv);
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
	peer_table_rules(&st);
	wire_rules(&st);
	if (st.failed) {
		pr_err(DRV_NAME ": self-tests: %u of %u failed\n", st.failed,
		       st.run);
		return -EINVAL;
	}
	pr_info(DRV_NAME ": self-tests: %u passed\n", st.run);
	return 0;
}
