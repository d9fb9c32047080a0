// SPDX-License-Identifier: GPL-2.0
/*
 * Stateless offloads done in software, so that a driver's offload paths
 * run for real: IP/TCP/UDP checksum insertion for IB_SEND_IP_CSUM, and TCP
 * segmentation for IB_WR_LSO.  Like an HCA, we parse the IPoIB payload
 * ourselves and never write to the sender's buffers: checksums are put
 * into the receiver's copy.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/if_ether.h>
#include <linux/slab.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>
#include "sib.h"

#define IPOIB_ENCAP_LEN	4

/* Checksum len bytes of a receive WQE's list starting at byte off. */
static __wsum wqe_csum(struct sib_dev *sdev, const struct sib_recv_wqe *wqe,
		       u32 off, u32 len)
{
	struct sib_cursor c;
	__wsum sum = 0;
	u32 pos = 0;

	sib_cursor_init(&c, sdev, wqe->sg, wqe->num_sge);
	sib_cursor_skip(&c, off);
	while (len) {
		u32 n;
		void *p = sib_cursor_map(&c, &n);

		if (!p)
			break;
		n = min(n, len);
		sum = csum_block_add(sum, csum_partial(p, n, 0), pos);
		sib_cursor_skip(&c, n);
		pos += n;
		len -= n;
	}
	return sum;
}

struct l4_view {
	u8 proto;
	u32 offset;		/* of the L4 header, from the message start */
	u32 len;		/* L4 header and payload */
	struct iphdr *ip4;
	struct ipv6hdr *ip6;
};

/* Find the transport header in a contiguous IPoIB header area. */
static bool parse_l3(u8 *msg, u32 avail, u32 msg_len, struct l4_view *v)
{
	__be16 type;

	memset(v, 0, sizeof(*v));
	if (avail < IPOIB_ENCAP_LEN + sizeof(struct iphdr))
		return false;
	type = *(__be16 *)msg;
	if (type == htons(ETH_P_IP)) {
		struct iphdr *ip = (struct iphdr *)(msg + IPOIB_ENCAP_LEN);
		u32 ihl = ip->ihl * 4, tot = ntohs(ip->tot_len);

		if (ip->version != 4 || ihl < sizeof(*ip) ||
		    IPOIB_ENCAP_LEN + ihl > avail || tot < ihl ||
		    IPOIB_ENCAP_LEN + tot > msg_len)
			return false;
		v->ip4 = ip;
		v->proto = ip->protocol;
		v->offset = IPOIB_ENCAP_LEN + ihl;
		v->len = tot - ihl;
		if (ip->frag_off & htons(IP_MF | IP_OFFSET))
			v->proto = 0;	/* fragments: IP header only */
		return true;
	}
	if (type == htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)(msg + IPOIB_ENCAP_LEN);

		if (avail < IPOIB_ENCAP_LEN + sizeof(*ip6) || ip6->version != 6 ||
		    IPOIB_ENCAP_LEN + sizeof(*ip6) + ntohs(ip6->payload_len) >
		    msg_len)
			return false;
		v->ip6 = ip6;
		v->proto = ip6->nexthdr;
		v->offset = IPOIB_ENCAP_LEN + sizeof(*ip6);
		v->len = ntohs(ip6->payload_len);
		return true;
	}
	return false;
}

static __sum16 *l4_check_field(u8 *msg, u32 avail, const struct l4_view *v)
{
	if (v->proto == IPPROTO_TCP &&
	    v->offset + sizeof(struct tcphdr) <= avail &&
	    v->len >= sizeof(struct tcphdr))
		return &((struct tcphdr *)(msg + v->offset))->check;
	if (v->proto == IPPROTO_UDP &&
	    v->offset + sizeof(struct udphdr) <= avail &&
	    v->len >= sizeof(struct udphdr))
		return &((struct udphdr *)(msg + v->offset))->check;
	return NULL;
}

/*
 * Fill in the IPv4 header checksum and the TCP or UDP checksum of a
 * message just copied into a receive WQE (of sdev) at offset.  Returns
 * true when the checksums are now known good.  The headers must be
 * contiguous in the receiver's memory, as they are in an IPoIB buffer.
 */
bool sib_csum_fill(struct sib_dev *sdev, const struct sib_pkt *pkt,
		   struct sib_recv_wqe *wqe, u32 offset)
{
	struct sib_cursor c;
	struct l4_view v;
	__sum16 *check;
	u32 avail;
	__wsum sum;
	u8 *msg;

	sib_cursor_init(&c, sdev, wqe->sg, wqe->num_sge);
	sib_cursor_skip(&c, offset);
	msg = sib_cursor_map(&c, &avail);
	if (!msg)
		return false;
	avail = min(avail, pkt->length);
	if (!parse_l3(msg, avail, pkt->length, &v))
		return false;

