#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The interface goes down while it is accepting connections, over and
# over.  cmprobe sends good REQs to h2 back to back; each time h2 shows a
# connection being accepted, its link goes down, then up again.
# A down that lands in the middle of an accept ends that connection while
# its CM handler still runs: its cm_id must be destroyed once, by the
# connection's teardown (never by the CM as well), and the connection
# freed only after every path that found it is done with it.  The kernel
# log must stay clean (a refcount underflow or a use after free fails the
# case), and at least one accept must have been cut short, or the case
# proved nothing.  The fabric makes each connected QP's move to RTR take
# 2 s (sib rtr_delay_ms), longer than a down takes to reach connected mode
# (it leaves the groups first), so that the down lands in the accept; the
# probe's path comes from the SA, whose packet lifetime makes the probe
# wait that long for the REP.  No SRQ (sib srq=0), so that the accept has
# a receive ring to fill and free too.  Then h1 and h2 still ping over a
# connection.
#
#   cmprobe (sib0) --REQ, REQ, REQ...--> h2: ib (sib1), down and up
#   h1: ib (sib0) 10.16.0.1                  10.16.0.2
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

PROBE=/sys/kernel/debug/cmprobe/probe
ROUNDS=10
stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
cut_short() { dmesg | grep -c 'could not set up a QP' || true; }
# shellcheck disable=SC2317 # called through wait_for
accepting() { grep -q ' connecting passive ' "$cm"; }

fabric_up devices=2 ports=1 srq=0
ours_up
two_hosts --connected ib_ipoib 10.16.0
modprobe cmprobe
qpn=$(ip netns exec h2 cat "/sys/class/net/$b/address" | cut -d: -f2-4 | tr -d :)
dgid=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)
cm=/sys/kernel/debug/ib_ipoib/$b/cm

step "REQs back to back while h2 goes down and up $ROUNDS times"
echo 2000 >"$SIB/rtr_delay_ms"
(
	while :; do
		echo "dev=sib0 dgid=$dgid qpn=0x$qpn pdata=good" >"$PROBE" || true
	done
) &
prober=$!
t0=$SECONDS
for i in $(seq "$ROUNDS"); do
	wait_for 20 accepting || { kill "$prober"; fail "round $i: no accept seen on h2 in 20 s"; }
	ip -n h2 link set "$b" down
	ip -n h2 link set "$b" up
done
kill "$prober"
wait "$prober" || true
echo 0 >"$SIB/rtr_delay_ms"
echo "$ROUNDS rounds in $((SECONDS - t0)) s; accepts cut short by a down: $(cut_short)"
on h2 ethtool -S "$b" | grep -E 'cm_(reqs_rec|rejects_sent|established|connections)'
assert_ge "$(cut_short)" 1 "accepts a down cut short"

step "h1 <-> h2 over a connection afterwards"
wait_carrier h2 "$b"
t1=$(stat_of h1 "$a" cm_tx_packets)
assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 10.16.0.2
assert_ge "$(( $(stat_of h1 "$a" cm_tx_packets) - t1 ))" 3 "h1 sent over a connection"
pass
