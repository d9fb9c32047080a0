// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's wire rules (ipoib_wire.h) in userspace: link addresses,
 * multicast GIDs as RFC 4391 section 4 spells them, P_Key validity, MTU
 * arithmetic and the RFC 4755 REQ-crossing comparison.  Expected values
 * are written out as the RFCs print them, not computed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../../ipoib_wire.h"
#include "../unit.h"


/* "ff12:401b:ffff::ffff:ffff" style text to 16 bytes; aborts on typos. */
static void gid_parse(unsigned char *out, const char *text)
{
	unsigned short words[8] = { 0 };
	int before = 0, after = -1, n = 0, i;
	unsigned short tail[8];
	const char *p = text;

	while (*p) {
		if (p[0] == ':' && p[1] == ':') {
			after = 0;
			p += 2;
			continue;
		}
		if (*p == ':') {
			p++;
			continue;
		}
		if (after >= 0)
			tail[after++] = (unsigned short)strtoul(p, (char **)&p, 16);
		else
			words[before++] = (unsigned short)strtoul(p, (char **)&p, 16);
		n++;
	}
	if (n > 8 || (after < 0 && before != 8)) {
		fprintf(stderr, "bad GID text %s\n", text);
		exit(2);
	}
	for (i = 0; after > 0 && i < after; i++)
		words[8 - after + i] = tail[i];
	for (i = 0; i < 8; i++) {
		out[2 * i] = words[i] >> 8;
		out[2 * i + 1] = words[i] & 0xff;
	}
}

static int gid_is(const unsigned char *gid, const char *text)
{
	unsigned char want[16];

	gid_parse(want, text);
	return !memcmp(gid, want, 16);
}

static void test_addr_layout(void)
{
	unsigned char gid[16], addr[IPOIB_ALEN];

	gid_parse(gid, "fe80::2:c903:a:1b2c");
	ipoib_addr_make(addr, IPOIB_FLAG_RC, 0x123456, gid);
	CHECK(addr[0] == 0x80, "flags octet first");
	CHECK(addr[1] == 0x12 && addr[2] == 0x34 && addr[3] == 0x56,
	      "QPN in octets 1-3, big-endian");
	CHECK(!memcmp(addr + 4, gid, 16), "GID in octets 4-19");
	CHECK(ipoib_addr_qpn(addr) == 0x123456, "QPN read back");
	CHECK(ipoib_addr_flags(addr) == IPOIB_FLAG_RC, "flags read back");
	CHECK(!ipoib_addr_is_multicast(addr), "a port GID is unicast");

	ipoib_addr_make(addr, 0x1c0, 0x7123456, gid);
	CHECK(addr[0] == 0xc0, "flags beyond 8 bits are cut");
	CHECK(ipoib_addr_qpn(addr) == 0x123456, "QPN beyond 24 bits is cut");
}

static void test_broadcast(void)
{
	unsigned char addr[IPOIB_ALEN];

	ipoib_broadcast_addr(addr, 0xffff, IPOIB_SCOPE_LINK);
	CHECK(addr[0] == 0 && ipoib_addr_qpn(addr) == IPOIB_MCAST_QPN,
	      "broadcast QPN is 0xffffff, no flags");
	CHECK(gid_is(ipoib_addr_gid(addr), "ff12:401b:ffff::ffff:ffff"),
	      "default partition, link scope");
	CHECK(ipoib_addr_is_multicast(addr), "broadcast is multicast");

	/* A limited-member P_Key still names the full-member group. */
	ipoib_broadcast_addr(addr, 0x0001, IPOIB_SCOPE_SITE);
	CHECK(gid_is(ipoib_addr_gid(addr), "ff15:401b:8001::ffff:ffff"),
	      "P_Key 0x0001 site scope -> 8001");
	CHECK(ipoib_mgid_scope(ipoib_addr_gid(addr)) == IPOIB_SCOPE_SITE,
	      "scope read back");
	CHECK(ipoib_mgid_pkey(ipoib_addr_gid(addr)) == 0x8001,
	      "P_Key read back");
}

static void test_mgid_v4(void)
{
	const unsigned char all_hosts[4] = { 224, 0, 0, 1 };
	const unsigned char group[4] = { 239, 1, 2, 3 };
	unsigned char mgid[16];

	ipoib_mgid_from_ipv4(mgid, all_hosts, 0xffff, IPOIB_SCOPE_LINK);
	CHECK(gid_is(mgid, "ff12:401b:ffff::1"), "224.0.0.1");
	/* Only the low 28 bits of the group: 239 = 0xef keeps 0xf. */
	ipoib_mgid_from_ipv4(mgid, group, 0x8002, IPOIB_SCOPE_LINK);
	CHECK(gid_is(mgid, "ff12:401b:8002::f01:203"), "239.1.2.3");
	CHECK(ipoib_mgid_signature(mgid) == IPOIB_MGID_SIG_V4,
	      "IPv4 signature");
}

