/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPoIB wire formats and rules (RFC 4391, RFC 4755): link addresses,
 * multicast GIDs, P_Keys, MTU arithmetic.  Pure functions on bytes, so the
 * same header builds into the module and into the userspace unit tests.
 */
#ifndef IPOIB_WIRE_H
#define IPOIB_WIRE_H

#define IPOIB_ALEN		20	/* flags:QPN:GID */
#define IPOIB_ENCAP_LEN		4	/* ethertype + reserved */
#define IPOIB_GRH_LEN		40
#define IPOIB_QPN_MASK		0xffffffu
#define IPOIB_MCAST_QPN		0xffffffu
#define IPOIB_FLAG_RC		0x80	/* RFC 4755: accepts RC connections */
#define IPOIB_FLAG_UC		0x40	/* RFC 4755: accepts UC connections */
#define IPOIB_FLAGS_MASK	0xff
#define IPOIB_CM_MAX_MTU	65520	/* RFC 4755 3.4: 64K - 16 */
#define IPOIB_MIN_MTU		68

/* Multicast GID layout, RFC 4391 section 4. */
#define IPOIB_MGID_SIG_V4	0x401b
#define IPOIB_MGID_SIG_V6	0x601b
#define IPOIB_SCOPE_LINK	0x2
#define IPOIB_SCOPE_SITE	0x5
#define IPOIB_SCOPE_ORG		0x8
#define IPOIB_SCOPE_GLOBAL	0xe

#define IPOIB_PKEY_FULL		0x8000

static inline unsigned int ipoib_addr_qpn(const unsigned char *addr)
{
	return (addr[1] << 16) | (addr[2] << 8) | addr[3];
}

static inline unsigned int ipoib_addr_flags(const unsigned char *addr)
{
	return addr[0];
}

static inline const unsigned char *ipoib_addr_gid(const unsigned char *addr)
{
	return addr + 4;
}

static inline void ipoib_addr_make(unsigned char *addr, unsigned int flags,
				   unsigned int qpn, const unsigned char *gid)
{
	unsigned int i;

	addr[0] = flags & IPOIB_FLAGS_MASK;
	addr[1] = (qpn >> 16) & 0xff;
	addr[2] = (qpn >> 8) & 0xff;
	addr[3] = qpn & 0xff;
	for (i = 0; i < 16; i++)
		addr[4 + i] = gid[i];
}

/* A GID with the first octet 0xff is a multicast GID (IBA 4.1.1). */
static inline int ipoib_gid_is_multicast(const unsigned char *gid)
{
	return gid[0] == 0xff;
}

static inline int ipoib_addr_is_multicast(const unsigned char *addr)
{
	return ipoib_gid_is_multicast(ipoib_addr_gid(addr));
}

static inline unsigned int ipoib_mgid_scope(const unsigned char *mgid)
{
	return mgid[1] & 0x0f;
}

static inline unsigned int ipoib_mgid_signature(const unsigned char *mgid)
{
	return (mgid[2] << 8) | mgid[3];
}

static inline unsigned int ipoib_mgid_pkey(const unsigned char *mgid)
{
	return (mgid[4] << 8) | mgid[5];
}

/*
 * The first 6 bytes of every IPoIB MGID, ff1S:SIG:PPPP, with the P_Key's
 * full membership bit set, as every member must agree on it; the rest
 * zeroed.
 */
static inline void ipoib_mgid_prefix(unsigned char *mgid, unsigned int sig,
				     unsigned int pkey, unsigned int scope)
{
	unsigned int i;

	for (i = 6; i < 16; i++)
		mgid[i] = 0;
	mgid[0] = 0xff;
	mgid[1] = 0x10 | (scope & 0x0f);
	mgid[2] = sig >> 8;
	mgid[3] = sig & 0xff;
	pkey |= IPOIB_PKEY_FULL;
	mgid[4] = pkey >> 8;
	mgid[5] = pkey & 0xff;
}

/*
 * The broadcast address of a partition: flags 0, QPN 0xffffff, and the
 * IPv4 all-hosts MGID ff1S:401b:PPPP::ffff:ffff.
 */
static inline void ipoib_broadcast_addr(unsigned char *addr,
					unsigned int pkey, unsigned int scope)
{
	unsigned char *mgid = addr + 4;
	unsigned int i;

	addr[0] = 0;
	addr[1] = 0xff;
	addr[2] = 0xff;
	addr[3] = 0xff;
	ipoib_mgid_prefix(mgid, IPOIB_MGID_SIG_V4, pkey, scope);
	for (i = 12; i < 16; i++)
		mgid[i] = 0xff;
}

