#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connections come and go without leaving a trace: idle ones are reaped
# (cm_idle_timeout=3) and made again on the next packet; taking the
# interface down under iperf3 sends a DREQ the peer honours; unloading the
# module under iperf3 in connected mode leaves no oops, WARN or leak
# message (the harness checks the kernel log), and a reload works.
# Under the compatible policy: a connection each way, counted below.
#
#   h1: ib (sib0) 10.11.0.1  ===RC===  h2: ib (sib1) 10.11.0.2
#
# timeout: 360
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
conns() { stat_of "$1" "$2" cm_connections; }
# shellcheck disable=SC2317 # called through wait_for
no_conns() { [ "$(conns h1 "$a")" = 0 ] && [ "$(conns h2 "$b")" = 0 ]; }
# shellcheck disable=SC2317 # called through wait_for
established_again() { [ "$(stat_of h1 "$a" cm_established)" -ge 4 ]; }

# dump: what both ends say of their connections, for a failure's report.
dump() {
	cat "/sys/kernel/debug/ib_ipoib/$a/cm" "/sys/kernel/debug/ib_ipoib/$b/cm" || true
	on h1 ethtool -S "$a" | grep -E 'cm_|path' || true
	on h2 ethtool -S "$b" | grep -E 'cm_|path' || true
}

fabric_up devices=2 ports=1

hosts_up() {
	ours_up cm_idle_timeout=3 cm_policy=compatible "$@"
	two_hosts --connected ib_ipoib 10.11.0
}

iperf_bg() {
	iperf_server h2 || fail "iperf3 server did not start"
	ip netns exec h1 iperf3 -c 10.11.0.2 -t 30 >/tmp/iperf.log 2>&1 &
	client=$!
	wait_for 15 bash -c "[ \$(ip netns exec h1 ethtool -S $a | awk '\$1 == \"cm_tx_packets:\" { print \$2 }') -ge 500 ]" ||
		fail "iperf3 did not get going over the connection"
}

iperf_stop() {
	kill "$client" 2>/dev/null || true
	wait "$client" || true
	tail -n 3 /tmp/iperf.log
	iperf_server_stop h2 || true
}

hosts_up
step "idle connections are reaped, and come back"
assert on h1 ping -c 2 -i 0.2 -W 3 -s 60000 10.11.0.2
assert_eq "$(conns h1 "$a")" 2 "h1 connections after the ping"
wait_for 15 no_conns || fail "connections not reaped: h1 $(conns h1 "$a"), h2 $(conns h2 "$b")"
on h1 ethtool -S "$a" | grep -E 'cm_(conn|estab|reaped|disc)'
assert_ge "$(( $(stat_of h1 "$a" cm_reaped) + $(stat_of h2 "$b" cm_reaped) ))" 1 "reaped"
assert on h1 ping -c 2 -i 0.2 -W 3 -s 60000 10.11.0.2
# h1's passive side counts itself established on the RTU or the first
# data, which may come after the ping's last reply.
wait_for 20 established_again || {
	dump
	fail "connections made anew: h1 cm_established $(stat_of h1 "$a" cm_established), expected >= 4"
}

step "interface down and up under iperf3"
iperf_bg
d0=$(stat_of h2 "$b" cm_disconnects)
ip -n h1 link set "$a" down
wait_for 20 bash -c "[ \$(ip netns exec h2 ethtool -S $b | awk '\$1 == \"cm_connections:\" { print \$2 }') = 0 ]" ||
	{ dump; fail "h2 kept its connections after h1 went down"; }
assert_ge "$(( $(stat_of h2 "$b" cm_disconnects) - d0 ))" 1 "h2 got a DREQ"
iperf_stop
ip -n h1 link set "$a" up
wait_carrier h1 "$a"
# A TCP retransmit from the killed client may have started ARP for h2
# while the carrier was still off: that request went nowhere, the entry
# waits a second for its retry, and three 60 kB pings queued behind it
# overflow the kernel's unresolved queue (unres_qlen_bytes). Start ARP
# afresh now that the carrier is on.
ip -n h1 neigh flush dev "$a"
# h2's last sends to h1 failed and it backs off from h1; h1's REQ tells it
# h1 is back, so no reply is lost (too big for UD) to the back-off.
got=$(ip netns exec h1 ping -c 3 -i 0.2 -W 3 -s 60000 10.11.0.2 |
	sed -n 's/.* \([0-9]*\) received.*/\1/p')
[ "${got:-0}" = 3 ] || { dump; fail "pings answered after up: ${got:-0} of 3"; }

step "rmmod under iperf3 in connected mode"
iperf_bg
rmmod ib_ipoib || fail "rmmod failed under traffic"
iperf_stop
ip netns del h1
ip netns del h2
step "reload"
hosts_up
assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 10.11.0.2
pass
