// SPDX-License-Identifier: GPL-2.0
/*
 * Send COUNT malformed IPoIB frames out of an interface to one link
 * address, through a raw packet socket, so a case can see what the
 * receiving driver and stack make of them:
 *
 *   ipoib-fuzz IFACE DEST COUNT SEED
 *
 * DEST is the 20-byte link address as hex (colons allowed).  Each frame is
 * one of: a random EtherType with random bytes; ARP of random shape; ARP
 * laid out as RFC 4391 says whose sender address is bogus (QPN 0, QPN
 * 0xffffff, a multicast GID) or sound; IPv4 of random shape; an IPv6
 * neighbour solicitation or advertisement with a valid checksum and a
 * link-layer option of random length; an IPoIB header with no payload.
 * The same SEED sends the same frames.  Prints how many of each kind went.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define ALEN		20	/* IPoIB link address */
#define HDR		4	/* IPoIB header: EtherType, reserved */
#define FRAME_MAX	(ALEN + HDR + 4096)

enum kind { RANDOM, ARP_SHAPE, ARP_SENDER, IPV4, ND, EMPTY, KINDS };

static const char *const kind_names[KINDS] = {
	"random", "arp-shape", "arp-sender", "ipv4", "nd", "empty",
};

static uint64_t rng;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static void fill(uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)next();
}

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int hex_bytes(const char *text, uint8_t *out, size_t want)
{
	size_t n = 0;
	unsigned int v;

	while (*text && n < want) {
		if (*text == ':') {
			text++;
			continue;
		}
		if (sscanf(text, "%2x", &v) != 1)
			return -1;
		out[n++] = (uint8_t)v;
		text += 2;
	}
	return n == want && !*text ? 0 : -1;
}

/* An IPoIB link address: flags, QPN, GID; bogus in one of three ways or not. */
static void link_addr(uint8_t *a)
{
	fill(a, ALEN);
	a[0] &= 0xc0;
	a[4] = 0xfe;	/* fe80::/64, a unicast GID */
	a[5] = 0x80;
	memset(a + 6, 0, 6);
	switch (next() % 4) {
	case 0:
		memset(a + 1, 0, 3);		/* QPN 0: the SMI */
		break;
	case 1:
		memset(a + 1, 0xff, 3);		/* the multicast QPN */
		break;
	case 2:
		a[4] = 0xff;			/* a multicast GID */
		break;
	default:
		break;
	}
}

static size_t arp_shape(uint8_t *p)
{
	size_t len = next() % 80;

	fill(p, len);
	if (len >= 6 && next() % 2) {
		put16(p, 32);
		put16(p + 2, 0x0800);
		p[4] = ALEN;
		p[5] = 4;
	}
	return len;
}

/* RFC 4391 ARP, request or reply, from 10.13.200.x for 10.13.0.0/16. */
static size_t arp_sender(uint8_t *p)
{
	put16(p, 32);
	put16(p + 2, 0x0800);
	p[4] = ALEN;
	p[5] = 4;
	put16(p + 6, 1 + next() % 2);
	link_addr(p + 8);
	p[28] = 10;
	p[29] = 13;
	p[30] = 200;
	p[31] = (uint8_t)(1 + next() % 250);
	memset(p + 32, 0, ALEN);
	p[52] = 10;
	p[53] = 13;
	p[54] = 0;
	p[55] = (uint8_t)(next() % 4);
	return 56;
}

