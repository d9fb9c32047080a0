#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Campaign: port flaps under TCP, in each mode.  sib1's port goes down for
# a random 0.1-3 s, FLAPS times, while iperf3 streams from h1 to h2 over our
# driver; after each flap, the time until h1 pings h2 again.
#
#   h1: ib (sib0) 10.14.0.1  ===  h2: ib (sib1) 10.14.0.2, ours
#
# Ends with a SOAK line per mode: attempts, recovered, time to recover
# (median, worst), the TCP stream's bytes sent and received, and whether
# the fabric's verbs objects came back to where they were.  soak.scale=N
# (or soak.flaps=N) on the kernel command line: N x 10 flaps per mode
# (make soak: 100).
#
# timeout: 3600
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

FLAPS=$(soak_knob flaps $((10 * SOAK_SCALE)))
RANDOM=4391

fabric_up devices=2 ports=1
ours_up
two_hosts ib_ipoib 10.14.0
soak_baseline

for mode in datagram connected; do
	step "$mode mode: $FLAPS flaps of sib1's port under TCP"
	ip -n h1 link set "$a" type ipoib mode "$mode"
	ip -n h2 link set "$b" type ipoib mode "$mode"
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
	wait_for 30 ip netns exec h1 ping -c 1 -W 1 10.14.0.2 || fail "no ping before the flaps"
	soak_tcp_start h2 10.14.0.2 h1
	for i in $(seq "$FLAPS"); do
		echo down >"$SIB/sib1/port1/state"
		sleep "$((RANDOM % 30 / 10)).$((RANDOM % 10))"
		sleep 0.1
		echo up >"$SIB/sib1/port1/state"
		soak_recover "flap $i" "$(soak_now)" h1 10.14.0.2
	done
	soak_tcp_stop
	# Compared in datagram mode, where the baseline was taken.
	ip -n h1 link set "$a" type ipoib mode datagram
	ip -n h2 link set "$b" type ipoib mode datagram
	soak_report "portflap-$mode"
done
soak_end
