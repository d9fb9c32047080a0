#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A router on one IPoIB interface: h2 forwards between h1 and h3, which
# share its subnet but reach each other through it.  When h2 cannot carry a
# forwarded packet to h3 at its size, the ICMP "fragmentation needed" (or
# ICMPv6 "packet too big") it owes h1 goes back out of the very interface
# whose transmit lock the driver holds when it finds out.  Sent under that
# lock, the ICMP's own transmit takes the lock again (a CPU spinning on
# itself), or on PREEMPT_RT blocks on the qdisc's busylock.  The driver
# must send it once the lock is dropped, and h1 must learn the MTU.
#
#   h1: sib0 10.9.0.1 connected ==RC== h2: sib1 10.9.0.2 connected,
#                                       ip_forward=1, no redirects
#   h3: sib2 10.9.0.3, .33  <--UD-- h2
#   h1 -> 10.9.0.3, .33 via h2;  h3 -> 10.9.0.1 via h2
#
# Two ways to find a packet too big, both with 3000-byte DF pings, IPv4
# and IPv6:
#  1. h3 in connected mode, but h2 (no SRQ, cm_max_conn_nosrq=1) has no
#     room for a connection to it: the first packet waits for h2's path to
#     h3 and is found too big for UD when the path query's callback sends
#     it, outside any qdisc run.
#  2. h3 in datagram mode (no RC flag): found too big inside
#     ndo_start_xmit.  Every interface gets the pfifo qdisc (when the
#     kernel has the choice): it holds its busylock across the driver call
#     on PREEMPT_RT.
# Then non-DF pings and TCP cross the router at the MTU h1 learnt.
#
# The in-tree driver as the router (h2; ours as ipoib_alt on h1 and h3)
# runs way 2 as the witness: it has no connection limit on the sending
# side, so way 1 does not arise there.
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }

qdisc_knob=/proc/sys/net/core/default_qdisc
if [ -w "$qdisc_knob" ]; then
	qdisc_was=$(cat "$qdisc_knob")
	trap 'echo "$qdisc_was" >"$qdisc_knob"' EXIT
	echo pfifo >"$qdisc_knob"
	echo "default qdisc: pfifo (was $qdisc_was)"
else
	echo "this kernel has no qdisc choice (no CONFIG_NET_SCHED): pfifo_fast"
fi

# hosts DRV1 DRV2 DRV3 MODE3: h1 (sib0) connected, h2 (sib1) connected and
# routing, h3 (sib2) in MODE3; sets a, b and c to the interface names.
hosts() {
	a=$(wait_iface "$1" sib0 1)
	b=$(wait_iface "$2" sib1 1)
	c=$(wait_iface "$3" sib2 1)
	echo connected >"/sys/class/net/$a/mode"
	echo connected >"/sys/class/net/$b/mode"
	echo "$4" >"/sys/class/net/$c/mode"
	ip link set "$a" mtu 65520
	ip link set "$b" mtu 65520
	ns_add h2
	on h2 sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
		net.ipv4.conf.all.send_redirects=0 net.ipv4.conf.default.send_redirects=0
	ns_add h1
	ns_add h3
	for h in h1 h3; do
		on "$h" sysctl -qw net.ipv4.conf.all.accept_redirects=0 \
			net.ipv4.conf.default.accept_redirects=0 \
			net.ipv6.conf.all.accept_redirects=0 \
			net.ipv6.conf.default.accept_redirects=0
	done
	ib_host h1 "$a" 10.9.0.1/24 fd09::1/64
	ib_host h2 "$b" 10.9.0.2/24 fd09::2/64
	ib_host h3 "$c" 10.9.0.3/24 fd09::3/64
	ip -n h3 addr add 10.9.0.33/24 dev "$c"
	ip -n h3 addr add fd09::33/64 dev "$c" nodad
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
	wait_carrier h3 "$c"
	for d in 10.9.0.3 10.9.0.33; do
		ip -n h1 route add "$d/32" via 10.9.0.2
	done
	for d in fd09::3 fd09::33; do
		ip -n h1 -6 route add "$d/128" via fd09::2
	done
	ip -n h3 route add 10.9.0.1/32 via 10.9.0.2
	ip -n h3 -6 route add fd09::1/128 via fd09::2
	on h2 ip link show dev "$b" | head -n 1
	# h1's connection to h2 (shared with ours: h2 sends on it too).
	assert on h1 ping -c 2 -i 0.2 -W 3 -M "do" -s 3000 10.9.0.2
	assert on h1 ping -6 -c 2 -i 0.2 -W 3 -M "do" -s 3000 fd09::2
}

