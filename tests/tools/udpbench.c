// SPDX-License-Identifier: GPL-2.0
/*
 * UDP load for the benchmark (tests/bench/): small-packet rate and
 * request/response latency over IPv4; and, for the cases, datagrams that
 * must all arrive.
 *
 *   udpbench echo PORT                      answer every datagram, forever
 *   udpbench rr ADDR PORT COUNT SIZE        COUNT ping-pongs, one at a time;
 *                                           the median of all, and of the
 *                                           first 1,000 on their own
 *   udpbench sink PORT                      count datagrams until 1 s of quiet
 *   udpbench blast ADDR PORT SECONDS SIZE[:SIZE2]
 *                                           send as fast as the stack lets us,
 *                                           sizes taking turns if two, until
 *                                           SECONDS pass or a SIGTERM comes
 *   udpbench ack PORT                       answer each datagram with its
 *                                           number, count them until 1 s of
 *                                           quiet
 *   udpbench window ADDR PORT COUNT SIZE WINDOW
 *                                           COUNT datagrams, at most WINDOW
 *                                           of them unanswered; fails when
 *                                           an answer is a second late
 *
 * Each prints one line of name=value pairs for the bench to parse.  blast
 * numbers its datagrams and sink counts those that came after a later one
 * (reordered=).  window keeps few datagrams in flight, so that none is
 * lost to a receive ring or socket buffer that a burst filled: what does
 * not arrive is lost by the path.  echo and rr spin on their socket rather than sleep: in a
 * TCG guest a sleeping task may wait for the next timer tick to run again,
 * and the figure would be the tick, not the network path.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE 65507
/* The bench's former run length: how a run starts, on its own. */
#define RR_FIRST 1000

static char buf[MAX_SIZE];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int udp_socket(const char *addr, const char *port, int bind_it,
		      struct sockaddr_in *sin)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(atoi(port));
	if (addr && inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "udpbench: not an IPv4 address: %s\n", addr);
		exit(2);
	}
	if (fd < 0 || (bind_it && bind(fd, (struct sockaddr *)sin,
				       sizeof(*sin)) < 0)) {
		perror("udpbench: socket");
		exit(1);
	}
	return fd;
}

static int mode_echo(const char *port)
{
	struct sockaddr_in sin, from;
	socklen_t flen;
	ssize_t n;
	int fd = udp_socket(NULL, port, 1, &sin);

	for (;;) {
		flen = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &flen);
		if (n >= 0)
			sendto(fd, buf, n, 0, (struct sockaddr *)&from, flen);
		else if (errno != EAGAIN && errno != EINTR)
			break;
	}
	perror("udpbench: recvfrom");
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int mode_rr(const char *addr, const char *port, long count, long size)
{
	struct sockaddr_in to;
	double *rtt, t0, first_median;
	long i, got = 0, lost = 0, first;
	int fd = udp_socket(addr, port, 0, &to);

	rtt = calloc(count, sizeof(*rtt));
	if (!rtt || connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		perror("udpbench: rr");
		return 1;
	}
	for (i = 0; i < count; i++) {
		memcpy(buf, &i, sizeof(i));
		t0 = now();
		if (send(fd, buf, size, 0) < 0) {
			perror("udpbench: send");
			return 1;
		}
		/* A reply to an earlier, timed-out request is not this one's. */
		for (;;) {
			long seq;

			if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <
			    (ssize_t)sizeof(seq)) {
				if (now() - t0 < 1)
					continue;
				lost++;
				break;
			}
			memcpy(&seq, buf, sizeof(seq));
			if (seq == i) {
				rtt[got++] = (now() - t0) * 1e6;
				break;
			}
		}
	}
	if (!got) {
		fprintf(stderr, "udpbench: no reply from %s\n", addr);
		return 1;
	}
	first = got < RR_FIRST ? got : RR_FIRST;
	/* The first ones sorted apart, before the whole run is. */
	qsort(rtt, first, sizeof(*rtt), cmp_double);
	first_median = rtt[first / 2];
	qsort(rtt, got, sizeof(*rtt), cmp_double);
	printf("rr count=%ld lost=%ld median_us=%.1f p99_us=%.1f first=%ld first_median_us=%.1f\n",
	       got, lost, rtt[got / 2],
	       rtt[got * 99 / 100],
	       first, first_median);
	free(rtt);
	return 0;
}

static int mode_sink(const char *port)
{
	struct sockaddr_in sin;
	struct pollfd pfd;
	double first = 0, last = 0;
	long packets = 0, bytes = 0, reordered = 0, seq, top = -1;
	ssize_t n;
	int fd = udp_socket(NULL, port, 1, &sin);

	pfd.fd = fd;
	pfd.events = POLLIN;
	/* Wait up to 30 s for the first datagram, then until 1 s of quiet. */
	while (poll(&pfd, 1, packets ? 1000 : 30000) > 0) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			continue;
		last = now();
		if (!packets)
			first = last;
		packets++;
		bytes += n;
		if (n < (ssize_t)sizeof(seq))
			continue;
		memcpy(&seq, buf, sizeof(seq));
		if (seq < top)
			reordered++;
		else
			top = seq;
	}
	printf("sink packets=%ld bytes=%ld seconds=%.3f pps=%.0f reordered=%ld\n",
	       packets, bytes, last - first,
	       last > first ? (packets - 1) / (last - first) : 0.0, reordered);
	return packets ? 0 : 1;
}

