#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An SA as a loaded one behaves: it answers every other request BUSY (as
# OpenSM does when its queue is full), answers each one late, or answers
# every other one never.  ib_sa hands a BUSY to its caller as an error, so
# the driver must ask again: the broadcast join and the path lookups are
# tried again and succeed, pings and 4 MiB over TCP (each byte checked) go through.
# Silence is the MAD layer's to retry.  The in-tree driver first (the
# witness), then ours, datagram mode; the SA's faults are counted at each
# port (sib counters sa_busy, sa_delayed, sa_silent).
#
#   h1: sib0 10.14.0.1 --- switch + SA (busy / late / silent) --- h2: sib1 10.14.0.2
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

# The knobs are the built-in SA's; OpenSM has none of them.
SIB_SM=builtin

sa_sum() { echo $(($(sib_counter sib0 1 "$1") + $(sib_counter sib1 1 "$1"))); }

# shellcheck disable=SC2317 # called through wait_for
reaches() { ip netns exec "$1" ping -c 1 -W 1 "$2"; }

# scenario DRIVER KNOB VALUE COUNTER: both links down and up (the joins and
# the paths asked anew) with KNOB at VALUE; traffic goes through and the
# SA's COUNTER shows the fault happened.
scenario() {
	local drv=$1 knob=$2 val=$3 cnt=$4 t0
	step "$drv: $knob=$val"
	echo 0 >"$SIB/sib0/port1/counters"
	echo 0 >"$SIB/sib1/port1/counters"
	ip -n h1 link set "$a" down
	ip -n h2 link set "$b" down
	echo "$val" >"$SIB/$knob"
	t0=$SECONDS
	ip -n h1 neigh flush dev "$a"
	ip -n h2 neigh flush dev "$b"
	ip -n h1 link set "$a" up
	ip -n h2 link set "$b" up
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
	wait_for 20 reaches h1 10.14.0.2 || fail "$drv: h1 never reached h2 with $knob=$val"
	wait_for 20 reaches h2 10.14.0.1 || fail "$drv: h2 never reached h1 with $knob=$val"
	echo "$drv: joined and resolved in $((SECONDS - t0)) s"
	assert on h1 ping -c 3 -i 0.2 -W 2 10.14.0.2
	tcp_exact h2 10.14.0.2 h1 4 "$drv: TCP h1 -> h2 with $knob=$val"
	echo 0 >"$SIB/$knob"
	echo "$drv: SA requests $(sa_sum sa_requests), delayed $(sa_sum sa_delayed), busy $(sa_sum sa_busy), silent $(sa_sum sa_silent)"
	assert_ge "$(sa_sum "$cnt")" 1 "$drv: SA requests with $cnt"
}

# run NAME: the three faults in turn, on ib_ipoib's interfaces (NAME: whose).
run() {
	two_hosts ib_ipoib 10.14.0
	scenario "$1" sa_busy_every 2 sa_busy
	scenario "$1" sa_delay_ms 400 sa_delayed
	scenario "$1" sa_silent_every 2 sa_silent
}

fabric_up devices=2 ports=1

step "witness: the in-tree driver"
intree_up
run in-tree
dmesg | grep -c "multicast join failed" | sed 's/^/in-tree: joins failed (logged): /'
rmmod ib_ipoib
ip netns del h1
ip netns del h2

step "ours"
ours_up
run ours
for h in h1 h2; do
	on "$h" ethtool -S "$([ $h = h1 ] && echo "$a" || echo "$b")" |
		grep -E 'path_(queries|failures)|mcast_join(s|_failures)'
done
fails=$(($(ip netns exec h1 ethtool -S "$a" | awk '$1 == "mcast_join_failures:" || $1 == "path_failures:" { n += $2 } END { print n + 0 }') +
	$(ip netns exec h2 ethtool -S "$b" | awk '$1 == "mcast_join_failures:" || $1 == "path_failures:" { n += $2 } END { print n + 0 }')))
assert_ge "$fails" 1 "SA errors our driver saw and recovered from"
pass
