#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Peers whose connection requests never arrive: the fabric holds every CM
# REQ (sib cm_hold=req), as when a peer's connection manager is silent.
# Packets wait for a connection no longer than IPOIB_CM_CONNECT_TIMEOUT
# (10 s): then the try is given up (cm_connect_timeouts), what waited
# goes over UD, and so does what follows, while later tries go on in the
# background.  Pings both ways get through over UD within the bound; once
# the fabric lets REQs through, a connection is made and the pings move
# onto it.  (The in-tree driver has no such bound: its packets wait for
# the CM's whole retry budget, about a minute.)
#
#   h1: ib (sib0) 10.13.0.1  --REQ-->| held |<--REQ--  h2: ib (sib1) 10.13.0.2
#          \------------------- UD meanwhile ------------------/
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
icmp() { snmp_stat "$1" Icmp "$2"; }
# shellcheck disable=SC2317 # called through wait_for
replies_at_least() { [ "$(icmp "$1" InEchoReps)" -ge "$2" ]; }
# shellcheck disable=SC2317 # called through wait_for
stat_at_least() { [ "$(stat_of "$1" "$2" "$3")" -ge "$4" ]; }
# shellcheck disable=SC2317 # called through wait_for
replies_both_ways() { [ "$(icmp h1 InEchoReps)" -gt 0 ] && [ "$(icmp h2 InEchoReps)" -gt 0 ]; }
# shellcheck disable=SC2317 # called through wait_for
connected_both() {
	[ "$(stat_of h1 "$a" cm_connections)" -ge 1 ] && [ "$(stat_of h2 "$b" cm_connections)" -ge 1 ]
}
dump() {
	cat "/sys/kernel/debug/ib_ipoib/$a/cm" "/sys/kernel/debug/ib_ipoib/$b/cm" || true
	on h1 ethtool -S "$a" | grep -E 'cm_|tx_packets' || true
	on h2 ethtool -S "$b" | grep -E 'cm_|tx_packets' || true
	echo "CM MADs held by the fabric: $(cat "$SIB/cm_hold")"
}

fabric_up devices=2 ports=1
ours_up
two_hosts --connected ib_ipoib 10.13.0

step "REQs held by the fabric: pings both ways over UD within the bound"
echo req >"$SIB/cm_hold"
t0=$SECONDS
ip netns exec h1 ping -i 0.5 -W 1 10.13.0.2 >/tmp/p1 2>&1 &
p1=$!
ip netns exec h2 ping -i 0.5 -W 1 10.13.0.1 >/tmp/p2 2>&1 &
p2=$!
# 10 s of waiting for the connection, then the first UD sends; the reaper
# looks once a second.
wait_for 15 replies_both_ways || { dump; fail "no echo reply either way within 15 s"; }
echo "first replies both ways after $((SECONDS - t0)) s"
assert_ge "$(stat_of h1 "$a" cm_connect_timeouts)" 1 "h1 cm_connect_timeouts"
assert_ge "$(stat_of h2 "$b" cm_connect_timeouts)" 1 "h2 cm_connect_timeouts"
assert_eq "$(stat_of h1 "$a" cm_tx_packets)" 0 "h1 sends over a connection"
assert_eq "$(stat_of h1 "$a" cm_connections)" 0 "h1 connections up"
# Later tries (after the backoff) hold nothing: replies keep coming.
r1=$(icmp h1 InEchoReps)
wait_for 10 replies_at_least h1 $((r1 + 8)) ||
	{ dump; fail "h1: fewer than 8 more echo replies while later tries ran"; }
on h1 ethtool -S "$a" | grep -E 'cm_(connect_timeouts|fallbacks|reqs_sent|connections)'
echo "h1 echo replies: $r1 at the first, $(icmp h1 InEchoReps) now"

step "REQs go through again: the pings move onto a connection"
echo 0 >"$SIB/cm_hold"
wait_for 30 connected_both || { dump; fail "no connection once REQs went through"; }
t1=$(stat_of h1 "$a" cm_tx_packets)
wait_for 10 stat_at_least h1 "$a" cm_tx_packets $((t1 + 3)) ||
	{ dump; fail "h1's pings did not go over the connection"; }
kill "$p1" "$p2"
wait "$p1" "$p2" || true
tail -n 2 /tmp/p1 /tmp/p2
cat "/sys/kernel/debug/ib_ipoib/$a/cm"
pass
