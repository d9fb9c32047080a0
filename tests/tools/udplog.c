// SPDX-License-Identifier: GPL-2.0
/*
 * A log listener, as a netconsole target runs one:
 *
 *   udplog PORT
 *
 * prints each datagram that arrives on UDP PORT (IPv4 and IPv6) on its own
 * line, as "FROM-ADDRESS: TEXT" (the text's trailing newline dropped), and
 * flushes after each, until killed.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	char buf[65536], from[INET6_ADDRSTRLEN];
	int s, off = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: udplog PORT\n");
		return 2;
	}
	a.sin6_port = htons((unsigned short)atoi(argv[1]));
	s = socket(AF_INET6, SOCK_DGRAM, 0);
	if (s < 0 || setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) ||
	    bind(s, (struct sockaddr *)&a, sizeof(a))) {
		perror("udplog: bind");
		return 2;
	}
	for (;;) {
		struct sockaddr_in6 peer;
		socklen_t plen = sizeof(peer);
		ssize_t n = recvfrom(s, buf, sizeof(buf) - 1, 0,
				     (struct sockaddr *)&peer, &plen);
		const char *f;

		if (n < 0) {
			perror("udplog: recvfrom");
			return 1;
		}
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
			n--;
		buf[n] = '\0';
		f = inet_ntop(AF_INET6, &peer.sin6_addr, from, sizeof(from));
		/* IPv4 senders arrive as ::ffff:a.b.c.d */
		if (f && !strncmp(f, "::ffff:", 7) && strchr(f, '.'))
			f += 7;
		printf("%s: %s\n", f ? f : "?", buf);
		fflush(stdout);
	}
}
