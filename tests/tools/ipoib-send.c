// SPDX-License-Identifier: GPL-2.0
/*
 * Send one hand-made frame out of an IPoIB interface through a packet
 * socket, so cases can feed the fabric what no well-behaved stack would:
 *
 *   ipoib-send IFACE DEST ETHERTYPE PAYLOAD
 *
 * DEST is the 20-byte link address and PAYLOAD the bytes after the IPoIB
 * header, both as hex (colons allowed); ETHERTYPE is hex, e.g. 0806.
 * The kernel's header_ops build the IPoIB header from DEST.
 */
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LLADDR_MAX 32

/* sockaddr_ll holds 8 address bytes; the kernel reads sll_halen of them. */
struct sockaddr_ll_big {
	struct sockaddr_ll ll;
	unsigned char more[LLADDR_MAX - 8];
};

static int hex_bytes(const char *text, unsigned char *out, size_t max)
{
	size_t n = 0;
	unsigned int v;

	while (*text) {
		if (*text == ':' || *text == '-' || *text == ' ') {
			text++;
			continue;
		}
		if (n == max || sscanf(text, "%2x", &v) != 1 ||
		    !text[1] || text[1] == ':')
			return -1;
		out[n++] = v;
		text += 2;
	}
	return n;
}

int main(int argc, char **argv)
{
	static unsigned char payload[65536];
	struct sockaddr_ll_big to;
	unsigned long ethertype;
	char *end;
	int fd, alen, plen;

	ethertype = argc == 5 ? strtoul(argv[3], &end, 16) : 0;
	if (argc != 5 || *end || !*argv[3] || ethertype > 0xffff) {
		fprintf(stderr, "usage: %s IFACE DEST ETHERTYPE PAYLOAD\n",
			argv[0]);
		return 2;
	}
	memset(&to, 0, sizeof(to));
	alen = hex_bytes(argv[2], to.ll.sll_addr, LLADDR_MAX);
	plen = hex_bytes(argv[4], payload, sizeof(payload));
	if (alen <= 0 || plen < 0) {
		fprintf(stderr, "%s: DEST and PAYLOAD must be hex bytes\n",
			argv[0]);
		return 2;
	}
	to.ll.sll_family = AF_PACKET;
	to.ll.sll_protocol = htons(ethertype);
	to.ll.sll_ifindex = if_nametoindex(argv[1]);
	to.ll.sll_halen = alen;
	if (!to.ll.sll_ifindex) {
		perror(argv[1]);
		return 1;
	}
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ethertype));
	if (fd < 0 || sendto(fd, payload, plen, 0, (struct sockaddr *)&to,
			     offsetof(struct sockaddr_ll, sll_addr) + alen) < 0) {
		perror("ipoib-send");
		return 1;
	}
	close(fd);
	return 0;
}
