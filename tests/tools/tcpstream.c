// SPDX-License-Identifier: GPL-2.0
/*
 * One TCP stream, counted in bytes at both ends and checked byte by byte
 * (iperf3 reports nothing for the receiver when it is interrupted, and its
 * receiver's count stops when the sender has written its last byte):
 *
 *   tcpstream sink PORT               accept one stream, read it to its end
 *   tcpstream send ADDR PORT [BYTES]  write BYTES, or until SIGTERM/SIGINT
 *
 * The sink prints "received BYTES" when the stream ends (its exit status
 * is 1 on a reset, or when a byte is not the one sent there: "corrupt at
 * OFFSET"); the sender, done or told to stop, ends the stream, waits for
 * the sink to have read it all and prints "sent BYTES"; it exits 1 when
 * the stream broke.  ADDR is IPv4 or IPv6; the sink takes either.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Set from the signal handler: atomics, which need no volatile. */
static int stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
}

static int stopped(void)
{
	return __atomic_load_n(&stop_flag, __ATOMIC_RELAXED);
}

/*
 * The byte at offset i of every stream is i % PERIOD: a prime, so that a
 * segment lost, repeated or misplaced shows wherever it falls.
 */
#define PERIOD 251
#define CHUNK 65536

/* A chunk's worth of the pattern from any phase: buf + offset % PERIOD. */
static unsigned char pattern[CHUNK + PERIOD];

static void pattern_init(void)
{
	int i;

	for (i = 0; i < CHUNK + PERIOD; i++)
		pattern[i] = (unsigned char)(i % PERIOD);
}

static int sink(int port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	unsigned long long got = 0;
	static unsigned char buf[CHUNK];
	int one = 1, zero = 0, l, s;
	ssize_t n, i;

	a.sin6_port = htons((unsigned short)port);
	l = socket(AF_INET6, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1)) {
		perror("tcpstream: listen");
		return 2;
	}
	s = accept(l, NULL, NULL);
	if (s < 0) {
		perror("accept");
		return 2;
	}
	while ((n = read(s, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR && !stopped())
				continue;
			printf("received %llu (%s)\n", got,
			       stopped() ? "stopped" : strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++, got++) {
			if (buf[i] != pattern[got % PERIOD]) {
				printf("received %llu (corrupt at %llu)\n",
				       got - (unsigned long long)i + (unsigned long long)n, got);
				return 1;
			}
		}
	}
	printf("received %llu\n", got);
	return 0;
}

/*
 * Told to stop: end our half and stay until the sink has read it all and
 * closed.  Exiting at once would orphan the socket, and Linux abandons an
 * orphan's unsent tail after few retries when TCP is backed off.
 */
static int finish(int s, unsigned long long sent)
{
	char c;
	ssize_t n;

	if (shutdown(s, SHUT_WR)) {
		printf("sent %llu (broke: %s)\n", sent, strerror(errno));
		return 1;
	}
	while ((n = read(s, &c, 1)) != 0) {
		if (n < 0 && errno != EINTR) {
			printf("sent %llu (tail lost: %s)\n", sent, strerror(errno));
			return 1;
		}
	}
	close(s);
	printf("sent %llu\n", sent);
	return 0;
}

/* BYTES 0: until told to stop. */
static int send_stream(const char *addr, int port,
		       unsigned long long bytes)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	unsigned long long sent = 0;
	struct sockaddr *a;
	socklen_t alen;
	size_t len;
	ssize_t n;
	int s;

	a4.sin_port = htons((unsigned short)port);
	a6.sin6_port = a4.sin_port;
	if (inet_pton(AF_INET, addr, &a4.sin_addr) == 1) {
		a = (struct sockaddr *)&a4;
		alen = sizeof(a4);
	} else if (inet_pton(AF_INET6, addr, &a6.sin6_addr) == 1) {
		a = (struct sockaddr *)&a6;
		alen = sizeof(a6);
	} else {
		fprintf(stderr, "tcpstream: bad address %s\n", addr);
		return 2;
	}
	s = socket(a->sa_family, SOCK_STREAM, 0);
	if (s < 0 || connect(s, a, alen)) {
		perror("tcpstream: connect");
		return 2;
	}
	while (!stopped() && (!bytes || sent < bytes)) {
		len = CHUNK;
		if (bytes && bytes - sent < len)
			len = (size_t)(bytes - sent);
		n = write(s, pattern + sent % PERIOD, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			printf("sent %llu (broke: %s)\n", sent, strerror(errno));
			return 1;
		}
		sent += (unsigned long long)n;
	}
	return finish(s, sent);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	/* No SA_RESTART: a blocked write or read returns when told to stop. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	pattern_init();
	if (argc == 3 && !strcmp(argv[1], "sink"))
		return sink(atoi(argv[2]));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "send"))
		return send_stream(argv[2], atoi(argv[3]),
				   argc == 5 ? strtoull(argv[4], NULL, 0) : 0);
	fprintf(stderr, "usage: %s sink PORT | send ADDR PORT [BYTES]\n", argv[0]);
	return 2;
}
