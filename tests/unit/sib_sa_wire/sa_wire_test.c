// SPDX-License-Identifier: GPL-2.0
/*
 * The SA's record codecs (tests/sib/sib_sa_wire.h), built in userspace and
 * checked against a second, independent description of the same layouts:
 * each field as a bit offset from the start of the record and a width, as
 * the IBA tables give them (bit 0 is the most significant bit of byte 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include "../../sib/sib_sa_wire.h"
#include "../unit.h"


/* Fields by IBA bit offset; "bytes" fields are compared as byte strings. */
struct field {
	const char *name;
	unsigned int off;
	unsigned int width;
};

enum {
	PF_SERVICE_ID, PF_DGID, PF_SGID, PF_DLID, PF_SLID, PF_RAW, PF_FLOW,
	PF_HOP, PF_TCLASS, PF_REVERSIBLE, PF_NUMB, PF_PKEY, PF_QOS, PF_SL,
	PF_MTU_SEL, PF_MTU, PF_RATE_SEL, PF_RATE, PF_LIFE_SEL, PF_LIFE,
	PF_PREFERENCE, PF_NR
};

/* PathRecord, IBA 15.2.5.16; bits 353-355 and 464-511 are reserved. */
static const struct field path_fields[PF_NR] = {
	[PF_SERVICE_ID] = { "ServiceID", 0, 64 },
	[PF_DGID] = { "DGID", 64, 128 },
	[PF_SGID] = { "SGID", 192, 128 },
	[PF_DLID] = { "DLID", 320, 16 },
	[PF_SLID] = { "SLID", 336, 16 },
	[PF_RAW] = { "RawTraffic", 352, 1 },
	[PF_FLOW] = { "FlowLabel", 356, 20 },
	[PF_HOP] = { "HopLimit", 376, 8 },
	[PF_TCLASS] = { "TClass", 384, 8 },
	[PF_REVERSIBLE] = { "Reversible", 392, 1 },
	[PF_NUMB] = { "NumbPath", 393, 7 },
	[PF_PKEY] = { "P_Key", 400, 16 },
	[PF_QOS] = { "QoSClass", 416, 12 },
	[PF_SL] = { "SL", 428, 4 },
	[PF_MTU_SEL] = { "MTUSelector", 432, 2 },
	[PF_MTU] = { "MTU", 434, 6 },
	[PF_RATE_SEL] = { "RateSelector", 440, 2 },
	[PF_RATE] = { "Rate", 442, 6 },
	[PF_LIFE_SEL] = { "PacketLifeTimeSelector", 448, 2 },
	[PF_LIFE] = { "PacketLifeTime", 450, 6 },
	[PF_PREFERENCE] = { "Preference", 456, 8 },
};

enum {
	MF_MGID, MF_PORT_GID, MF_QKEY, MF_MLID, MF_MTU_SEL, MF_MTU, MF_TCLASS,
	MF_PKEY, MF_RATE_SEL, MF_RATE, MF_LIFE_SEL, MF_LIFE, MF_SL, MF_FLOW,
	MF_HOP, MF_SCOPE, MF_JOIN, MF_PROXY, MF_NR
};

/* MCMemberRecord, IBA 15.2.5.17; bits 393-415 are reserved. */
static const struct field mcm_fields[MF_NR] = {
	[MF_MGID] = { "MGID", 0, 128 },
	[MF_PORT_GID] = { "PortGID", 128, 128 },
	[MF_QKEY] = { "Q_Key", 256, 32 },
	[MF_MLID] = { "MLID", 288, 16 },
	[MF_MTU_SEL] = { "MTUSelector", 304, 2 },
	[MF_MTU] = { "MTU", 306, 6 },
	[MF_TCLASS] = { "TClass", 312, 8 },
	[MF_PKEY] = { "P_Key", 320, 16 },
	[MF_RATE_SEL] = { "RateSelector", 336, 2 },
	[MF_RATE] = { "Rate", 338, 6 },
	[MF_LIFE_SEL] = { "PacketLifeTimeSelector", 344, 2 },
	[MF_LIFE] = { "PacketLifeTime", 346, 6 },
	[MF_SL] = { "SL", 352, 4 },
	[MF_FLOW] = { "FlowLabel", 356, 20 },
	[MF_HOP] = { "HopLimit", 376, 8 },
	[MF_SCOPE] = { "Scope", 384, 4 },
	[MF_JOIN] = { "JoinState", 388, 4 },
	[MF_PROXY] = { "ProxyJoin", 392, 1 },
};

