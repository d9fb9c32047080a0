// SPDX-License-Identifier: GPL-2.0
/*
 * Send one subnet management, performance or subnet administration MAD
 * through a umad device and print the answer: what infiniband-diags
 * cannot send (a SubnSet of any attribute, an odd method, an SA Set or
 * Delete of any record), for the cases to check a port's agents and the
 * SA.
 *
 *   mad-send UMAD-DEV smp DR-PATH METHOD ATTR MOD [DATA]
 *   mad-send UMAD-DEV pma LID METHOD ATTR MOD [DATA]
 *   mad-send UMAD-DEV sa LID METHOD ATTR COMP-MASK [DATA]
 *
 * DR-PATH is a directed route as smpquery -D takes it ("0" the local
 * port, "0,1" one hop out of port 1); LID a PMA's or the SA's LID.
 * METHOD, ATTR, MOD and COMP-MASK are numbers (0x ok); DATA the
 * attribute's (the record's) first bytes as hex.  Prints "status 0xSSSS"
 * and the answer's attribute data, 16 bytes a line; exits 0 when an
 * answer came, 1 when none did.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <rdma/ib_user_mad.h>

#define MAD_SIZE		256
#define SMP_DATA		64	/* SMP attribute data offset and size */
#define PMA_DATA		64	/* PMA data offset (40 reserved bytes) */
#define PMA_DATA_SIZE		192
#define SA_COMP_MASK		48	/* SA header's ComponentMask */
#define SA_DATA			56
#define SA_DATA_SIZE		64	/* printed: a record up to a PathRecord */
#define CLASS_SMP_DR		0x81
#define CLASS_PMA		0x04
#define CLASS_SA		0x03
#define LID_PERMISSIVE		0xffff
#define QP1_QKEY		0x80010000
#define MAX_HOPS		64

struct umad_msg {
	struct ib_user_mad_hdr hdr;
	uint8_t mad[MAD_SIZE];
};

static int hex_bytes(const char *text, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned int byte;

	while (*text) {
		if (*text == ':') {
			text++;
			continue;
		}
		if (n == max || sscanf(text, "%2x", &byte) != 1)
			return -1;
		out[n++] = byte;
		text += 2;
	}
	return n;
}

/* "0,1,2": hop count 2, initial path [_, 1, 2]. */
static int dr_path(const char *text, uint8_t *path)
{
	char *copy = strdup(text), *tok, *save = NULL;
	int hops = -1;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (++hops >= MAX_HOPS)
			break;
		path[hops] = strtoul(tok, NULL, 0);
	}
	free(copy);
	return hops < MAX_HOPS ? hops : -1;
}

static int bad_arguments(void)
{
	fprintf(stderr, "mad-send UMAD-DEV smp DR-PATH METHOD ATTR MOD [DATA]\n"
			"mad-send UMAD-DEV pma LID METHOD ATTR MOD [DATA]\n"
			"mad-send UMAD-DEV sa LID METHOD ATTR COMP-MASK [DATA]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct ib_user_mad_reg_req reg = { .mgmt_class_version = 1 };
	struct umad_msg msg = { 0 }, ans;
	struct pollfd pfd;
	uint8_t *mad = msg.mad;
	int fd, pma, sa, hops, off, size, i;
	uint16_t status;

	if (argc < 7 || argc > 8)
		return bad_arguments();
	pma = !strcmp(argv[2], "pma");
	sa = !strcmp(argv[2], "sa");
	if (!pma && !sa && strcmp(argv[2], "smp"))
		return bad_arguments();
	off = sa ? SA_DATA : pma ? PMA_DATA : SMP_DATA;
	size = sa ? SA_DATA_SIZE : pma ? PMA_DATA_SIZE : SMP_DATA;

	mad[0] = 1;					/* BaseVersion */
	mad[1] = sa ? CLASS_SA : pma ? CLASS_PMA : CLASS_SMP_DR;
	mad[2] = sa ? 2 : 1;				/* ClassVersion */
	mad[3] = strtoul(argv[4], NULL, 0);		/* Method */
	*(uint64_t *)(mad + 8) = htobe64(0x5eb1);	/* TID */
	*(uint16_t *)(mad + 16) = htons(strtoul(argv[5], NULL, 0));
	if (sa)
		*(uint64_t *)(mad + SA_COMP_MASK) =
			htobe64(strtoull(argv[6], NULL, 0));
	else
		*(uint32_t *)(mad + 20) = htonl(strtoul(argv[6], NULL, 0));
	if (argc == 8 && hex_bytes(argv[7], mad + off, size) < 0) {
		fprintf(stderr, "mad-send: bad data \"%s\"\n", argv[7]);
		return 2;
	}
	if (pma || sa) {
		msg.hdr.qpn = htonl(1);
		msg.hdr.qkey = htonl(QP1_QKEY);
		msg.hdr.lid = htons(strtoul(argv[3], NULL, 0));
	} else {
		hops = dr_path(argv[3], mad + 128);	/* InitialPath */
		if (hops < 0) {
			fprintf(stderr, "mad-send: bad path \"%s\"\n", argv[3]);
			return 2;
		}
		mad[7] = hops;				/* HopCount */
		*(uint16_t *)(mad + 32) = htons(LID_PERMISSIVE);	/* DrSLID */
		*(uint16_t *)(mad + 34) = htons(LID_PERMISSIVE);	/* DrDLID */
		msg.hdr.lid = htons(LID_PERMISSIVE);
	}

	fd = open(argv[1], O_RDWR);
	if (fd < 0 || ioctl(fd, IB_USER_MAD_ENABLE_PKEY) < 0) {
		perror(argv[1]);
		return 1;
	}
	reg.qpn = pma || sa ? 1 : 0;
	reg.mgmt_class = mad[1];
	reg.mgmt_class_version = mad[2];
	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &reg) < 0) {
		perror("register agent");
		return 1;
	}
	msg.hdr.id = reg.id;
	msg.hdr.timeout_ms = 1000;
	msg.hdr.retries = 2;
	if (write(fd, &msg, sizeof(msg)) != sizeof(msg)) {
		perror("send");
		return 1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 10000) != 1 || read(fd, &ans, sizeof(ans)) < 0) {
		fprintf(stderr, "mad-send: no answer\n");
		return 1;
	}
	if (ans.hdr.status) {
		fprintf(stderr, "mad-send: no answer (%s)\n", strerror(ans.hdr.status));
		return 1;
	}
	/* The direction bit of a directed-route answer is not a status. */
	status = ntohs(*(uint16_t *)(ans.mad + 4)) & (pma || sa ? 0xffff : 0x7fff);
	printf("status 0x%04x\n", status);
	for (i = 0; i < size; i++)
		printf("%02x%s", ans.mad[off + i], i % 16 == 15 ? "\n" : "");
	close(fd);
	return 0;
}