static void test_mgid_v6(void)
{
	unsigned char ip6[16], mgid[16];

	gid_parse(ip6, "ff02::1");
	ipoib_mgid_from_ipv6(mgid, ip6, 0xffff, IPOIB_SCOPE_LINK);
	CHECK(gid_is(mgid, "ff12:601b:ffff::1"), "all-nodes");
	gid_parse(ip6, "ff02::1:ff00:2");
	ipoib_mgid_from_ipv6(mgid, ip6, 0x7fff, IPOIB_SCOPE_LINK);
	CHECK(gid_is(mgid, "ff12:601b:ffff::1:ff00:2"),
	      "solicited-node, membership bit forced");
	CHECK(ipoib_mgid_signature(mgid) == IPOIB_MGID_SIG_V6,
	      "IPv6 signature");
}

static void test_mcast_addr_ok(void)
{
	unsigned char addr[IPOIB_ALEN], gid[16];

	ipoib_broadcast_addr(addr, 0x8001, IPOIB_SCOPE_LINK);
	CHECK(ipoib_mcast_addr_ok(addr, 0x8001), "own partition");
	CHECK(ipoib_mcast_addr_ok(addr, 0x0001),
	      "own partition, limited member");
	CHECK(!ipoib_mcast_addr_ok(addr, 0x8002), "other partition");
	gid_parse(gid, "ff12:abcd:8001::1");
	ipoib_addr_make(addr, 0, IPOIB_MCAST_QPN, gid);
	CHECK(!ipoib_mcast_addr_ok(addr, 0x8001), "unknown signature");
	gid_parse(gid, "fe80::1");
	ipoib_addr_make(addr, 0, IPOIB_MCAST_QPN, gid);
	CHECK(!ipoib_mcast_addr_ok(addr, 0x8001), "unicast GID");
}

static void test_sendable(void)
{
	unsigned char addr[IPOIB_ALEN], gid[16];

	gid_parse(gid, "fe80::2:c903:a:1b2c");
	ipoib_addr_make(addr, IPOIB_FLAG_RC, 0x48, gid);
	CHECK(ipoib_addr_sendable(addr, 0xffff), "ordinary unicast");
	ipoib_addr_make(addr, 0, 0, gid);
	CHECK(!ipoib_addr_sendable(addr, 0xffff), "QPN 0 is the SMI");
	ipoib_addr_make(addr, 0, IPOIB_MCAST_QPN, gid);
	CHECK(!ipoib_addr_sendable(addr, 0xffff), "unicast GID, multicast QPN");
	ipoib_broadcast_addr(addr, 0xffff, IPOIB_SCOPE_LINK);
	CHECK(ipoib_addr_sendable(addr, 0xffff), "broadcast");
	CHECK(!ipoib_addr_sendable(addr, 0x8001), "another partition's group");
	addr[3] = 0x42;
	CHECK(!ipoib_addr_sendable(addr, 0xffff), "MGID with a unicast QPN");
}

/* An ARP request from addr for 10.0.0.1, as RFC 4391 lays it out. */
static void arp_make(unsigned char *arp, const unsigned char *addr)
{
	memset(arp, 0, IPOIB_ARP_LEN);
	arp[1] = IPOIB_ARP_HRD;
	arp[2] = 0x08;
	arp[4] = IPOIB_ALEN;
	arp[5] = 4;
	arp[7] = 1;
	memcpy(arp + IPOIB_ARP_FIXED_LEN, addr, IPOIB_ALEN);
	arp[IPOIB_ARP_FIXED_LEN + IPOIB_ALEN] = 10;
}

static void test_arp(void)
{
	unsigned char gid[16], addr[IPOIB_ALEN], arp[IPOIB_ARP_LEN + 4];

	gid_parse(gid, "fe80::2:c903:a:1b2c");
	ipoib_addr_make(addr, IPOIB_FLAG_RC, 0x48, gid);
	arp_make(arp, addr);
	CHECK(ipoib_arp_acceptable(arp, IPOIB_ARP_LEN), "good request");
	CHECK(ipoib_arp_acceptable(arp, sizeof(arp)), "with trailing bytes");
	CHECK(!ipoib_arp_acceptable(arp, IPOIB_ARP_LEN - 1), "truncated");
	arp[1] = 1;
	CHECK(!ipoib_arp_acceptable(arp, IPOIB_ARP_LEN), "Ethernet hardware type");
	arp_make(arp, addr);
	arp[4] = 6;
	CHECK(!ipoib_arp_acceptable(arp, IPOIB_ARP_LEN), "6-byte addresses");
	arp_make(arp, addr);
	arp[3] = 0xdd;
	CHECK(!ipoib_arp_acceptable(arp, IPOIB_ARP_LEN), "not IPv4");
	ipoib_addr_make(addr, 0, 0, gid);
	arp_make(arp, addr);
	CHECK(!ipoib_arp_acceptable(arp, IPOIB_ARP_LEN), "sender QPN 0");
	ipoib_addr_make(addr, 0, IPOIB_MCAST_QPN, gid);
	arp_make(arp, addr);
	CHECK(!ipoib_arp_acceptable(arp, IPOIB_ARP_LEN), "sender QPN 0xffffff");
	ipoib_broadcast_addr(addr, 0xffff, IPOIB_SCOPE_LINK);
	arp_make(arp, addr);
	CHECK(!ipoib_arp_acceptable(arp, IPOIB_ARP_LEN), "sender is the broadcast group");
}