/* A SIGTERM, held pending: a case stops the flood once it has measured. */
static int term_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && sigismember(&set, SIGTERM);
}

static int mode_blast(const char *addr, const char *port, double secs,
		      const long size[2])
{
	struct sockaddr_in to;
	long packets = 0, refused = 0, seq = 0;
	sigset_t term;
	double t0, end;
	int fd = udp_socket(addr, port, 0, &to);

	if (connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		perror("udpbench: connect");
		return 1;
	}
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	memset(buf, 0x5a, sizeof(buf));
	t0 = now();
	end = t0 + secs;
	while (now() < end && !term_pending()) {
		int i;

		for (i = 0; i < 64; i++) {
			long len = size[seq & 1];

			memcpy(buf, &seq, sizeof(seq));
			seq++;
			if (send(fd, buf, len, 0) == len)
				packets++;
			else if (errno == ENOBUFS || errno == EAGAIN ||
				 errno == ECONNREFUSED)
				refused++;
			else
				return perror("udpbench: send"), 1;
		}
	}
	printf("blast packets=%ld refused=%ld seconds=%.3f pps=%.0f\n", packets,
	       refused, now() - t0, packets / (now() - t0));
	return 0;
}

static int mode_ack(const char *port)
{
	struct sockaddr_in sin, from;
	struct pollfd pfd;
	long packets = 0, bytes = 0;
	socklen_t flen;
	ssize_t n;
	int fd = udp_socket(NULL, port, 1, &sin);

	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, packets ? 1000 : 30000) > 0) {
		flen = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			     &flen);
		if (n < 0)
			continue;
		packets++;
		bytes += n;
		if (n >= (ssize_t)sizeof(long))
			sendto(fd, buf, sizeof(long), 0,
			       (struct sockaddr *)&from, flen);
	}
	printf("ack packets=%ld bytes=%ld\n", packets, bytes);
	return packets ? 0 : 1;
}

static int mode_window(const char *addr, const char *port, long count,
		       long size, long window)
{
	struct sockaddr_in to;
	struct pollfd pfd;
	long sent = 0, answered = 0, seq;
	ssize_t n;
	int fd = udp_socket(addr, port, 0, &to);

	if (connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		perror("udpbench: connect");
		return 1;
	}
	memset(buf, 0x5a, sizeof(buf));
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (answered < count) {
		for (; sent < count && sent - answered < window; sent++) {
			memcpy(buf, &sent, sizeof(sent));
			if (send(fd, buf, size, 0) != size)
				return perror("udpbench: send"), 1;
		}
		if (poll(&pfd, 1, 1000) <= 0)
			break;
		n = recv(fd, &seq, sizeof(seq), 0);
		if (n == sizeof(seq))
			answered++;
		else if (n < 0 && errno != EINTR)
			return perror("udpbench: recv"), 1;
	}
	printf("window sent=%ld bytes=%ld answered=%ld\n", sent, sent * size,
	       answered);
	return answered == count ? 0 : 1;
}

static int valid_size(long size)
{
	return size >= (long)sizeof(long) && size <= MAX_SIZE;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long size = argc > 5 ? atol(argv[5]) : 0;
	long sizes[2] = { size, size };
	const char *second = argc > 5 ? strchr(argv[5], ':') : NULL;

	if (!strcmp(mode, "echo") && argc == 3)
		return mode_echo(argv[2]);
	if (!strcmp(mode, "sink") && argc == 3)
		return mode_sink(argv[2]);
	if (!strcmp(mode, "ack") && argc == 3)
		return mode_ack(argv[2]);
	if (second)
		sizes[1] = atol(second + 1);
	if (valid_size(size) && !second && !strcmp(mode, "rr") && argc == 6 &&
	    atol(argv[4]) > 0)
		return mode_rr(argv[2], argv[3], atol(argv[4]), size);
	if (valid_size(sizes[0]) && valid_size(sizes[1]) &&
	    !strcmp(mode, "blast") && argc == 6 && atof(argv[4]) > 0)
		return mode_blast(argv[2], argv[3], atof(argv[4]), sizes);
	if (valid_size(size) && !second && !strcmp(mode, "window") &&
	    argc == 7 && atol(argv[4]) > 0 && atol(argv[6]) > 0)
		return mode_window(argv[2], argv[3], atol(argv[4]), size,
				   atol(argv[6]));
	fprintf(stderr,
		"usage: udpbench echo PORT | sink PORT | ack PORT |\n"
		"       rr ADDR PORT COUNT SIZE | blast ADDR PORT SECONDS SIZE[:SIZE2] |\n"
		"       window ADDR PORT COUNT SIZE WINDOW\n");
	return 2;
}