static u32 bits_get(const u8 *buf, const struct field *f)
{
	u32 v = 0;
	unsigned int i;

	for (i = f->off; i < f->off + f->width; i++)
		v = v << 1 | ((buf[i / 8] >> (7 - i % 8)) & 1);
	return v;
}

static void bits_clear(u8 *buf, unsigned int off, unsigned int width)
{
	unsigned int i;

	for (i = off; i < off + width; i++)
		buf[i / 8] &= ~(1u << (7 - i % 8));
}

static bool bytes_eq(const u8 *buf, const struct field *f, const void *p)
{
	return !memcmp(buf + f->off / 8, p, f->width / 8);
}

static u32 seed = 2463534242u;

static u8 rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 17;
	seed ^= seed << 5;
	return seed;
}

static void check_field(const struct field *f, const u8 *buf, u32 val)
{
	u32 got = bits_get(buf, f);

	CHECK(got == val, "%s: record has 0x%x, struct has 0x%x", f->name, got,
	      val);
}

static void check_bytes(const struct field *f, const u8 *buf, const void *p)
{
	CHECK(bytes_eq(buf, f, p), "%s differs", f->name);
}

static void check_path_fields(const u8 *buf, const struct sa_path *r)
{
	const struct field *f = path_fields;

	check_bytes(&f[PF_SERVICE_ID], buf, r->service_id);
	check_bytes(&f[PF_DGID], buf, r->dgid.raw);
	check_bytes(&f[PF_SGID], buf, r->sgid.raw);
	check_field(&f[PF_DLID], buf, r->dlid);
	check_field(&f[PF_SLID], buf, r->slid);
	check_field(&f[PF_RAW], buf, r->raw_traffic);
	check_field(&f[PF_FLOW], buf, r->flow_label);
	check_field(&f[PF_HOP], buf, r->hop_limit);
	check_field(&f[PF_TCLASS], buf, r->tclass);
	check_field(&f[PF_REVERSIBLE], buf, r->reversible);
	check_field(&f[PF_NUMB], buf, r->numb_path);
	check_field(&f[PF_PKEY], buf, r->pkey);
	check_field(&f[PF_QOS], buf, r->qos_class);
	check_field(&f[PF_SL], buf, r->sl);
	check_field(&f[PF_MTU_SEL], buf, r->mtu.sel);
	check_field(&f[PF_MTU], buf, r->mtu.val);
	check_field(&f[PF_RATE_SEL], buf, r->rate.sel);
	check_field(&f[PF_RATE], buf, r->rate.val);
	check_field(&f[PF_LIFE_SEL], buf, r->life.sel);
	check_field(&f[PF_LIFE], buf, r->life.val);
	check_field(&f[PF_PREFERENCE], buf, r->preference);
}

static void check_mcm_fields(const u8 *buf, const struct sa_mcm *r)
{
	const struct field *f = mcm_fields;

	check_bytes(&f[MF_MGID], buf, r->mgid.raw);
	check_bytes(&f[MF_PORT_GID], buf, r->port_gid.raw);
	check_field(&f[MF_QKEY], buf, r->qkey);
	check_field(&f[MF_MLID], buf, r->mlid);
	check_field(&f[MF_MTU_SEL], buf, r->mtu.sel);
	check_field(&f[MF_MTU], buf, r->mtu.val);
	check_field(&f[MF_TCLASS], buf, r->tclass);
	check_field(&f[MF_PKEY], buf, r->pkey);
	check_field(&f[MF_RATE_SEL], buf, r->rate.sel);
	check_field(&f[MF_RATE], buf, r->rate.val);
	check_field(&f[MF_LIFE_SEL], buf, r->life.sel);
	check_field(&f[MF_LIFE], buf, r->life.val);
	check_field(&f[MF_SL], buf, r->sl);
	check_field(&f[MF_FLOW], buf, r->flow_label);
	check_field(&f[MF_HOP], buf, r->hop_limit);
	check_field(&f[MF_SCOPE], buf, r->scope);
	check_field(&f[MF_JOIN], buf, r->join_state);
	check_field(&f[MF_PROXY], buf, r->proxy_join);
}

#define CANARY 0xa5

/*
 * Decode random records: every field must read what the IBA offsets say.
 * Encode them back: the same bytes, reserved bits zero, nothing written
 * past the record.
 */
static void test_path(void)
{
	u8 in[PR_SIZE], out[PR_SIZE + 16];
	struct sa_path r;
	int round, i;

	for (round = 0; round < 200; round++) {
		for (i = 0; i < PR_SIZE; i++)
			in[i] = rnd();
		sa_path_decode(in, &r);
		check_path_fields(in, &r);

		memset(out, CANARY, sizeof(out));
		sa_path_encode(&r, out);
		bits_clear(in, 353, 3);
		bits_clear(in, 464, 48);
		CHECK(!memcmp(in, out, PR_SIZE), "PathRecord round trip");
		for (i = PR_SIZE; i < (int)sizeof(out); i++)
			CHECK(out[i] == CANARY, "PathRecord overrun at %d", i);
	}
}

