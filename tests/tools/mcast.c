// SPDX-License-Identifier: GPL-2.0
/*
 * A multicast application, as the cases need one:
 *
 *   mcast recv IFACE PORT GROUP...      join every GROUP (IPv4 or IPv6) on
 *                                       IFACE and count what arrives on PORT
 *                                       until SIGTERM or SIGINT
 *   mcast send IFACE PORT COUNT GROUP...  send COUNT datagrams to each GROUP,
 *                                       taking turns, out of IFACE (TTL 1)
 *
 * The receiver says "joined N" once every group is joined, "progress N"
 * at every 100th datagram, and at the end one line "GROUP received N" per
 * group, then "total received N stray N"; the sender prints "sent N".
 * Each datagram holds its group and a sequence number, so the receiver
 * counts only datagrams sent to the group they arrived on (misdelivered
 * ones are counted as "stray").
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_GROUPS 1024

struct group {
	const char *name;
	int family;
	struct in_addr a4;
	struct in6_addr a6;
	unsigned long received;
};

static struct group groups[MAX_GROUPS];
static int ngroups;
static int stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
}

static int parse_groups(int n, char **names)
{
	int i;

	if (n > MAX_GROUPS) {
		fprintf(stderr, "mcast: at most %d groups\n", MAX_GROUPS);
		return -1;
	}
	for (i = 0; i < n; i++) {
		groups[i].name = names[i];
		if (inet_pton(AF_INET, names[i], &groups[i].a4) == 1) {
			groups[i].family = AF_INET;
		} else if (inet_pton(AF_INET6, names[i], &groups[i].a6) == 1) {
			groups[i].family = AF_INET6;
		} else {
			fprintf(stderr, "mcast: not an address: %s\n", names[i]);
			return -1;
		}
	}
	ngroups = n;
	return 0;
}

/* One socket per family, bound to PORT, with every group of it joined. */
static int open_recv(int family, unsigned int ifindex, int port)
{
	int one = 1, rcvbuf = 32 << 20, s, i, any = 0;

	for (i = 0; i < ngroups; i++)
		any |= groups[i].family == family;
	if (!any)
		return -2;
	s = socket(family, SOCK_DGRAM, 0);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		return -1;
	/* Room for every round at once: a stream's burst is not a loss. */
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	if (family == AF_INET) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

		if (bind(s, (struct sockaddr *)&a, sizeof(a)) ||
		    setsockopt(s, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)))
			return -1;
	} else {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port) };

		if (setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) ||
		    bind(s, (struct sockaddr *)&a, sizeof(a)) ||
		    setsockopt(s, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)))
			return -1;
	}
	for (i = 0; i < ngroups; i++) {
		int ret;

		if (groups[i].family != family)
			continue;
		if (family == AF_INET) {
			struct ip_mreqn m = { .imr_multiaddr = groups[i].a4,
					      .imr_ifindex = (int)ifindex };

			ret = setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m));
		} else {
			struct ipv6_mreq m = { .ipv6mr_multiaddr = groups[i].a6,
					       .ipv6mr_interface = ifindex };

			ret = setsockopt(s, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, sizeof(m));
		}
		if (ret) {
			fprintf(stderr, "mcast: joining %s: %s\n", groups[i].name, strerror(errno));
			return -1;
		}
	}
	return s;
}

/* The group a datagram was sent to, from its control data. */
static struct group *dest_group(struct msghdr *msg)
{
	struct cmsghdr *c;
	int i;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		for (i = 0; i < ngroups; i++) {
			if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
			    groups[i].family == AF_INET) {
				struct in_pktinfo pi;

				memcpy(&pi, CMSG_DATA(c), sizeof(pi));
				if (pi.ipi_addr.s_addr == groups[i].a4.s_addr)
					return &groups[i];
			}
			if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO &&
			    groups[i].family == AF_INET6) {
				struct in6_pktinfo pi;

				memcpy(&pi, CMSG_DATA(c), sizeof(pi));
				if (!memcmp(&pi.ipi6_addr, &groups[i].a6, sizeof(pi.ipi6_addr)))
					return &groups[i];
			}
		}
	}
	return NULL;
}

/* Read and count one datagram; 0 when none is queued. */
static int count_one(int fd, unsigned long *total, unsigned long *stray)
{
	char buf[2048], ctl[256];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct group *g;
	ssize_t len;

	len = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (len < 0)
		return 0;
	buf[len] = '\0';
	g = dest_group(&msg);
	/* "GROUP SEQ": sent to this group, not another. */
	if (g && !strncmp(buf, g->name, strlen(g->name)) &&
	    buf[strlen(g->name)] == ' ') {
		g->received++;
		if (++*total % 100 == 0) {
			printf("progress %lu\n", *total);
			fflush(stdout);
		}
	} else {
		(*stray)++;
	}
	return 1;
}

