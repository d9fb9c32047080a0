#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test bed carries what kernel storage protocols do over an rdma_cm
# connection, with Debian's in-tree ib_ipoib resolving the addresses.
# The rdmaprobe module connects from h1 to a listener on h2; h2 registers
# a 4-page region with fast registration (ib_alloc_mr, ib_map_mr_sg,
# IB_WR_REG_MR) and sends its address and rkey in its reply; h1 RDMA
# WRITEs a pattern there, RDMA READs it back and compares; h2 compares the
# region with what h1 says it wrote, invalidates the key (IB_WR_LOCAL_INV)
# and answers.  The fabric counts the WRITE and the READ at h2's port.
# Then a WRITE with a key the region does not have, and one with the key
# after h2 invalidated it: each ends as a remote access error on h1, its
# QP in the error state, and the fabric counts the violation.  Nothing is
# left behind (QPs, CQs, PDs, MRs).
#
#   h1: ib0 10.91.0.1  == RDMA WRITE, READ ==>  h2: ib1 10.91.0.2:7000, region
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/rdma.sh
. "$TESTS_LIB/rdma.sh"

# responder COUNTER: h2's port's count of what it answered.
responder() { sib_counter sib1 1 "$1"; }

# refused_write RKEY: a connect whose WRITE with that key must fail.
refused_write() {
	local viol
	viol=$(responder rkey_violations)
	rp_refused h1 "connect 10.91.0.2:7000 rdma rkey=$1"
	rp_has "^cli#[0-9]+ RDMA WRITE of 16384 bytes at 0x[0-9a-f]+ rkey 0x[0-9a-f]+: remote access error \\([0-9]+\\), qp state ERR"
	rp_has "^cli#[0-9]+ failed: -121"
	assert_eq "$(responder rkey_violations)" $((viol + 1)) "rkey violations h2's port counted"
}

fabric_up devices=2 ports=1
intree_up
rp_up
two_hosts ib_ipoib 10.91.0
echo "h2: $b: $(driver_of h2 "$b")"
before0=$(verbs sib0)
before1=$(verbs sib1)
echo "verbs objects: sib0 $before0, sib1 $before1"
rp_ok h2 "listen 10.91.0.2:7000"

step "RDMA WRITE and READ through a fast-registered region"
echo 0 >"$SIB/sib1/port1/counters"
rp_ok h1 "connect 10.91.0.2:7000 rdma"
rp_exchanged h2 "$b"
rp_has "^srv#[0-9]+ registered 16384 bytes \\(4 pages\\) at 0x[0-9a-f]+ rkey 0x[0-9a-f]+"
rp_has "^cli#[0-9]+ RDMA WRITE 16384 bytes crc32 0x[0-9a-f]+ to"
rp_has "^cli#[0-9]+ RDMA READ 16384 bytes crc32 0x[0-9a-f]+ back, matches what was written"
rp_has "^srv#[0-9]+ region holds 16384 bytes crc32 0x[0-9a-f]+, matches what the peer wrote"
rp_has "^srv#[0-9]+ LOCAL_INV of rkey 0x[0-9a-f]+ done"
rp_has "^cli#[0-9]+ peer checked its region: crc32 0x[0-9a-f]+, matches"
written=$(sed -n 's/.*RDMA WRITE 16384 bytes crc32 \(0x[0-9a-f]*\).*/\1/p' <<<"$RP_OUT")
assert_eq "$(sed -n 's/.*RDMA READ 16384 bytes crc32 \(0x[0-9a-f]*\).*/\1/p' <<<"$RP_OUT")" "$written" \
	"CRC-32 of what was read back"
assert_eq "$(sed -n 's/.*region holds 16384 bytes crc32 \(0x[0-9a-f]*\).*/\1/p' <<<"$RP_OUT")" "$written" \
	"CRC-32 of what h2's region holds"
sib_counters sib1 1 | grep -E "rdma_|rkey_|remote_inv"
assert_eq "$(responder rdma_writes)" 1 "RDMA WRITEs h2's port answered"
assert_eq "$(responder rdma_write_bytes)" 16384 "bytes written"
assert_eq "$(responder rdma_reads)" 1 "RDMA READs h2's port answered"
assert_eq "$(responder rdma_read_bytes)" 16384 "bytes read"

step "a key the region does not have"
refused_write bad

step "the key after h2 invalidated it"
refused_write stale
rp_has "^srv#[0-9]+ LOCAL_INV of rkey 0x[0-9a-f]+ done"
rp_has "^cli#[0-9]+ peer checked its region: crc32 0x[0-9a-f]+, matches"

step "nothing left behind"
rp_ok h2 "unlisten 10.91.0.2:7000"
wait_for 10 verbs_are sib0 "$before0" || fail "sib0 verbs objects: $(verbs sib0), were $before0"
wait_for 10 verbs_are sib1 "$before1" || fail "sib1 verbs objects: $(verbs sib1), were $before1"
echo "verbs objects: sib0 $(verbs sib0), sib1 $(verbs sib1)"
pass
