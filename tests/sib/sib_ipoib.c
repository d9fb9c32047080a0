// SPDX-License-Identifier: GPL-2.0
/*
 * What IPoIB sends, as the fabric sees it: each send a non-special QP
 * puts on the wire is counted once, on its sending port, by transport and
 * by what the 4-byte IPoIB header (and for IPv6, the headers after it)
 * says it carries.  Per-CPU counters: no lock on the send path.
 */
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ipv6.h>
#include "tests_compat.h"
#include "sib.h"

#define IPOIB_HDR_LEN		4
#define ND_FIRST_TYPE		133	/* router solicitation */
#define ND_LAST_TYPE		137	/* redirect */
/* Enough to see an ICMPv6 type right after a bare IPv6 header. */
#define PEEK_LEN		(IPOIB_HDR_LEN + sizeof(struct ipv6hdr) + 1)

const char *const sib_ipoib_transport_names[SIB_IPOIB_TRANSPORTS] = {
	[SIB_IPOIB_UD] = "ud",
	[SIB_IPOIB_RC] = "rc",
	[SIB_IPOIB_UC] = "uc",
};

const char *const sib_ipoib_class_names[SIB_IPOIB_CLASSES] = {
	[SIB_IPOIB_ARP] = "arp",
	[SIB_IPOIB_IPV4] = "ipv4",
	[SIB_IPOIB_IPV6] = "ipv6",
	[SIB_IPOIB_ND] = "nd",
	[SIB_IPOIB_OTHER] = "other",
};

static enum sib_ipoib_class classify(const u8 *p, u32 len)
{
	const struct ipv6hdr *ip6 = (const void *)(p + IPOIB_HDR_LEN);
	u8 icmp_type;

	if (len < IPOIB_HDR_LEN)
		return SIB_IPOIB_OTHER;
	switch (get_unaligned_be16(p)) {
	case ETH_P_ARP:
		return SIB_IPOIB_ARP;
	case ETH_P_IP:
		return SIB_IPOIB_IPV4;
	case ETH_P_IPV6:
		break;
	default:
		return SIB_IPOIB_OTHER;
	}
	if (len < PEEK_LEN || ip6->nexthdr != IPPROTO_ICMPV6)
		return SIB_IPOIB_IPV6;
	icmp_type = p[PEEK_LEN - 1];
	if (icmp_type >= ND_FIRST_TYPE && icmp_type <= ND_LAST_TYPE)
		return SIB_IPOIB_ND;
	return SIB_IPOIB_IPV6;
}

/* From sib_deliver(): once per message, not again for an RNR retry. */
void sib_ipoib_count(const struct sib_pkt *pkt)
{
	enum sib_ipoib_transport t;
	u8 head[PEEK_LEN];
	u32 len;

	if (!pkt->src_qp || !pkt->src_port || pkt->resent ||
	    pkt->op != SIB_OP_SEND)
		return;
	switch (pkt->src_qp->type) {
	case IB_QPT_UD:
		t = SIB_IPOIB_UD;
		break;
	case IB_QPT_RC:
		t = SIB_IPOIB_RC;
		break;
	case IB_QPT_UC:
		t = SIB_IPOIB_UC;
		break;
	default:
		return;		/* QP0 and QP1 carry MADs */
	}
	len = sib_copy_out(head, pkt, sizeof(head));
	this_cpu_inc(pkt->src_port->stats->ipoib[t][classify(head, len)]);
}

u64 sib_ipoib_sum(struct sib_port *port, enum sib_ipoib_transport t,
		  enum sib_ipoib_class c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(port->stats, cpu)->ipoib[t][c];
	return sum;
}
