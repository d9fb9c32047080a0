#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Campaign: faults of the fabric and its subnet manager under TCP, in each
# mode, with every 10th MAD lost throughout (joins, path queries and CM
# set-up all retry) and, in datagram mode, every 100th UD packet:
#
#   sm       the SM forgets every group and asks both ports to reregister
#   rereg    a client reregister on both ports, the groups kept
#   pkeys    a child's P_Key leaves both ports' tables, then comes back
#   lid      h2's port moves to another LID; only h2 is told, h1 learns it
#            from h2's announce and asks the SA again
#   rcerr    (connected mode) RC sends fail with retry exceeded until a
#            connection breaks; 60 kB pings must get through again
#   hca      (connected mode) the fabric's module removed under the stream
#            and loaded again; the interfaces come back, are addressed and
#            the stream goes on
#
#   h1: ib (sib0) 10.17.0.1, child 10.17.1.1  ===  h2: ib (sib1) 10.17.0.2, 10.17.1.2
#
# One SOAK line per part and mode.  soak.scale=N on the kernel command
# line: N x 2 SM restarts, N x 5 reregisters, N x 5 P_Key changes, N x 2
# LID changes, N x 2 RC errors and N HCA reloads per mode (make soak: 20,
# 50, 50, 20, 20, 10).
#
# timeout: 3600
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

SM_RESTARTS=$(soak_knob sm_restarts $((2 * SOAK_SCALE)))
REREGS=$(soak_knob reregs $((5 * SOAK_SCALE)))
PKEY_CHANGES=$(soak_knob pkey_changes $((5 * SOAK_SCALE)))
LID_CHANGES=$(soak_knob lid_changes $((2 * SOAK_SCALE)))
RC_ERRORS=$(soak_knob rc_errors $((2 * SOAK_SCALE)))
HCA_RELOADS=$(soak_knob hca_reloads "$SOAK_SCALE")
FABRIC="devices=2 ports=1 pkeys=0xffff,0x8001"

# hosts_up: our interfaces into h1 and h2 (made if need be), addressed, up,
# with a P_Key 0x8001 child each; sets a and b.
hosts_up() {
	a=$(wait_iface ib_ipoib sib0 1)
	b=$(wait_iface ib_ipoib sib1 1)
	ib_host h1 "$a" 10.17.0.1/24
	ib_host h2 "$b" 10.17.0.2/24
	ip -n h1 link add link "$a" name "$a.1" type ipoib pkey 0x8001
	ip -n h2 link add link "$b" name "$b.1" type ipoib pkey 0x8001
	ip -n h1 addr add 10.17.1.1/24 dev "$a.1"
	ip -n h2 addr add 10.17.1.2/24 dev "$b.1"
	ip -n h1 link set "$a.1" up
	ip -n h2 link set "$b.1" up
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
}

# set_modes MODE: both main interfaces in MODE, carriers back.
set_modes() {
	ip -n h1 link set "$a" type ipoib mode "$1"
	ip -n h2 link set "$b" type ipoib mode "$1"
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
}

# shellcheck disable=SC2317 # called through wait_for
rejoined_and_pings() {
	grep -qi "ff12:401b:ffff" "$SIB/sa_groups" &&
		ip netns exec h1 ping -c 1 -W 1 10.17.0.2 >/dev/null
}

# shellcheck disable=SC2317 # called through wait_for
child_pings() { ip netns exec h1 ping -c 1 -W 1 10.17.1.2 >/dev/null; }
# shellcheck disable=SC2317 # called through wait_for
child_down() { ! carrier_is_on h1 "$a.1"; }
# shellcheck disable=SC2317 # called through wait_for
pings() { ip netns exec h1 ping -c 1 -W 1 10.17.0.2 >/dev/null; }
# shellcheck disable=SC2317 # called through wait_for
big_pings() { ip netns exec h1 ping -c 1 -W 1 -s 60000 10.17.0.2 >/dev/null; }

cm_errors() {
	ip netns exec h1 ethtool -S "$a" | awk '$1 == "cm_errors_wc:" { n = $2 } END { print n + 0 }'
}
# cm_error_seen N: a send failed since the count was N.  It sends a 60 kB
# ping itself: a stream backed off by earlier errors may send nothing for
# longer than the wait.
# shellcheck disable=SC2317 # called through wait_for
cm_error_seen() {
	big_pings || true
	[ "$(cm_errors)" -gt "$1" ]
}