/* IPv4 group -> MGID: the low 28 bits of the group address (RFC 4391 4). */
static inline void ipoib_mgid_from_ipv4(unsigned char *mgid,
					const unsigned char *ip4,
					unsigned int pkey, unsigned int scope)
{
	ipoib_mgid_prefix(mgid, IPOIB_MGID_SIG_V4, pkey, scope);
	mgid[12] = ip4[0] & 0x0f;
	mgid[13] = ip4[1];
	mgid[14] = ip4[2];
	mgid[15] = ip4[3];
}

/* IPv6 group -> MGID: the low 80 bits of the group address. */
static inline void ipoib_mgid_from_ipv6(unsigned char *mgid,
					const unsigned char *ip6,
					unsigned int pkey, unsigned int scope)
{
	unsigned int i;

	ipoib_mgid_prefix(mgid, IPOIB_MGID_SIG_V6, pkey, scope);
	for (i = 6; i < 16; i++)
		mgid[i] = ip6[i];
}

/*
 * Is this multicast address one of ours: an IPoIB MGID in our partition
 * (membership bit ignored) with a known signature?
 */
static inline int ipoib_mcast_addr_ok(const unsigned char *addr,
				      unsigned int pkey)
{
	const unsigned char *mgid = ipoib_addr_gid(addr);
	unsigned int sig = ipoib_mgid_signature(mgid);

	if (!ipoib_gid_is_multicast(mgid))
		return 0;
	if (sig != IPOIB_MGID_SIG_V4 && sig != IPOIB_MGID_SIG_V6)
		return 0;
	return ((ipoib_mgid_pkey(mgid) ^ pkey) & 0x7fff) == 0;
}

/*
 * Can a packet go to this link address?  Unicast needs a real QPN (not 0,
 * which is the SMI, nor the multicast QPN); multicast needs the multicast
 * QPN and an IPoIB MGID of our partition.  Anything else came from a
 * bogus ARP/ND reply or a hand-made neighbour entry.
 */
static inline int ipoib_addr_sendable(const unsigned char *addr,
				      unsigned int pkey)
{
	unsigned int qpn = ipoib_addr_qpn(addr);

	if (ipoib_addr_is_multicast(addr))
		return qpn == IPOIB_MCAST_QPN && ipoib_mcast_addr_ok(addr, pkey);
	return qpn != 0 && qpn != IPOIB_MCAST_QPN;
}

#define IPOIB_ARP_HRD		32	/* ARPHRD_INFINIBAND (RFC 4391 s8) */
#define IPOIB_ARP_PRO_IPV4	0x0800
#define IPOIB_ARP_FIXED_LEN	8	/* hrd, pro, hln, pln, op */
#define IPOIB_ARP_LEN		(IPOIB_ARP_FIXED_LEN + 2 * (IPOIB_ALEN + 4))

/*
 * May this ARP packet (from its fixed header on) reach the stack?  Only an
 * RFC 4391 ARP for IPv4 whose sender address could take our replies: the
 * stack would otherwise store an address that nothing can be sent to.
 */
static inline int ipoib_arp_acceptable(const unsigned char *arp,
				       unsigned int len)
{
	const unsigned char *sha = arp + IPOIB_ARP_FIXED_LEN;

	if (len < IPOIB_ARP_LEN)
		return 0;
	if (((arp[0] << 8) | arp[1]) != IPOIB_ARP_HRD ||
	    ((arp[2] << 8) | arp[3]) != IPOIB_ARP_PRO_IPV4 ||
	    arp[4] != IPOIB_ALEN || arp[5] != 4)
		return 0;
	return !ipoib_addr_is_multicast(sha) &&
	       ipoib_addr_sendable(sha, 0xffff);
}

/* 0x0000 and 0x8000 are reserved P_Keys (IBA 10.9.1.1). */
static inline int ipoib_pkey_valid(unsigned int pkey)
{
	return pkey <= 0xffff && (pkey & 0x7fff) != 0;
}

static inline int ipoib_pkey_full_member(unsigned int pkey)
{
	return (pkey & IPOIB_PKEY_FULL) != 0;
}

/* IB MTU enum (1 = 256 ... 5 = 4096) to bytes, 0 when invalid. */
static inline unsigned int ipoib_ib_mtu_bytes(unsigned int ib_mtu_enum)
{
	if (ib_mtu_enum < 1 || ib_mtu_enum > 5)
		return 0;
	return 128u << ib_mtu_enum;
}

/* Datagram mode: one UD message per packet, minus the IPoIB header. */
static inline unsigned int ipoib_ud_mtu(unsigned int ib_mtu_bytes)
{
	return ib_mtu_bytes > IPOIB_ENCAP_LEN ?
	       ib_mtu_bytes - IPOIB_ENCAP_LEN : 0;
}

