// SPDX-License-Identifier: GPL-2.0
/*
 * pairrr: UDP request/response over two paths at once, a round trip on
 * one, then on the other, so that both see the same moments of a machine
 * whose speed drifts (a VM under TCG: whole runs of one driver differ by
 * a third, tests/bench/README.md).
 *
 *   pairrr echo NS_A NS_B PORT
 *   pairrr rr NS_A ADDR_A NS_B ADDR_B PORT COUNT SIZE
 *
 * NS_A and NS_B are network namespaces (`ip netns` names): each path's
 * socket is made in its own.  echo answers on both sockets, forever; rr
 * makes COUNT pairs of round trips, the path that goes first swapping
 * from pair to pair, and prints each path's median and 99th percentile,
 * in how many pairs A was the faster, and the pairs lost (a request with
 * no answer within a second; neither of its pair counts).  Requests carry
 * a number, so that an answer that comes late is not taken for the next
 * one's.  Both spin on their sockets, as udpbench does.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE 1400	/* one message on any IPoIB MTU */

static char buf[65536];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A UDP socket made in namespace ns. */
static int ns_socket(const char *ns)
{
	char path[256];
	int nsfd, fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY);
	if (nsfd < 0) {
		snprintf(path, sizeof(path), "/var/run/netns/%s", ns);
		nsfd = open(path, O_RDONLY);
	}
	if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0) {
		perror(path);
		exit(1);
	}
	close(nsfd);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		exit(1);
	}
	return fd;
}

static struct sockaddr_in sin_of(const char *addr, const char *port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(atoi(port));
	if (addr && inet_pton(AF_INET, addr, &sin.sin_addr) != 1) {
		fprintf(stderr, "pairrr: not an IPv4 address: %s\n", addr);
		exit(2);
	}
	return sin;
}

static int mode_echo(const char *ns_a, const char *ns_b, const char *port)
{
	struct sockaddr_in sin = sin_of(NULL, port), from;
	int fd[2] = { ns_socket(ns_a), ns_socket(ns_b) };
	socklen_t fl;
	ssize_t n;
	int i;

	for (i = 0; i < 2; i++)
		if (bind(fd[i], (struct sockaddr *)&sin, sizeof(sin)) < 0) {
			perror("bind");
			return 1;
		}
	for (i = 0;; i ^= 1) {
		fl = sizeof(from);
		n = recvfrom(fd[i], buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &fl);
		if (n > 0)
			sendto(fd[i], buf, n, 0, (struct sockaddr *)&from, fl);
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Round trip number seq on fd to sin: seconds, or -1 after a second
 * without its answer.
 */
static double round_trip(int fd, const struct sockaddr_in *sin, int size,
			 uint32_t seq)
{
	double t0 = now();
	uint32_t got;

	memcpy(buf, &seq, sizeof(seq));
	if (sendto(fd, buf, size, 0, (const struct sockaddr *)sin,
		   sizeof(*sin)) != size) {
		perror("sendto");
		exit(1);
	}
	for (;;) {
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >=
		    (ssize_t)sizeof(got)) {
			memcpy(&got, buf, sizeof(got));
			if (got == seq)
				return now() - t0;
		}
		if (now() - t0 > 1)
			return -1;
	}
}

static int mode_rr(char **argv)
{
	struct sockaddr_in sin[2] = { sin_of(argv[1], argv[4]),
				      sin_of(argv[3], argv[4]) };
	int fd[2] = { ns_socket(argv[0]), ns_socket(argv[2]) };
	int count = atoi(argv[5]), size = atoi(argv[6]);
	double *rtt[2], r[2];
	int got = 0, a_faster = 0, i, k, w;

	if (count < 1 || size < (int)sizeof(uint32_t) || size > MAX_SIZE) {
		fprintf(stderr, "pairrr: COUNT from 1, SIZE from %zu to %d\n",
			sizeof(uint32_t), MAX_SIZE);
		return 2;
	}
	rtt[0] = calloc(count, sizeof(double));
	rtt[1] = calloc(count, sizeof(double));
	if (!rtt[0] || !rtt[1]) {
		perror("pairrr");
		return 1;
	}
	for (i = 0; i < count; i++) {
		for (k = 0; k < 2; k++) {
			w = (i + k) & 1;
			r[w] = round_trip(fd[w], &sin[w], size, i);
		}
		if (r[0] < 0 || r[1] < 0)
			continue;
		a_faster += r[0] < r[1];
		rtt[0][got] = r[0];
		rtt[1][got] = r[1];
		got++;
	}
	if (!got) {
		printf("pairrr count=%d lost=%d\n", count, count);
		return 1;
	}
	for (w = 0; w < 2; w++)
		qsort(rtt[w], got, sizeof(double), cmp);
	printf("pairrr count=%d lost=%d", count, count - got);
	printf(" a_median_us=%.1f b_median_us=%.1f", rtt[0][got / 2] * 1e6,
	       rtt[1][got / 2] * 1e6);
	printf(" a_p99_us=%.1f b_p99_us=%.1f a_faster=%d\n",
	       rtt[0][got * 99 / 100] * 1e6, rtt[1][got * 99 / 100] * 1e6,
	       a_faster);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "echo"))
		return mode_echo(argv[2], argv[3], argv[4]);
	if (argc == 9 && !strcmp(argv[1], "rr"))
		return mode_rr(argv + 2);
	fprintf(stderr, "usage: pairrr echo NS_A NS_B PORT |\n"
		"       pairrr rr NS_A ADDR_A NS_B ADDR_B PORT COUNT SIZE\n");
	return 2;
}
