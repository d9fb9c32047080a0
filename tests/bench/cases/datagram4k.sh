#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark, datagram mode on a 4096-byte fabric (sib mtu=4096, so MTU
# 4092): TCP with 1 and 4 streams and its CPU cost, ours and the in-tree
# driver in turn.  A case of its own because the fabric's MTU is a load
# parameter of sib: the harness reloads it between cases.
#
#   o1 ours(sib0) -- o2 ours(sib1)      i1 in-tree(sib2) -- i2 in-tree(sib3)
#
# timeout: 600
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../../lib/bench.sh
. "$TESTS_LIB/bench.sh"

fabric_up devices=4 ports=1 mtu=4096
# Both drivers take 4092 from the broadcast group; say so if one did not.
bench_hosts "" 4092

for r in $(seq "$BENCH_ROUNDS"); do
	step "round $r of $BENCH_ROUNDS"
	bench_each "$r" 4k bench_tcp
done
pass
