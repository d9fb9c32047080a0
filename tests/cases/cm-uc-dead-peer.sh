#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A UC peer that stops answering.  Nothing on a UC connection says so (a
# send into the void completes like any other, and keeps the connection
# looking used), so the driver takes the kernel's word for it: ARP's
# probes of the peer's address, sent over UD, go unanswered, the kernel
# marks the neighbour failed, and our connections to that link address
# end (cm_peers_lost).  Idle reaping is off (cm_idle_timeout=0): only that
# can end it.  When the peer answers again, the kernel resolves it anew
# and a new connection carries the pings.  (The in-tree driver has no UC.)
#
#   h1: ib (sib0) 10.14.0.1  ===UC===  h2: ib (sib1) 10.14.0.2
#                                      (then receives nothing: sib rx_stall)
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
cm_file() { echo "/sys/kernel/debug/ib_ipoib/$1/cm"; }
# uc_live IFACE: its live UC connections.
# shellcheck disable=SC2317 # called through wait_for
uc_live() { awk '$4 == "UC" && $8 == "live"' "$(cm_file "$1")" | wc -l; }
# shellcheck disable=SC2317 # called through wait_for
uc_up() { [ "$(uc_live "$a")" -ge 1 ] && [ "$(stat_of h1 "$a" cm_tx_packets)" -ge "$1" ]; }
# shellcheck disable=SC2317 # called through wait_for
uc_gone() { [ "$(uc_live "$a")" = 0 ] && [ "$(stat_of h1 "$a" cm_peers_lost)" -ge 1 ]; }
neigh_state() { ip -n h1 neigh show 10.14.0.2 dev "$a" | awk '{ print $NF }'; }
replies() { snmp_stat h1 Icmp InEchoReps; }
# shellcheck disable=SC2317 # called through wait_for
replies_at_least() { [ "$(replies)" -ge "$1" ]; }
dump() {
	cat "$(cm_file "$a")" "$(cm_file "$b")" || true
	on h1 ethtool -S "$a" | grep -E 'cm_' || true
	ip -n h1 neigh show dev "$a" || true
}

fabric_up devices=2 ports=1
ours_up cm_uc=1 cm_idle_timeout=0
two_hosts --connected ib_ipoib 10.14.0
assert_eq "$(ip netns exec h1 cut -c1-2 "/sys/class/net/$a/address")" c0 "RC and UC flags"
# The kernel's neighbour timers, short: reachable for 1-3 s, then one
# second before probing, two unicast probes half a second apart.
for v in base_reachable_time_ms=2000 delay_first_probe_time=1 retrans_time_ms=500 \
	ucast_solicit=2 mcast_solicit=2; do
	ip netns exec h1 sh -c "echo ${v#*=} >/proc/sys/net/ipv4/neigh/$a/${v%%=*}"
done

step "pings h1 -> h2 over UC"
ip netns exec h1 ping -i 0.2 -W 1 10.14.0.2 >/tmp/ping 2>&1 &
pinger=$!
wait_for 15 uc_up 5 || { dump; fail "no UC connection carrying the pings"; }
cat "$(cm_file "$a")"

step "h2 stops receiving: its connection goes with its address"
sib_stall sib1 1 1
t0=$SECONDS
wait_for 30 uc_gone || { dump; fail "h1 kept its UC connection to a peer that does not answer"; }
echo "connection gone $((SECONDS - t0)) s after h2 stopped; kernel neighbour: $(neigh_state)"
on h1 ethtool -S "$a" | grep -E 'cm_(connections|peers_lost|fallbacks|tx_packets)'

step "h2 answers again: a new connection carries the pings"
r0=$(replies)
sib_stall sib1 1 0
wait_for 30 replies_at_least $((r0 + 5)) || { dump; fail "no echo replies once h2 answered again"; }
t1=$(stat_of h1 "$a" cm_tx_packets)
wait_for 15 uc_up $((t1 + 3)) || { dump; fail "the pings did not move onto a new UC connection"; }
kill "$pinger"
wait "$pinger" || true
tail -n 2 /tmp/ping
cat "$(cm_file "$a")"
pass
