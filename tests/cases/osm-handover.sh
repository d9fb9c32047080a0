#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What OpenSM does to a running subnet, with both drivers on it: ours
# (ipoib_alt) on sib0, the in-tree one on sib1.  OpenSM restarted forgets
# every multicast group and asks every port to reregister: both drivers
# join again and traffic recovers.  A second OpenSM of higher priority
# started on sib1 takes the subnet over from the first (which stands by)
# while TCP runs: every port follows the new SM and traffic recovers
# within 30 s, a TCP stream surviving whole (every byte sent arrives).
#
#   h1: ours (sib0, OpenSM sm0, priority 1)  ====  h2: in-tree (sib1, sm1, priority 15)
#   10.40.0.1                                      10.40.0.2
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

BCAST=ff12:401b:ffff::ffff:ffff
lid_of() { echo $(($(cat "/sys/class/infiniband/$1/ports/1/lid"))); }
# shellcheck disable=SC2317 # called by ports_follow
sm_lid_of() { echo $(($(cat "/sys/class/infiniband/$1/ports/1/sm_lid"))); }
# shellcheck disable=SC2317 # called by wait_for
pings() { ip netns exec "$1" ping -c 1 -W 1 "$2"; }
# received: bytes h2's interface has received so far.
received() { netdev_stat "$b" rx_bytes h2; }
# shellcheck disable=SC2317 # called by wait_for
received_past() { [ "$(received)" -ge "$1" ]; }
# shellcheck disable=SC2317 # called by wait_for
ports_follow() { [ "$(sm_lid_of sib0)" = "$1" ] && [ "$(sm_lid_of sib1)" = "$1" ]; }
# recovers WHY START: both ways ping again within 30 s of START (SECONDS).
recovers() {
	wait_for 30 pings h1 10.40.0.2 || fail "h1 does not reach h2 after $1"
	wait_for 30 pings h2 10.40.0.1 || fail "h2 does not reach h1 after $1"
	echo "traffic back $((SECONDS - $2)) s after $1"
	[ $((SECONDS - $2)) -le $((30 * ${TIMEOUT_SCALE:-1})) ] ||
		fail "traffic took over 30 s to recover after $1"
}

modprobe sib sm=external devices=2 ports=1
opensm_up --name sm0 -p 1 -s 2
lid0=$(lid_of sib0)
lid1=$(lid_of sib1)
alt_up
intree_up
a=$(wait_iface ipoib_alt sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
ib_host h1 "$a" 10.40.0.1/24
ib_host h2 "$b" 10.40.0.2/24
wait_carrier h1 "$a"
wait_carrier h2 "$b"
assert on h1 ping -c 3 -i 0.2 -W 2 10.40.0.2
assert sa_has_group "$BCAST"

step "OpenSM restarted: a new SM, no groups; every port reregisters"
t0=$SECONDS
opensm_restart sm0
wait_for 30 sa_has_group "$BCAST" ||
	fail "the broadcast group was not joined again"
recovers "the SM restart" "$t0"

step "a second OpenSM, priority 15 on sib1, takes over under TCP"
soak_tcp_start h2 10.40.0.2 h1
t0=$SECONDS
opensm_up --on sib1 1 --name sm1 -p 15 -s 2
wait_for 30 ports_follow "$lid1" || fail "the ports did not follow the new SM"
out=$(sminfo -C sib1 -P 1 "$lid0")
echo "sm0: $out"
assert grep -q "SMINFO_STANDBY" <<<"$out"
recovers "the handover" "$t0"
assert sa_has_group "$BCAST"
# The stream runs until it has moved on after the handover, then every
# byte sent must have arrived.
from=$(received)
wait_for 30 received_past $((from + 1000000)) ||
	fail "the TCP stream stopped after the handover (h2 received $(($(received) - from)) bytes in 30 s)"
soak_tcp_stop
echo "TCP: sent $soak_tcp_sent bytes, h2 received $soak_tcp_received across the handover"
assert_eq "$soak_tcp_whole" yes "the TCP stream survived the handover"
assert_eq "$soak_tcp_received" "$soak_tcp_sent" "bytes received"
assert_ge "$soak_tcp_received" 1000000 "bytes received"
pass