/* Connected mode: the smaller receive MTU of the two ends, minus 4. */
static inline unsigned int ipoib_cm_mtu(unsigned int local_rx_mtu,
					unsigned int peer_rx_mtu)
{
	unsigned int mtu = local_rx_mtu < peer_rx_mtu ? local_rx_mtu :
			   peer_rx_mtu;

	if (mtu <= IPOIB_ENCAP_LEN)
		return 0;
	mtu -= IPOIB_ENCAP_LEN;
	return mtu > IPOIB_CM_MAX_MTU ? IPOIB_CM_MAX_MTU : mtu;
}

/*
 * RFC 4755 3.3: when REQs cross, compare the two link addresses with the
 * flags octet zeroed, most significant octet first.  Returns <0, 0, >0.
 */
static inline int ipoib_addr_cmp_noflags(const unsigned char *a,
					 const unsigned char *b)
{
	unsigned int i;

	for (i = 1; i < IPOIB_ALEN; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/*
 * Whether two LIDs name the same port.  A port whose LID Mask Control is
 * lmc (0-7) answers to the 2^lmc LIDs from its base LID, which is aligned
 * to 2^lmc: its packets may come from any of them, whichever LID the path
 * it sends on names.
 */
static inline int ipoib_lid_same_port(unsigned int a, unsigned int b,
				      unsigned int lmc)
{
	unsigned int path_bits = (1u << (lmc & 7)) - 1;

	return (a & ~path_bits) == (b & ~path_bits);
}

/*
 * RFC 4755 sections 3.2 and 6: the private data of every CM message that
 * sets up a connection (REQ, REP, RTU, REJ): {reserved:8, UD QPN:24}
 * {receive MTU:32}, in network order.
 */
#define IPOIB_CM_PRIV_LEN	8
#define IPOIB_CM_MIN_RX_MTU	(IPOIB_MIN_MTU + IPOIB_ENCAP_LEN)

static inline void ipoib_cm_priv_make(unsigned char *p, unsigned int qpn,
				      unsigned int rx_mtu)
{
	p[0] = 0;
	p[1] = (qpn >> 16) & 0xff;
	p[2] = (qpn >> 8) & 0xff;
	p[3] = qpn & 0xff;
	p[4] = (rx_mtu >> 24) & 0xff;
	p[5] = (rx_mtu >> 16) & 0xff;
	p[6] = (rx_mtu >> 8) & 0xff;
	p[7] = rx_mtu & 0xff;
}

/*
 * Read what a peer sent: 0 when usable, -1 when too short, naming no
 * usable UD QPN (0 is the SMI, 0xffffff multicast), or a receive MTU too
 * small to carry an IPv4 packet.  The CM hands over the whole fixed-size
 * field, so a short private data shows as zeros there.
 */
static inline int ipoib_cm_priv_parse(const unsigned char *p, unsigned int len,
				      unsigned int *qpn, unsigned int *rx_mtu)
{
	unsigned int q, m;

	if (!p || len < IPOIB_CM_PRIV_LEN)
		return -1;
	q = (p[1] << 16) | (p[2] << 8) | p[3];
	m = ((unsigned int)p[4] << 24) | (p[5] << 16) | (p[6] << 8) | p[7];
	if (q == 0 || q == IPOIB_MCAST_QPN || m < IPOIB_CM_MIN_RX_MTU)
		return -1;
	*qpn = q;
	*rx_mtu = m;
	return 0;
}

/*
 * Well formed is not enough to connect: IPv6 needs 1280-byte packets
 * (RFC 8200 section 5), and a connection is used for every unicast to
 * the peer, so a smaller receive MTU is refused rather than half used.
 */
#define IPOIB_CM_MIN_USABLE_RX_MTU	(1280 + IPOIB_ENCAP_LEN)

static inline int ipoib_cm_rx_mtu_usable(unsigned int rx_mtu)
{
	return rx_mtu >= IPOIB_CM_MIN_USABLE_RX_MTU;
}

/*
 * Service IDs a connection is asked for.  RFC 4755 3.5: first octet 0x01,
 * type 0, reserved zero, the UD QPN in the low 24 bits.  The in-tree Linux
 * driver listens on 0x1000000000000000 | QPN instead.
 */
#define IPOIB_CM_SID_LINUX	0x1000000000000000ULL
#define IPOIB_CM_SID_RFC	0x0100000000000000ULL

static inline unsigned long long ipoib_cm_service_id(unsigned int qpn,
						     int rfc_form)
{
	return (rfc_form ? IPOIB_CM_SID_RFC : IPOIB_CM_SID_LINUX) |
	       (qpn & IPOIB_QPN_MASK);
}

#endif /* IPOIB_WIRE_H */