# part_rereg [sm]: both ports asked to reregister, COUNT times; with sm,
# the SM first forgets every group.
part_rereg() {
	local i t0 n=$REREGS what=reregister
	[ -z "${1:-}" ] || n=$SM_RESTARTS what="SM restart"
	for i in $(seq "$n"); do
		t0=$(soak_now)
		[ -z "${1:-}" ] || echo 1 >"$SIB/sm_restart"
		for d in sib0 sib1; do echo client_reregister >"$SIB/$d/port1/event"; done
		soak_recover_when "$what $i" "$t0" rejoined_and_pings
	done
}

part_pkeys() {
	local i t0
	for i in $(seq "$PKEY_CHANGES"); do
		for d in sib0 sib1; do echo 0xffff >"$SIB/$d/port1/pkeys"; done
		wait_for 20 child_down || fail "P_Key change $i: the child kept its carrier without its P_Key"
		t0=$(soak_now)
		for d in sib0 sib1; do echo 0xffff,0x8001 >"$SIB/$d/port1/pkeys"; done
		soak_recover_when "P_Key change $i" "$t0" child_pings
	done
}

# h2's LID between 0x40 and 0x41; in connected mode the connection to the
# old LID fails and is made again.
part_lid() {
	local i t0 check=pings
	[ "$mode" = datagram ] || check=big_pings
	for i in $(seq "$LID_CHANGES"); do
		t0=$(soak_now)
		echo $((0x40 + i % 2)) >"$SIB/sib1/port1/lid"
		soak_recover_when "LID change $i" "$t0" "$check"
	done
}

part_rcerr() {
	local i t0 e0
	wait_for 30 big_pings || fail "no 60 kB ping before the RC errors"
	for i in $(seq "$RC_ERRORS"); do
		e0=$(cm_errors)
		t0=$(soak_now)
		echo 1 >"$SIB/rc_drop_every"
		wait_for 30 cm_error_seen "$e0" || fail "RC error $i: no send failed"
		echo 0 >"$SIB/rc_drop_every"
		soak_recover_when "RC error $i" "$t0" big_pings
	done
}

# The stream's socket outlives the interfaces: TCP carries it across.
part_hca() {
	local i t0
	for i in $(seq "$HCA_RELOADS"); do
		t0=$(soak_now)
		rmmod sib || fail "HCA reload $i: rmmod sib failed under traffic"
		# shellcheck disable=SC2086 # a list of parameters
		modprobe sib $FABRIC || fail "HCA reload $i: modprobe sib failed"
		wait_for 10 all_ports_active || fail "HCA reload $i: ports not ACTIVE"
		hosts_up
		set_modes connected
		soak_recover_when "HCA reload $i" "$t0" big_pings
	done
}

# shellcheck disable=SC2086 # FABRIC is a list of parameters
fabric_up $FABRIC
ours_up
hosts_up
soak_baseline
echo 10 >"$SIB/mad_drop_every"

for mode in datagram connected; do
	set_modes "$mode"
	ud=0 loss="no UD loss"
	[ "$mode" = connected ] || ud=100 loss="UD loss 1%"
	echo "$ud" >"$SIB/ud_drop_every"
	parts="sm rereg pkeys lid"
	[ "$mode" = datagram ] || parts="$parts rcerr hca"
	for part in $parts; do
		step "$mode mode: $part under TCP (MAD loss 10%, $loss)"
		soak_tcp_start h2 10.17.0.2 h1
		case $part in
		sm) part_rereg sm ;;
		rereg) part_rereg ;;
		pkeys) part_pkeys ;;
		lid) part_lid ;;
		rcerr) part_rcerr ;;
		hca) part_hca ;;
		esac
		soak_tcp_stop
		# Compared in datagram mode, where the baseline was taken.
		set_modes datagram
		soak_report "fabric-$part-$mode"
		set_modes "$mode"
	done
done
echo 0 >"$SIB/mad_drop_every"
echo 0 >"$SIB/ud_drop_every"
soak_end