static void test_pkeys(void)
{
	CHECK(!ipoib_pkey_valid(0x0000), "0x0000 is reserved");
	CHECK(!ipoib_pkey_valid(0x8000), "0x8000 is reserved");
	CHECK(!ipoib_pkey_valid(0x10001), "more than 16 bits");
	CHECK(ipoib_pkey_valid(0x0001), "limited 0x0001");
	CHECK(ipoib_pkey_valid(0xffff), "default partition");
	CHECK(ipoib_pkey_valid(0x7fff), "limited default");
	CHECK(ipoib_pkey_full_member(0x8001), "full member bit");
	CHECK(!ipoib_pkey_full_member(0x0001), "limited member");
}

static void test_mtu(void)
{
	static const unsigned int bytes[] = { 0, 256, 512, 1024, 2048, 4096 };
	unsigned int e;

	for (e = 1; e <= 5; e++)
		CHECK(ipoib_ib_mtu_bytes(e) == bytes[e], "IB MTU enum %u", e);
	CHECK(ipoib_ib_mtu_bytes(0) == 0, "enum 0 invalid");
	CHECK(ipoib_ib_mtu_bytes(6) == 0, "enum 6 invalid");
	CHECK(ipoib_ud_mtu(2048) == 2044, "UD MTU 2048 - 4");
	CHECK(ipoib_ud_mtu(4096) == 4092, "UD MTU 4096 - 4");
	CHECK(ipoib_ud_mtu(4) == 0 && ipoib_ud_mtu(0) == 0, "no room");
	CHECK(ipoib_cm_mtu(65524, 65524) == 65520, "CM maximum 65520");
	CHECK(ipoib_cm_mtu(65524, 9004) == 9000, "smaller receive MTU wins");
	CHECK(ipoib_cm_mtu(1u << 20, 1u << 20) == IPOIB_CM_MAX_MTU,
	      "clamped to 65520");
	CHECK(ipoib_cm_mtu(3, 65524) == 0, "a receive MTU below 4 is unusable");
}

/* RFC 4755 3.3: the smaller address, flags ignored, accepts. */
static void test_crossing(void)
{
	unsigned char g1[16], g2[16], a[IPOIB_ALEN], b[IPOIB_ALEN];

	gid_parse(g1, "fe80::1");
	gid_parse(g2, "fe80::2");
	ipoib_addr_make(a, IPOIB_FLAG_RC, 0x48, g1);
	ipoib_addr_make(b, 0, 0x48, g2);
	CHECK(ipoib_addr_cmp_noflags(a, b) < 0, "GID decides when QPNs tie");
	CHECK(ipoib_addr_cmp_noflags(b, a) > 0, "and it is antisymmetric");
	ipoib_addr_make(a, 0, 0x49, g1);
	CHECK(ipoib_addr_cmp_noflags(a, b) > 0,
	      "QPN octets come before the GID");
	ipoib_addr_make(a, IPOIB_FLAG_RC | IPOIB_FLAG_UC, 0x48, g2);
	CHECK(ipoib_addr_cmp_noflags(a, b) == 0, "flags do not count");
}

