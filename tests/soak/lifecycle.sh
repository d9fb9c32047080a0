#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Campaign: the driver's own lifecycle under TCP.  While a stream runs from
# h1 to h2 over the main interfaces:
#
#   children  8 P_Key children made on each side (netlink), addressed,
#             each pair pinged, then all deleted; CYCLES times
#   modes     h1 switched between connected and datagram mode (h2 stays
#             connected), SWITCHES times; h1 must ping h2 after each
#   rings     ethtool -G on h1 with random ring sizes, in connected mode,
#             RESIZES times; h1 must ping h2 after each
#
#   h1: ib (sib0) 10.16.0.1, children 10.16.N.1  ===  h2: ib (sib1) 10.16.0.2, 10.16.N.2
#
# One SOAK line per part; each part's stream must carry every byte it sent
# and the verbs objects must come back to the baseline.  soak.scale=N (or
# soak.children=, soak.switches=, soak.resizes=) on the kernel command
# line: N x 5 of each (make soak: 50).
#
# timeout: 3600
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

CYCLES=$(soak_knob children $((5 * SOAK_SCALE)))
SWITCHES=$(soak_knob switches $((5 * SOAK_SCALE)))
RESIZES=$(soak_knob resizes $((5 * SOAK_SCALE)))
CHILDREN=8
RANDOM=4392

fabric_up devices=2 ports=1 pkeys=0xffff,0x8001,0x8002,0x8003,0x8004,0x8005,0x8006,0x8007,0x8008
ours_up
two_hosts ib_ipoib 10.16.0
soak_baseline

# set_mode NS IFACE MODE: switch, and wait for the carrier to be back.
set_mode() {
	ip -n "$1" link set "$2" type ipoib mode "$3"
	wait_carrier "$1" "$2"
}

# add_child NS PARENT N HOST: child N (P_Key 0x800N) at 10.16.N.HOST, up.
add_child() {
	ip -n "$1" link add link "$2" name "$2.$3" type ipoib pkey "0x800$3"
	ip -n "$1" addr add "10.16.$3.$4/24" dev "$2.$3"
	ip -n "$1" link set "$2.$3" up
}

# shellcheck disable=SC2317 # called through wait_for
children_answer() {
	local n
	for n in $(seq "$CHILDREN"); do
		ip netns exec h1 ping -c 1 -W 1 "10.16.$n.2" >/dev/null || return 1
	done
}

step "children: $CYCLES cycles of $CHILDREN children on each side, under TCP"
soak_tcp_start h2 10.16.0.2 h1
for i in $(seq "$CYCLES"); do
	t0=$(soak_now)
	for n in $(seq "$CHILDREN"); do
		add_child h1 "$a" "$n" 1
		add_child h2 "$b" "$n" 2
	done
	soak_recover_when "cycle $i: every child pair" "$t0" children_answer
	for n in $(seq "$CHILDREN"); do
		ip -n h1 link del "$a.$n"
		ip -n h2 link del "$b.$n"
	done
done
soak_tcp_stop
soak_report lifecycle-children

step "modes: $SWITCHES switches of h1 under TCP, h2 connected"
set_mode h2 "$b" connected
soak_tcp_start h2 10.16.0.2 h1
for i in $(seq "$SWITCHES"); do
	mode=connected
	[ $((i % 2)) = 1 ] || mode=datagram
	t0=$(soak_now)
	ip -n h1 link set "$a" type ipoib mode "$mode"
	soak_recover "switch $i to $mode" "$t0" h1 10.16.0.2
done
soak_tcp_stop
set_mode h1 "$a" datagram
set_mode h2 "$b" datagram
soak_report lifecycle-modes

step "rings: $RESIZES resizes of h1's rings under TCP, connected mode"
set_mode h1 "$a" connected
set_mode h2 "$b" connected
sizes=(64 128 256 512 1024)
soak_tcp_start h2 10.16.0.2 h1
for i in $(seq "$RESIZES"); do
	rx=${sizes[RANDOM % 5]} tx=${sizes[RANDOM % 5]}
	t0=$(soak_now)
	ip netns exec h1 ethtool -G "$a" rx "$rx" tx "$tx" ||
		fail "resize $i: ethtool -G rx $rx tx $tx refused"
	soak_recover "resize $i (rx $rx tx $tx)" "$t0" h1 10.16.0.2
done
soak_tcp_stop
set_mode h1 "$a" datagram
set_mode h2 "$b" datagram
soak_report lifecycle-rings
soak_end
