// SPDX-License-Identifier: GPL-2.0
/*
 * Send COUNT random rtnetlink requests for links of KIND (ipoib, or our
 * driver's kind under another name) on PARENT, and say how each was
 * answered:
 *
 *   ipoib-nlfuzz KIND PARENT COUNT SEED
 *
 * Each request is a RTM_NEWLINK that creates a child (IFLA_LINK the
 * parent, now and then another ifindex) whose IFLA_INFO_DATA holds random
 * attributes: the three IFLA_IPOIB_* ones and types beyond them, each of
 * a random length (0-6 bytes) and value, mostly near the valid ones.  A
 * child that was made gets a random RTM_NEWLINK change half of the time,
 * and is deleted at once.  The same SEED sends the same requests.  Prints
 * "requests N created N changed N refused N" and one line per errno seen;
 * exits 1 only when netlink itself fails or a made child cannot be
 * deleted.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BUF_LEN		1024
#define MAX_ERRNO	200
#define NAME		"nlfuzz0"

struct req {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[BUF_LEN];
};

static uint64_t rng;
static unsigned int seq;
static unsigned long errnos[MAX_ERRNO];

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static struct rtattr *put(struct req *r, unsigned short type,
			  const void *data, unsigned short len)
{
	struct rtattr *rta = (void *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
	return rta;
}

static void nest_end(struct req *r, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)((char *)r + r->nh.nlmsg_len - (char *)nest);
}

/* A value near the valid ones most of the time, anything now and then. */
static uint16_t value(unsigned short type)
{
	static const uint16_t pkeys[] = { 0x8001, 0x8002, 0x0001, 0xffff, 0x7fff, 0, 0x8000 };

	if (next() % 4 == 0)
		return (uint16_t)next();
	switch (type) {
	case IFLA_IPOIB_PKEY:
		return pkeys[next() % ARRAY_SIZE(pkeys)];
	case IFLA_IPOIB_MODE:
	case IFLA_IPOIB_UMCAST:
		return (uint16_t)(next() % 3);
	default:
		return (uint16_t)next();
	}
}

static void put_data(struct req *r, const char *kind)
{
	struct rtattr *info, *data;
	unsigned int n = next() % 5, i;

	info = put(r, IFLA_LINKINFO, NULL, 0);
	put(r, IFLA_INFO_KIND, kind, (unsigned short)(strlen(kind) + 1));
	data = put(r, IFLA_INFO_DATA, NULL, 0);
	for (i = 0; i < n; i++) {
		unsigned short type = (unsigned short)(next() % 6);
		unsigned short len = next() % 3 ? 2 : (unsigned short)(next() % 7);
		uint8_t bytes[8];
		uint16_t v = value(type);

		memcpy(bytes, &v, sizeof(v));
		bytes[2] = (uint8_t)next();
		bytes[3] = (uint8_t)next();
		bytes[4] = (uint8_t)next();
		bytes[5] = (uint8_t)next();
		put(r, type, bytes, len);
	}
	nest_end(r, data);
	nest_end(r, info);
}

static void start(struct req *r, unsigned short type, unsigned short flags)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(sizeof(r->ifi));
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->nh.nlmsg_seq = ++seq;
	r->ifi.ifi_family = AF_UNSPEC;
}

/* Send and read the ACK: 0, or the errno the kernel answered. */
static int talk(int fd, struct req *r)
{
	char buf[4096];
	struct nlmsghdr *nh = (void *)buf;
	ssize_t n;

	if (send(fd, r, r->nh.nlmsg_len, 0) < 0) {
		perror("send");
		exit(1);
	}
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			perror("recv");
			exit(1);
		}
		for (nh = (void *)buf; NLMSG_OK(nh, (unsigned int)n); nh = NLMSG_NEXT(nh, n)) {
			struct nlmsgerr *e = NLMSG_DATA(nh);

			if (nh->nlmsg_seq != seq || nh->nlmsg_type != NLMSG_ERROR)
				continue;
			return -e->error;
		}
	}
}

static void count(int err)
{
	errnos[err > 0 && err < MAX_ERRNO ? err : 0]++;
}

int main(int argc, char **argv)
{
	unsigned long requests = 0, created = 0, changed = 0, refused = 0, total, i;
	struct req r;
	int fd, parent, err, e;
	int one = 1;

	if (argc != 5) {
		fprintf(stderr, "usage: %s KIND PARENT COUNT SEED\n", argv[0]);
		return 2;
	}
	parent = (int)if_nametoindex(argv[2]);
	if (!parent) {
		fprintf(stderr, "no interface %s\n", argv[2]);
		return 2;
	}
	total = strtoul(argv[3], NULL, 0);
	rng = strtoull(argv[4], NULL, 0) * 2654435761u + 1;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));

	for (i = 0; i < total; i++) {
		int link = next() % 8 ? parent : (int)(next() % 64);

		start(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
		put(&r, IFLA_IFNAME, NAME, sizeof(NAME));
		put(&r, IFLA_LINK, &link, sizeof(link));
		put_data(&r, argv[1]);
		requests++;
		err = talk(fd, &r);
		if (err) {
			refused++;
			count(err);
			continue;
		}
		created++;
		if (next() % 2) {
			start(&r, RTM_NEWLINK, 0);
			put(&r, IFLA_IFNAME, NAME, sizeof(NAME));
			put_data(&r, argv[1]);
			requests++;
			err = talk(fd, &r);
			if (err) {
				refused++;
				count(err);
			} else {
				changed++;
			}
		}
		start(&r, RTM_DELLINK, 0);
		put(&r, IFLA_IFNAME, NAME, sizeof(NAME));
		err = talk(fd, &r);
		if (err) {
			fprintf(stderr, "cannot delete %s: %s\n", NAME, strerror(err));
			return 1;
		}
	}
	printf("requests %lu created %lu changed %lu refused %lu\n",
	       requests, created, changed, refused);
	for (e = 0; e < MAX_ERRNO; e++)
		if (errnos[e])
			printf("errno %s %lu\n", e ? strerror(e) : "other", errnos[e]);
	return 0;
}
