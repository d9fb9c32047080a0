// SPDX-License-Identifier: GPL-2.0
/*
 * Reach many hosts at once, for the bench's scale lines (tests/bench/):
 *
 *   pingall ADDR COUNT SECONDS
 *
 * sends an ICMP echo request to each of COUNT consecutive IPv4 addresses
 * from ADDR, back to back from one process (so that what is timed is the
 * kernel resolving and connecting, not programs starting), asks again each
 * second those that have not answered, and stops when all have or SECONDS
 * have passed.  Prints one line of name=value pairs:
 *
 *   pingall sent=N answered=N resent=N start=T end=T secs=S p50=S p90=S
 *
 * start: the first request, end: the last first reply, both wall-clock
 * seconds (as bash's EPOCHREALTIME) so that the caller can set them beside
 * its own readings; secs: end - start; p50, p90: seconds until half, nine
 * tenths of the addresses had answered.  Exit status 0 when every address
 * answered, 1 if not.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_COUNT 65535
#define PAYLOAD 56
/*
 * Socket buffers for every request queued at once, and every reply: at the
 * default size requests waiting for their neighbour would hold back the
 * others, and replies would overflow the socket, all the more so where a
 * driver's receive buffers (the skb's truesize) are large.
 */
#define SOCK_BUF (16 << 20)

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint16_t csum(const void *data, size_t len)
{
	const uint16_t *p = data;
	uint32_t sum = 0;

	for (; len > 1; len -= 2)
		sum += *p++;
	if (len)
		sum += *(const uint8_t *)p;
	sum = (sum >> 16) + (sum & 0xffff);
	sum += sum >> 16;
	return ~sum;
}

/* 0 sent (or queued by the kernel), 1 try later, -1 failed for good. */
static int send_echo(int fd, uint32_t first, long i, uint16_t id)
{
	unsigned char pkt[sizeof(struct icmphdr) + PAYLOAD] = { 0 };
	struct icmphdr *h = (struct icmphdr *)pkt;
	struct sockaddr_in to = { .sin_family = AF_INET };

	h->type = ICMP_ECHO;
	h->un.echo.id = htons(id);
	h->un.echo.sequence = htons(i);
	h->checksum = csum(pkt, sizeof(pkt));
	to.sin_addr.s_addr = htonl(first + i);
	if (sendto(fd, pkt, sizeof(pkt), MSG_DONTWAIT, (struct sockaddr *)&to,
		   sizeof(to)) == sizeof(pkt))
		return 0;
	if (errno == EAGAIN || errno == EINTR || errno == ENOBUFS)
		return 1;
	fprintf(stderr, "pingall: sendto %s: %s\n", inet_ntoa(to.sin_addr),
		strerror(errno));
	return -1;
}

/* The index of the address an echo reply came from, or -1. */
static long reply_index(const unsigned char *buf, ssize_t n, uint32_t first,
			long count, uint16_t id)
{
	const struct iphdr *ip = (const struct iphdr *)buf;
	const struct icmphdr *h;
	size_t hl;
	long i;

	if (n < (ssize_t)sizeof(*ip))
		return -1;
	hl = ip->ihl * 4;
	if (n < (ssize_t)(hl + sizeof(*h)))
		return -1;
	h = (const struct icmphdr *)(buf + hl);
	if (h->type != ICMP_ECHOREPLY || ntohs(h->un.echo.id) != id)
		return -1;
	i = ntohs(h->un.echo.sequence);
	if (i >= count || ntohl(ip->saddr) != first + i)
		return -1;
	return i;
}

int main(int argc, char **argv)
{
	unsigned char buf[2048], *answered;
	double start = 0, end = 0, deadline, *asked, *took;
	long count, secs, i, next = 0, got = 0, resent = 0;
	uint16_t id = getpid() & 0xffff;
	struct in_addr a;
	struct pollfd pfd;
	uint32_t first;
	int fd, ret, sock_buf = SOCK_BUF;

	count = argc == 4 ? atol(argv[2]) : 0;
	secs = argc == 4 ? atol(argv[3]) : 0;
	if (count < 1 || count > MAX_COUNT || secs < 1 ||
	    inet_pton(AF_INET, argv[1], &a) != 1) {
		fprintf(stderr, "usage: pingall ADDR COUNT SECONDS (COUNT 1-%d)\n",
			MAX_COUNT);
		return 2;
	}
	first = ntohl(a.s_addr);
	answered = calloc(count, 1);
	asked = calloc(count, sizeof(*asked));
	took = calloc(count, sizeof(*took));
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (!answered || !asked || !took || fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sock_buf, sizeof(sock_buf)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sock_buf, sizeof(sock_buf))) {
		perror("pingall");
		return 1;
	}
	pfd.fd = fd;
	start = wall();
	deadline = start + secs;
	while (got < count && wall() < deadline) {
		/* Each address once, in order; again those asked a second ago. */
		while (next < count) {
			ret = send_echo(fd, first, next, id);
			if (ret < 0)
				return 1;
			if (ret > 0)
				break;
			asked[next++] = wall();
		}
		for (i = 0; i < next; i++) {
			if (answered[i] || wall() - asked[i] < 1)
				continue;
			ret = send_echo(fd, first, i, id);
			if (ret < 0)
				return 1;
			if (ret > 0)
				break;
			asked[i] = wall();
			resent++;
		}
		pfd.events = POLLIN | (next < count ? POLLOUT : 0);
		if (poll(&pfd, 1, 100) <= 0 || !(pfd.revents & POLLIN))
			continue;
		for (;;) {
			ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

			if (n < 0)
				break;
			i = reply_index(buf, n, first, count, id);
			if (i < 0 || answered[i])
				continue;
			answered[i] = 1;
			end = wall();
			took[got++] = end - start;
		}
	}
	/* Replies come in order of arrival: took[] is sorted. */
	printf("pingall sent=%ld answered=%ld resent=%ld start=%.6f end=%.6f",
	       next, got, resent, start, end);
	printf(" secs=%.6f p50=%.3f p90=%.3f\n", got ? end - start : 0.0,
	       got ? took[(got - 1) / 2] : 0.0,
	       got ? took[(got * 9 - 1) / 10] : 0.0);
	return got == count ? 0 : 1;
}
