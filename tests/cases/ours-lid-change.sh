#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A peer's LID changes (the SM moved it): only that peer's port gets the
# event.  It flushes and announces itself (gratuitous ARP, unsolicited
# NA); we see the announce arrive from a LID our path does not name, ask
# the SA again (path_lid_moved), and reach the peer at its new LID.  The
# in-tree driver keeps its path and the old LID until some event of its
# own flushes it.  Datagram mode with a TCP stream running across the
# change, then connected mode with 60 kB pings.
#
#   h1: ib (sib0) 10.20.0.1  ===  h2: ib (sib1) 10.20.0.2, LID changed
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
# path_lid NS IFACE: the LID our path to h2's GID names (hex, as debugfs).
path_lid() {
	awk -v g="$gid2" '$1 == g { print $2 }' "/sys/kernel/debug/ib_ipoib/$1/paths"
}
# shellcheck disable=SC2317 # called through wait_for
path_is() { [ "$(path_lid "$a")" = "$(printf '0x%04x' "$1")" ]; }
# shellcheck disable=SC2317 # called through wait_for
reaches() { ip netns exec h1 ping -c 1 -W 1 ${2:+-s "$2"} "$1"; }
# reaches_at LID [SIZE]: a ping gets through and our path names LID.  Only
# traffic makes the driver ask for a path again, so each try pings.
# shellcheck disable=SC2317 # called through wait_for
reaches_at() { reaches 10.20.0.2 "${2:-}" && path_is "$1"; }

fabric_up devices=2 ports=1
ours_up
two_hosts ib_ipoib 10.20.0
gid2=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)
assert on h1 ping -c 2 -i 0.2 -W 2 10.20.0.2
lid=$(cat "$SIB/sib1/port1/lid")
path_is "$lid" || fail "path to h2: LID $(path_lid "$a"), port LID $lid"

# change_lid NEW [SIZE]: h2's port moves to LID NEW; h1's pings of SIZE
# reach it there.  Nothing reaches the old LID, so they got through only
# because h2's announce told us it moved (path_lid_moved).
change_lid() {
	local moved
	moved=$(stat_of h1 "$a" path_lid_moved)
	echo "$1" >"$SIB/sib1/port1/lid"
	assert_eq "$(cat "$SIB/sib1/port1/lid")" "$1" "h2's LID"
	wait_for 30 reaches_at "$1" "${2:-}" ||
		fail "h1 does not reach h2 at LID $1; its path names $(path_lid "$a")"
	assert_ge "$(( $(stat_of h1 "$a" path_lid_moved) - moved ))" 1 "path_lid_moved"
}

step "datagram mode: LID 0x$(printf '%x' "$lid") -> 0x40 under TCP"
soak_stream=/tmp/lid-tcp.json
iperf_server h2 -B 10.20.0.2 || fail "iperf3 server did not start"
ip netns exec h1 iperf3 -c 10.20.0.2 -t 3600 >"$soak_stream" 2>&1 &
tcp=$!
wait_for 10 ip netns exec h1 ss -Htn state established 'dport = :5201' ||
	fail "the TCP stream did not start"
change_lid 64
rx0=$(netdev_stat "$b" rx_bytes h2)
wait_for 20 bash -c "[ \$(ip netns exec h2 cat /sys/class/net/$b/statistics/rx_bytes) -gt $((rx0 + 1000000)) ]" ||
	fail "the TCP stream does not move after the LID change"
kill -0 "$tcp" || { cat "$soak_stream"; fail "the TCP stream ended"; }
kill "$tcp"
wait "$tcp" || true
iperf_server_stop h2
assert on h2 ping -c 2 -i 0.2 -W 2 10.20.0.1

step "connected mode: 0x40 -> 0x41, 60 kB pings"
ip -n h1 link set "$a" type ipoib mode connected
ip -n h2 link set "$b" type ipoib mode connected
wait_carrier h1 "$a"
wait_carrier h2 "$b"
assert on h1 ping -c 2 -i 0.2 -W 3 -s 60000 10.20.0.2
change_lid 65 60000
assert on h2 ping -c 2 -i 0.2 -W 3 -s 60000 10.20.0.1
on h1 ethtool -S "$a" | grep -E 'path_|cm_(conn|fall)'
cat "/sys/kernel/debug/ib_ipoib/$a/paths"
pass