static int do_recv(unsigned int ifindex, int port)
{
	struct pollfd p[2];
	unsigned long total = 0, stray = 0;
	int i;

	p[0].fd = open_recv(AF_INET, ifindex, port);
	p[1].fd = open_recv(AF_INET6, ifindex, port);
	if (p[0].fd == -1 || p[1].fd == -1) {
		perror("mcast: recv");
		return 2;
	}
	p[0].events = POLLIN;
	p[1].events = POLLIN;
	printf("joined %d\n", ngroups);
	fflush(stdout);
	while (!__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
		if (poll(p, 2, 200) < 0) {
			if (errno == EINTR)
				continue;
			perror("mcast: poll");
			return 2;
		}
		for (i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !(p[i].revents & POLLIN))
				continue;
			/* Everything queued, not one per poll. */
			while (count_one(p[i].fd, &total, &stray))
				;
		}
	}
	for (i = 0; i < ngroups; i++)
		printf("%s received %lu\n", groups[i].name, groups[i].received);
	printf("total received %lu stray %lu\n", total, stray);
	return 0;
}

static int do_send(unsigned int ifindex, int port, long count)
{
	int s4, s6, ttl = 1, i;
	unsigned long sent = 0;
	long k;

	s4 = socket(AF_INET, SOCK_DGRAM, 0);
	s6 = socket(AF_INET6, SOCK_DGRAM, 0);
	if (s4 < 0 || s6 < 0) {
		perror("mcast: socket");
		return 2;
	}
	{
		struct ip_mreqn m = { .imr_ifindex = (int)ifindex };
		int sndbuf = 64 << 10;

		/* A small send buffer paces us: the device's queue never overflows. */
		setsockopt(s4, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
		setsockopt(s6, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));

		if (setsockopt(s4, IPPROTO_IP, IP_MULTICAST_IF, &m, sizeof(m)) ||
		    setsockopt(s4, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl)) ||
		    setsockopt(s6, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex, sizeof(ifindex)) ||
		    setsockopt(s6, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &ttl, sizeof(ttl))) {
			perror("mcast: send options");
			return 2;
		}
	}
	for (k = 0; k < count; k++) {
		for (i = 0; i < ngroups; i++) {
			char buf[128];
			int len = snprintf(buf, sizeof(buf), "%s %ld", groups[i].name, k);
			ssize_t r;

			if (groups[i].family == AF_INET) {
				struct sockaddr_in a = { .sin_family = AF_INET,
							 .sin_port = htons(port),
							 .sin_addr = groups[i].a4 };

				r = sendto(s4, buf, len, 0, (struct sockaddr *)&a, sizeof(a));
			} else {
				struct sockaddr_in6 a = { .sin6_family = AF_INET6,
							  .sin6_port = htons(port),
							  .sin6_addr = groups[i].a6 };

				r = sendto(s6, buf, len, 0, (struct sockaddr *)&a, sizeof(a));
			}
			if (r < 0) {
				/* A full queue: the stack says so; wait, once. */
				if (errno == ENOBUFS || errno == EAGAIN) {
					usleep(1000);
					continue;
				}
				fprintf(stderr, "mcast: sending to %s: %s\n", groups[i].name,
					strerror(errno));
				return 1;
			}
			sent++;
		}
	}
	printf("sent %lu\n", sent);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int ifindex;
	int port;

	if (argc < 5 || (strcmp(argv[1], "recv") && strcmp(argv[1], "send")) ||
	    (!strcmp(argv[1], "send") && argc < 6)) {
		fprintf(stderr, "usage: mcast recv IFACE PORT GROUP...\n"
				"       mcast send IFACE PORT COUNT GROUP...\n");
		return 2;
	}
	ifindex = if_nametoindex(argv[2]);
	if (!ifindex) {
		fprintf(stderr, "mcast: no interface %s\n", argv[2]);
		return 2;
	}
	port = atoi(argv[3]);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (!strcmp(argv[1], "recv"))
		return parse_groups(argc - 4, argv + 4) ? 2 : do_recv(ifindex, port);
	return parse_groups(argc - 5, argv + 5) ? 2 :
	       do_send(ifindex, port, atol(argv[4]));
}