/* RFC 4755 6: private data, and what a malformed one looks like. */
static void test_cm_priv(void)
{
	unsigned char p[IPOIB_CM_PRIV_LEN], zero[92] = { 0 };
	unsigned int qpn = 0, mtu = 0;

	ipoib_cm_priv_make(p, 0x123456, 65524);
	CHECK(p[0] == 0 && p[1] == 0x12 && p[2] == 0x34 && p[3] == 0x56,
	      "reserved octet, then the QPN most significant first");
	CHECK(p[4] == 0 && p[5] == 0 && p[6] == 0xff && p[7] == 0xf4,
	      "receive MTU in network order");
	CHECK(ipoib_cm_priv_parse(p, sizeof(p), &qpn, &mtu) == 0 &&
	      qpn == 0x123456 && mtu == 65524, "round trip");
	p[0] = 0xaa;
	CHECK(ipoib_cm_priv_parse(p, sizeof(p), &qpn, &mtu) == 0 &&
	      qpn == 0x123456, "reserved octet ignored");
	CHECK(ipoib_cm_priv_parse(p, 7, &qpn, &mtu) < 0, "7 octets too short");
	CHECK(ipoib_cm_priv_parse(NULL, 8, &qpn, &mtu) < 0, "none at all");
	CHECK(ipoib_cm_priv_parse(zero, sizeof(zero), &qpn, &mtu) < 0,
	      "zero-padded short data: QPN 0");
	ipoib_cm_priv_make(p, 0, 65524);
	CHECK(ipoib_cm_priv_parse(p, sizeof(p), &qpn, &mtu) < 0, "QPN 0");
	ipoib_cm_priv_make(p, IPOIB_MCAST_QPN, 65524);
	CHECK(ipoib_cm_priv_parse(p, sizeof(p), &qpn, &mtu) < 0,
	      "multicast QPN");
	ipoib_cm_priv_make(p, 0x48, IPOIB_CM_MIN_RX_MTU - 1);
	CHECK(ipoib_cm_priv_parse(p, sizeof(p), &qpn, &mtu) < 0,
	      "receive MTU below 68 + 4");
	ipoib_cm_priv_make(p, 0x48, IPOIB_CM_MIN_RX_MTU);
	CHECK(ipoib_cm_priv_parse(p, sizeof(p), &qpn, &mtu) == 0,
	      "receive MTU 72 well formed");
	CHECK(!ipoib_cm_rx_mtu_usable(72), "72 too small to connect");
	CHECK(!ipoib_cm_rx_mtu_usable(1000), "1000 too small for IPv6");
	CHECK(!ipoib_cm_rx_mtu_usable(1283), "1283: IPv6 needs 1280 + 4");
	CHECK(ipoib_cm_rx_mtu_usable(1284), "1284 carries IPv6");
	CHECK(ipoib_cm_rx_mtu_usable(65524), "the usual 65524");
}

/* RFC 4755 3.5 and the in-tree driver's service IDs. */
static void test_service_id(void)
{
	CHECK(ipoib_cm_service_id(0x48, 0) == 0x1000000000000048ULL,
	      "in-tree form");
	CHECK(ipoib_cm_service_id(0x48, 1) == 0x0100000000000048ULL,
	      "RFC form: 0x01, type 0, reserved 0, QPN");
	CHECK(ipoib_cm_service_id(0xff123456, 1) == 0x0100000000123456ULL,
	      "only 24 bits of QPN");
}

/*
 * A port with LMC n answers to 2^n consecutive LIDs from a base aligned
 * to 2^n: a peer's packets may come from any of them, whichever its path
 * to us names, while our path to it names another.
 */
static void test_lid_same_port(void)
{
	unsigned int lid;

	CHECK(ipoib_lid_same_port(0x12, 0x12, 0), "LMC 0: the LID itself");
	CHECK(!ipoib_lid_same_port(0x12, 0x13, 0), "LMC 0: 0x13 is another port");
	CHECK(ipoib_lid_same_port(0x12, 0x13, 1), "LMC 1: 0x12 and 0x13 are one port");
	CHECK(!ipoib_lid_same_port(0x13, 0x14, 1), "LMC 1: 0x14 starts the next port");
	for (lid = 0x14; lid <= 0x17; lid++)
		CHECK(ipoib_lid_same_port(0x14, lid, 2), "LMC 2: 0x%x is base 0x14", lid);
	CHECK(!ipoib_lid_same_port(0x14, 0x13, 2), "LMC 2: 0x13 is below base 0x14");
	CHECK(!ipoib_lid_same_port(0x14, 0x18, 2), "LMC 2: 0x18 is the next base");
	CHECK(ipoib_lid_same_port(0x80, 0xff, 7), "LMC 7: 0x80-0xff are one port");
	CHECK(!ipoib_lid_same_port(0x80, 0x100, 7), "LMC 7: 0x100 is the next base");
	CHECK(ipoib_lid_same_port(0xbfff, 0xbf80, 7), "LMC 7 at the top of the unicast range");
}

int main(void)
{
	RUN(test_addr_layout);
	RUN(test_broadcast);
	RUN(test_mgid_v4);
	RUN(test_mgid_v6);
	RUN(test_mcast_addr_ok);
	RUN(test_sendable);
	RUN(test_arp);
	RUN(test_pkeys);
	RUN(test_mtu);
	RUN(test_crossing);
	RUN(test_cm_priv);
	RUN(test_service_id);
	RUN(test_lid_same_port);
	return unit_report();
}