	if (v.ip4) {
		v.ip4->check = 0;
		v.ip4->check = ip_fast_csum(v.ip4, v.ip4->ihl);
	}
	/* Only TCP and UDP ask for IB_SEND_IP_CSUM; report nothing else. */
	check = l4_check_field(msg, avail, &v);
	if (!check)
		return false;

	*check = 0;
	sum = wqe_csum(sdev, wqe, offset + v.offset, v.len);
	if (v.ip4)
		*check = csum_tcpudp_magic(v.ip4->saddr, v.ip4->daddr, v.len,
					   v.proto, sum);
	else
		*check = csum_ipv6_magic(&v.ip6->saddr, &v.ip6->daddr, v.len,
					 v.proto, sum);
	if (v.proto == IPPROTO_UDP && !*check)
		*check = CSUM_MANGLED_0;
	return true;
}

struct lso_segment {
	u8 hdr[SIB_MAX_LSO_HDR];
	struct ib_sge sg[SIB_MAX_SGE + 1];
};

/* The gather entries covering payload bytes [off, off + len). */
static u32 slice_sges(const struct sib_send_wqe *wqe, u32 off, u32 len,
		      struct ib_sge *out)
{
	u32 i, n = 0;

	for (i = 0; i < wqe->num_sge && len; i++) {
		const struct ib_sge *sg = &wqe->sg[i];
		u32 take;

		if (off >= sg->length) {
			off -= sg->length;
			continue;
		}
		take = min(len, sg->length - off);
		out[n].addr = sg->addr + off;
		out[n].length = take;
		out[n].lkey = sg->lkey;
		n++;
		len -= take;
		off = 0;
	}
	return n;
}

/* Make the header of segment index (at payload offset off) from the template. */
static void patch_header(u8 *hdr, const struct l4_view *v, u32 hlen,
			 u32 index, u32 off, u32 seg_len, bool last)
{
	struct tcphdr *th = (struct tcphdr *)(hdr + v->offset);

	if (v->ip4) {
		struct iphdr *ip = (struct iphdr *)(hdr + IPOIB_ENCAP_LEN);

		ip->tot_len = htons(hlen - IPOIB_ENCAP_LEN + seg_len);
		ip->id = htons(ntohs(ip->id) + index);
		ip->check = 0;
		ip->check = ip_fast_csum(ip, ip->ihl);
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)(hdr + IPOIB_ENCAP_LEN);

		ip6->payload_len = htons(hlen - v->offset + seg_len);
	}
	th->seq = htonl(ntohl(th->seq) + off);
	if (index)
		th->cwr = 0;
	if (!last) {
		th->fin = 0;
		th->psh = 0;
	}
}

/*
 * Cut an LSO work request into MSS-sized TCP segments, each sent as its
 * own UD message with the checksums filled in at the receiver.
 */
int sib_lso_send(struct sib_pkt *pkt, const struct sib_send_wqe *wqe, u32 mtu)
{
	u32 hlen = wqe->hlen, mss = wqe->mss, off = 0, index = 0;
	struct lso_segment *seg;
	struct l4_view v;

	if (!parse_l3(wqe->lso_hdr, hlen, U32_MAX, &v) ||
	    v.proto != IPPROTO_TCP ||
	    v.offset + sizeof(struct tcphdr) > hlen ||
	    v.offset + ((struct tcphdr *)(wqe->lso_hdr + v.offset))->doff * 4 !=
	    hlen)
		return IB_WC_LOC_QP_OP_ERR;
	if (hlen + mss > mtu) {
		sib_count(pkt->src_port, SIB_CNT_LEN_ERRORS, 1);
		return IB_WC_LOC_LEN_ERR;
	}
	seg = kmalloc(sizeof(*seg), GFP_ATOMIC);
	if (!seg)
		return IB_WC_LOC_QP_OP_ERR;

	do {
		u32 seg_len = min(mss, wqe->length - off);
		bool last = off + seg_len >= wqe->length;

		memcpy(seg->hdr, wqe->lso_hdr, hlen);
		patch_header(seg->hdr, &v, hlen, index, off, seg_len, last);
		seg->sg[0].addr = (uintptr_t)seg->hdr;
		seg->sg[0].length = hlen;
		seg->sg[0].lkey = SIB_LKEY_KERNEL;
		pkt->num_sge = 1 + slice_sges(wqe, off, seg_len, &seg->sg[1]);
		pkt->sg = seg->sg;
		pkt->length = hlen + seg_len;
		pkt->csum_ok = true;
		if (pkt->has_grh)
			pkt->grh.paylen = cpu_to_be16(pkt->length);

		rcu_read_lock();
		sib_deliver(pkt);
		rcu_read_unlock();
		sib_count(pkt->src_port, SIB_CNT_LSO_SEGMENTS, 1);
		off += seg_len;
		index++;
	} while (off < wqe->length);

	kfree(seg);
	return IB_WC_SUCCESS;
}
