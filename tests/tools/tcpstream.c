// SPDX-License-Identifier: GPL-2.0
/*
 * One TCP stream for as long as a campaign runs, counted in bytes at both
 * ends (iperf3 reports nothing for the receiver when it is interrupted):
 *
 *   tcpstream sink PORT          accept one stream, read it to its end
 *   tcpstream send ADDR PORT     write to it until SIGTERM or SIGINT
 *
 * The sink prints "received BYTES" when the stream ends (its exit status
 * is 1 on a reset); the sender, told to stop, ends the stream, waits for
 * the sink to have read it all and prints "sent BYTES"; it exits 1 when the
 * stream broke.  IPv4 only.
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

static int sink(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	unsigned long long got = 0;
	static char buf[65536];
	int one = 1, l, s;
	ssize_t n;

	a.sin_port = htons((unsigned short)port);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
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
		got += (unsigned long long)n;
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

static int send_stream(const char *addr, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	unsigned long long sent = 0;
	static char buf[65536];
	ssize_t n;
	int s;

	a.sin_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "tcpstream: bad address %s\n", addr);
		return 2;
	}
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		perror("tcpstream: connect");
		return 2;
	}
	memset(buf, 0x5a, sizeof(buf));
	while (!stopped()) {
		n = write(s, buf, sizeof(buf));
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
	if (argc == 3 && !strcmp(argv[1], "sink"))
		return sink(atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "send"))
		return send_stream(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: %s sink PORT | send ADDR PORT\n", argv[0]);
	return 2;
}