# too_big DST [-6]: h1's DF pings of 3028/3048 bytes to DST through h2
# come back as an ICMP from h2 naming MTU 2044, and h1's route learns it.
too_big() {
	local dst=$1 v=${2:-}
	if on h1 ping ${v:+"$v"} -c 3 -i 0.3 -W 3 -M "do" -s 3000 "$dst" >/tmp/df.log 2>&1; then
		cat /tmp/df.log
		fail "a 3000-byte DF ping reached $dst over a 2044-byte hop"
	fi
	cat /tmp/df.log
	grep -Eq "From (10\.9\.0\.2|fd09::2).*(mtu ?= ?2044)" /tmp/df.log ||
		fail "no ICMP from h2 naming MTU 2044 for $dst"
	on h1 ip ${v:+"$v"} route get "$dst" | tee /tmp/route.log
	grep -q "mtu 2044" /tmp/route.log || fail "h1's route to $dst did not learn MTU 2044"
}

# crosses DST [-6]: non-DF 3000-byte pings cross h2 to DST and back.
crosses() {
	local out
	out=$(on h1 ping ${2:+"$2"} -c 4 -i 0.3 -W 3 -s 3000 "$1") || { echo "$out"; fail "no answer from $1 through h2"; }
	echo "$out" | tail -n 2
}

step "our driver on all three hosts; no SRQ, one connection per interface"
fabric_up devices=3 ports=1 srq=0
ours_up cm_max_conn_nosrq=1
hosts ib_ipoib ib_ipoib ib_ipoib connected
assert_eq "$(stat_of h2 "$b" cm_connections)" 1 "h2's connections (h1's)"
s0=$(stat_of h2 "$b" cm_pmtu_signals)

step "1. h3 connected, h2 full: the first packet waits for the path, then is too big for UD"
p0=$(stat_of h2 "$b" path_queries)
too_big 10.9.0.3
echo "h2 path queries: $p0 -> $(stat_of h2 "$b" path_queries)"
assert_ge "$(($(stat_of h2 "$b" path_queries) - p0))" 1 "h2 asked for a path to h3 first"
assert_eq "$(stat_of h2 "$b" cm_reqs_sent)" 0 "h2 had no room to connect to h3"
too_big fd09::3 -6
crosses 10.9.0.3
crosses fd09::3 -6
tcp_exact h3 10.9.0.3 h1 16 "TCP h1 -> h3 through h2"

step "2. h3 in datagram mode: too big inside ndo_start_xmit"
ip -n h3 link set "$c" type ipoib mode datagram
assert_eq "$(ip netns exec h3 cut -c1-2 "/sys/class/net/$c/address")" 00 "h3's address flags"
too_big 10.9.0.33
too_big fd09::33 -6
crosses 10.9.0.33
crosses fd09::33 -6
on h2 ethtool -S "$b" | grep -E 'pmtu|too_big|cm_connections'
s1=$(stat_of h2 "$b" cm_pmtu_signals)
echo "h2 cm_pmtu_signals: $s0 -> $s1"
assert_ge "$((s1 - s0))" 4 "ICMPs h2 owed h1 (two ways, IPv4 and IPv6)"
rmmod ib_ipoib
ip netns del h1
ip netns del h2
ip netns del h3

step "witness: the in-tree driver as the router (way 2)"
alt_up
intree_up
hosts ipoib_alt ib_ipoib ipoib_alt datagram
too_big 10.9.0.33
too_big fd09::33 -6
crosses 10.9.0.33
crosses fd09::33 -6
pass
