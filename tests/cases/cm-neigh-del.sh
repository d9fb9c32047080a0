#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's neighbour for a peer is deleted (`ip neigh del`) while a
# connection to that peer is still being made and a packet waits for it.
# Our driver ends connections to an address the kernel has given up on
# (cm_peers_lost); the waiting packet goes on and makes a new connection.
# Ending that one too, and the next, went round without end (a new
# connection per turn, until the VM ran out of memory in cm-lifecycle):
# only the connections made before the deletion end.  The fabric holds REQs
# (sib cm_hold=req) so that the connection stays half made.  (The in-tree
# driver does not end connections when a neighbour goes.)
#
#   h1: ib (sib0) 10.27.0.1  --REQ-->| held |  h2: ib (sib1) 10.27.0.2
#       ping waiting; ip neigh del 10.27.0.2
#
# timeout: 120
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
# shellcheck disable=SC2317 # called through wait_for
stat_at_least() { [ "$(stat_of h1 "$a" "$1")" -ge "$2" ]; }
# shellcheck disable=SC2317 # called through wait_for
pid_gone() { ! kill -0 "$1" 2>/dev/null; }
dump() {
	cat "/sys/kernel/debug/ib_ipoib/$a/cm" || true
	on h1 ethtool -S "$a" | grep -E 'cm_' || true
}

fabric_up devices=2 ports=1
ours_up
two_hosts --connected ib_ipoib 10.27.0

step "a ping waits for a connection whose REQ the fabric holds"
echo req >"$SIB/cm_hold"
# Its wait is the case's own bound, scaled as wait_for's are (the debug
# kernel's run took 23 s to get here).
ip netns exec h1 ping -c 1 -W $((30 * ${TIMEOUT_SCALE:-1})) 10.27.0.2 >/tmp/ping 2>&1 &
pinger=$!
wait_for 10 stat_at_least cm_reqs_sent 1 || { dump; fail "h1 sent no REQ"; }
dump

step "the kernel's neighbour for h2 is deleted"
t0=${EPOCHREALTIME/./}
timeout 20 ip -n h1 neigh del 10.27.0.2 dev "$a" || fail "ip neigh del did not return (exit $?)"
echo "ip neigh del returned in $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
dump
# The kernel says so twice (at the update and at the release), and each
# time the waiting ping makes at most one connection anew.
lost=$(stat_of h1 "$a" cm_peers_lost)
reqs=$(stat_of h1 "$a" cm_reqs_sent)
assert_ge "$lost" 1 "peers lost"
[ "$reqs" -le $((1 + lost)) ] || fail "h1 sent $reqs REQs for one waiting ping ($lost peers lost)"

step "REQs go through: the ping is answered"
echo 0 >"$SIB/cm_hold"
wait_for 35 pid_gone "$pinger" || { dump; fail "the ping still waits"; }
wait "$pinger" || { cat /tmp/ping; dump; fail "the waiting ping got no reply"; }
tail -n 2 /tmp/ping
dump
echo "REQs sent by h1: $(stat_of h1 "$a" cm_reqs_sent)"
pass
