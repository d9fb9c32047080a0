#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Campaign: our driver unloaded and loaded again under TCP, in each mode.
# Ours (as ipoib_alt) runs h1 on sib0; Debian's in-tree driver runs h2 on
# sib1 and streams to h1 throughout.  Each cycle: rmmod under the stream,
# modprobe, the new interface into h1 with the same addresses; then the
# time until h2 pings h1 again.  The stream's socket outlives the interface,
# so TCP carries it across every cycle: a stream that breaks is a loss.
#
#   h1: ib (sib0), ours 10.15.0.1  <==TCP==  h2: ib (sib1), in-tree 10.15.0.2
#
# soak.scale=N (or soak.reloads=N) on the kernel command line: N x 5
# cycles per mode (make soak: 50).
#
# timeout: 3600
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

RELOADS=$(soak_knob reloads $((5 * SOAK_SCALE)))

# ours_here MODE: load ours, put its interface into h1 in MODE, addressed.
ours_here() {
	alt_up
	ours=$(wait_iface ipoib_alt sib0 1) || fail "no interface of ours on sib0"
	echo "$1" >"/sys/class/net/$ours/mode"
	ib_host h1 "$ours" 10.15.0.1/24
	wait_carrier h1 "$ours"
}

fabric_up devices=2 ports=1
intree_up
theirs=$(wait_iface ib_ipoib sib1 1)
ns_add h1
ours_here datagram
ib_host h2 "$theirs" 10.15.0.2/24
wait_carrier h2 "$theirs"
rmmod ipoib_alt
soak_baseline
ours_here datagram

for mode in datagram connected; do
	step "$mode mode: $RELOADS unloads and loads under TCP"
	ip netns exec h2 sh -c "echo $mode >/sys/class/net/$theirs/mode"
	if [ "$mode" = connected ]; then
		rmmod ipoib_alt
		ours_here connected
	fi
	wait_for 30 ip netns exec h2 ping -c 1 -W 1 10.15.0.1 || fail "no ping before the cycles"
	soak_tcp_start h1 10.15.0.1 h2
	for i in $(seq "$RELOADS"); do
		rmmod ipoib_alt || fail "cycle $i: rmmod under traffic failed"
		t0=$(soak_now)
		ours_here "$mode"
		soak_recover "cycle $i" "$t0" h2 10.15.0.1
	done
	soak_tcp_stop
	# Compared where the baseline was taken: ours gone, theirs in datagram mode.
	rmmod ipoib_alt
	ip netns exec h2 sh -c "echo datagram >/sys/class/net/$theirs/mode"
	soak_report "reload-$mode"
	ours_here datagram
done
soak_end