static size_t ipv4(uint8_t *p)
{
	size_t len = next() % 64;

	fill(p, len);
	if (len && next() % 2)
		p[0] = 0x45;
	return len;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/*
 * IPv6 to ff02::1 from a random link-local address, ICMPv6 NS or NA for
 * fd00:13::x with one link-layer address option of random length (an
 * IPoIB address needs 3, units of 8 bytes) and a valid checksum.
 */
static size_t nd(uint8_t *p)
{
	uint8_t *icmp = p + 40;
	unsigned int olen = next() % 5;
	size_t plen = 24 + 8 * (olen ? olen : 1);
	uint32_t sum;

	memset(p, 0, 40 + plen);
	p[0] = 0x60;
	put16(p + 4, (unsigned int)plen);
	p[6] = 58;
	p[7] = 255;
	p[8] = 0xfe;
	p[9] = 0x80;
	fill(p + 16, 8);
	p[24] = 0xff;
	p[25] = 0x02;
	p[39] = 1;
	icmp[0] = next() % 2 ? 135 : 136;
	if (icmp[0] == 136)
		icmp[4] = 0x20;		/* solicited: no, override: yes */
	icmp[8] = 0xfd;
	icmp[10] = 0x00;
	icmp[11] = 0x13;
	icmp[23] = (uint8_t)(1 + next() % 250);
	icmp[24] = icmp[0] == 135 ? 1 : 2;	/* source / target lladdr */
	icmp[25] = (uint8_t)olen;
	link_addr(icmp + 28);
	/* Pseudo header: addresses, length, next header. */
	sum = csum_add(0, p + 8, 32);
	sum += (uint32_t)plen + 58;
	sum = csum_add(sum, icmp, plen);
	put16(icmp + 2, csum_fold(sum));
	if (next() % 8 == 0)
		plen = next() % plen;		/* and sometimes cut short */
	return 40 + plen;
}

int main(int argc, char **argv)
{
	static const uint16_t empty_types[] = { 0x0800, 0x0806, 0x86dd };
	unsigned long count, sent[KINDS] = { 0 }, i, retries = 0;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	uint8_t frame[FRAME_MAX], *pay = frame + ALEN + HDR;
	struct ifreq ifr = { 0 };
	size_t len, max;
	uint16_t type;
	enum kind k;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: %s IFACE DEST COUNT SEED\n", argv[0]);
		return 2;
	}
	if (hex_bytes(argv[2], frame, ALEN)) {
		fprintf(stderr, "%s: DEST must be 20 bytes of hex\n", argv[0]);
		return 2;
	}
	count = strtoul(argv[3], NULL, 0);
	rng = strtoull(argv[4], NULL, 0) * 2654435761u + 1;

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
	if (ioctl(fd, SIOCGIFMTU, &ifr)) {
		perror(argv[1]);
		return 1;
	}
	max = (size_t)ifr.ifr_mtu < sizeof(frame) - ALEN - HDR ?
	      (size_t)ifr.ifr_mtu : sizeof(frame) - ALEN - HDR;
	sll.sll_ifindex = (int)if_nametoindex(argv[1]);

	for (i = 0; i < count; i++) {
		k = (enum kind)(next() % KINDS);
		switch (k) {
		case ARP_SHAPE:
			type = 0x0806;
			len = arp_shape(pay);
			break;
		case ARP_SENDER:
			type = 0x0806;
			len = arp_sender(pay);
			break;
		case IPV4:
			type = 0x0800;
			len = ipv4(pay);
			break;
		case ND:
			type = 0x86dd;
			len = nd(pay);
			break;
		case EMPTY:
			type = empty_types[next() % 3];
			len = 0;
			break;
		default:
			type = (uint16_t)next();
			len = next() % (max + 1);
			fill(pay, len);
			break;
		}
		put16(frame + ALEN, type);
		put16(frame + ALEN + 2, 0);
		sll.sll_protocol = htons(type);
		while (sendto(fd, frame, ALEN + HDR + len, 0,
			      (struct sockaddr *)&sll, sizeof(sll)) < 0) {
			if (errno != ENOBUFS && errno != EAGAIN) {
				fprintf(stderr, "frame %lu (%s, %zu bytes): %s\n",
					i, kind_names[k], len, strerror(errno));
				return 1;
			}
			retries++;
			usleep(1000);
		}
		sent[k]++;
	}
	printf("sent %lu:", count);
	for (k = RANDOM; k < KINDS; k++)
		printf(" %s=%lu", kind_names[k], sent[k]);
	printf(" (retries %lu)\n", retries);
	return 0;
}
