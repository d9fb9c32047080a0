#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unloading our driver while iperf3 runs across it, with a child too: the
# module goes, the kernel stays quiet, and a reload brings working
# interfaces back.
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=2 ports=1 pkeys=0xffff,0x8001
ours_up

hosts_up() {
	two_hosts ib_ipoib 10.5.0
	assert on h1 ping -c 2 -i 0.2 -W 2 10.5.0.2
}

for round in 1 2; do
	step "round $round: traffic, then rmmod under it"
	hosts_up
	ip -n h1 link add link "$a" name "$a.8001" type ipoib pkey 0x8001
	iperf_server h2 || fail "iperf3 server did not start"
	ip netns exec h1 iperf3 -c 10.5.0.2 -t 30 >/tmp/iperf.log 2>&1 &
	client=$!
	wait_for 10 bash -c "[ \$(ip netns exec h1 cat /sys/class/net/$a/statistics/tx_bytes) -ge 2000000 ]" ||
		fail "iperf3 did not get going"
	rmmod ib_ipoib || fail "rmmod failed under traffic"
	# Its connection is gone for good: iperf3 would wait on it forever.
	kill "$client" 2>/dev/null || true
	wait "$client" || true
	tail -n 3 /tmp/iperf.log
	iperf_server_stop h2 || true
	if { ip -o link; ip -n h1 -o link; ip -n h2 -o link; } | grep -q link/infiniband; then
		fail "interfaces left after rmmod"
	fi
	ip netns del h1
	ip netns del h2
	step "round $round: reload"
	ours_up
done
hosts_up
pass
