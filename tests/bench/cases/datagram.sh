#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark, datagram mode on a 2048-byte fabric (MTU 2044): TCP with 1
# and 4 streams and its CPU cost, 4 streams over two send queues (ours;
# the in-tree driver has one), 64-byte UDP rate, from one sender, then
# from one on each CPU over one send queue and (ours) over two, UDP
# request/response latency, one stream again with completion events as
# interrupts; ours and the in-tree driver in turn, request/response on
# both at once, then the references: a veth pair, and the fabric's own
# rate (sibperf) with no IPoIB on top.
#
#   o1 ours(sib0) -- o2 ours(sib1)      i1 in-tree(sib2) -- i2 in-tree(sib3)
#   v1 veth ------- v2 veth
#
# Prints BENCH lines (tests/lib/bench.sh); tests/bench/report tabulates.
# timeout: 900
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../../lib/bench.sh
. "$TESTS_LIB/bench.sh"

fabric_up devices=4 ports=1
bench_hosts
veth_pair v1 10.63.0.1 v2 10.63.0.2
modprobe sibperf

for r in $(seq "$BENCH_ROUNDS"); do
	step "round $r of $BENCH_ROUNDS"
	bench_each "$r" 2k bench_tcp bench_tcp_tss bench_udp bench_udp_tss bench_rr \
		bench_tcp_irq
	bench_rr_both 2k "$r"
	bench_tcp veth ref "$r" v2 10.63.0.2 v1
	bench_udp veth ref "$r" v2 10.63.0.2 v1
	bench_rr veth ref "$r" v2 10.63.0.2 v1

	# The fabric alone: sib0 port 1 sends to sib1 port 1.
	for job in "ud 2048" "ud 64" "rc 65520"; do
		read -r qt size <<<"$job"
		if echo "$job 2000" >/sys/kernel/debug/sibperf/run; then
			out=$(cat /sys/kernel/debug/sibperf/run)
		else
			out=
		fi
		echo "sibperf: $out" >&2
		rate=$(echo "$out" | sed -n 's/.*msgs_per_s=\([0-9]*\).*/\1/p')
		bps=$(echo "$out" | sed -n 's/.*bytes_per_s=\([0-9]*\).*/\1/p')
		if [ "$size" = 64 ]; then
			result "fabric_$qt$size" ref "$r" "$rate"
		else
			result "fabric_$qt$size" ref "$r" "$([ -z "$bps" ] || echo $((bps * 8 / 1000000)))"
		fi
	done
done

# For reading a surprising figure: what the fabric dropped, per port.
for d in sib0 sib1 sib2 sib3; do
	sib_counters "$d" 1
done
for ns in o1 o2 i1 i2; do
	ip -n "$ns" -s link
done
pass
