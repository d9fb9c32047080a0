#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark, connected mode (RC through ib_cm), MTU 65520: TCP with 1 and
# 4 streams and its CPU cost, UDP request/response latency, one stream
# again with completion events as interrupts; ours and the in-tree driver
# in turn, then request/response on both at once, then RNR NAKs in a
# burst to interfaces just brought up.  A driver that refuses
# connected mode gets n/a.
#
#   o1 ours(sib0) ==RC== o2 ours(sib1)    i1 in-tree(sib2) ==RC== i2 in-tree(sib3)
#
# timeout: 600
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../../lib/bench.sh
. "$TESTS_LIB/bench.sh"

fabric_up devices=4 ports=1
bench_hosts connected 65520

for r in $(seq "$BENCH_ROUNDS"); do
	step "round $r of $BENCH_ROUNDS"
	bench_each "$r" cm bench_tcp bench_rr bench_tcp_irq
	bench_rr_both cm "$r"
	bench_each "$r" cm bench_rnr
done
pass