static void test_mcm(void)
{
	u8 in[MCM_SIZE], out[MCM_STRIDE + 16];
	struct sa_mcm r;
	int round, i;

	for (round = 0; round < 200; round++) {
		for (i = 0; i < MCM_SIZE; i++)
			in[i] = rnd();
		sa_mcm_decode(in, &r);
		check_mcm_fields(in, &r);

		memset(out, CANARY, sizeof(out));
		sa_mcm_encode(&r, out);
		bits_clear(in, 393, 23);
		CHECK(!memcmp(in, out, MCM_SIZE), "MCMemberRecord round trip");
		for (i = MCM_SIZE; i < (int)sizeof(out); i++)
			CHECK(out[i] == CANARY, "MCMemberRecord overrun at %d", i);
	}
}

/* Fields set one at a time land where the IBA puts them, and only there. */
static void test_mcm_single_fields(void)
{
	u8 out[MCM_SIZE], zero[MCM_SIZE] = { 0 };
	struct sa_mcm r;

	memset(&r, 0, sizeof(r));
	r.sl = 0xf;
	sa_mcm_encode(&r, out);
	CHECK(out[44] == 0xf0 && !memcmp(out + 45, zero, 7) &&
	      !memcmp(out, zero, 44), "SL is the top nibble of byte 44");

	memset(&r, 0, sizeof(r));
	r.join_state = 0x8;
	r.scope = 0x2;
	sa_mcm_encode(&r, out);
	CHECK(out[48] == 0x28, "Scope 2, JoinState 8 make 0x28, not 0x%02x",
	      out[48]);

	memset(&r, 0, sizeof(r));
	r.flow_label = 0xfffff;
	sa_mcm_encode(&r, out);
	CHECK(get_unaligned_be32(out + 44) == 0x0fffff00,
	      "FlowLabel fills bits 4-23 of word 11");

	memset(&r, 0, sizeof(r));
	r.mtu.sel = 2;	/* "exactly" */
	r.mtu.val = 4;
	sa_mcm_encode(&r, out);
	CHECK(out[38] == 0x84, "MTU exactly 2048 is 0x84, not 0x%02x", out[38]);
}

static void test_path_single_fields(void)
{
	u8 out[PR_SIZE];
	struct sa_path r;

	memset(&r, 0, sizeof(r));
	r.reversible = true;
	r.numb_path = 1;
	r.sl = 0x3;
	r.hop_limit = 0x40;
	sa_path_encode(&r, out);
	CHECK(out[49] == 0x81, "Reversible and NumbPath 1 make 0x81");
	CHECK(out[52] == 0 && out[53] == 0x03, "SL is the low nibble of 53");
	CHECK(out[47] == 0x40 && out[44] == 0, "HopLimit is byte 47");

	memset(&r, 0, sizeof(r));
	r.raw_traffic = true;
	sa_path_encode(&r, out);
	CHECK(out[44] == 0x80, "RawTraffic is the top bit of byte 44");
}

static void test_selectors(void)
{
	unsigned int b;

	for (b = 0; b < 256; b++) {
		struct sa_sel s = sa_sel_get(b);

		CHECK(s.sel == b >> 6 && s.val == (b & 0x3f) &&
		      sa_sel_put(s) == b, "selector byte 0x%02x", b);
	}
}

static void test_ipoib_mgid(void)
{
	static const u8 want[16] = {
		0xff, 0x12, 0x40, 0x1b, 0x80, 0x01, 0, 0,
		0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
	};
	union ib_gid mgid;

	memset(&mgid, 0x5a, sizeof(mgid));
	sa_ipoib_bcast_mgid(&mgid, 0x8001);
	CHECK(!memcmp(mgid.raw, want, 16), "ff12:401b:8001::ffff:ffff");
	sa_ipoib_bcast_mgid(&mgid, 0xffff);
	CHECK(mgid.raw[4] == 0xff && mgid.raw[5] == 0xff &&
	      mgid.raw[1] == 0x12, "the default partition's MGID");
}

int main(void)
{
	RUN(test_path);
	RUN(test_mcm);
	RUN(test_mcm_single_fields);
	RUN(test_path_single_fields);
	RUN(test_selectors);
	RUN(test_ipoib_mgid);
	return unit_report();
}
