#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A lossy fabric, at random and in bursts: sib's ud_loss_ppm (datagram
# mode) or rc_loss_ppm (connected mode) at 20000 (2%), each loss taking
# the next two of its kind from the same port too (loss_burst=3), while
# 8 MiB go over TCP each way.  Every byte arrives, each the one sent
# (tcpstream), and the ports' counters show the knob bit: drop_random
# and loss_bursts above 0, more messages lost than bursts.  The in-tree
# driver first (the witness), then ours.
#
#   h1: sib0 10.34.0.1 ==== switch (2% lost, bursts of 3) ==== h2: sib1 10.34.0.2
#
# timeout: 600
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

NET=10.34.0

both() { echo $(($(sib_counter sib0 1 "$1") + $(sib_counter sib1 1 "$1"))); }

# lossy DRIVER MODE KNOB: 8 MiB each way with KNOB at 2%, bursts of 3.
lossy() {
	local drv=$1 mode=$2 knob=$3 lost bursts
	step "$drv, $mode mode: $knob=20000, loss_burst=3"
	if [ "$mode" = connected ]; then
		two_hosts --connected ib_ipoib "$NET"
	else
		two_hosts ib_ipoib "$NET"
	fi
	assert on h1 ping -c 2 -i 0.2 -W 3 "$NET.2"
	echo 0 >"$SIB/sib0/port1/counters"
	echo 0 >"$SIB/sib1/port1/counters"
	echo 3 >"$SIB/loss_burst"
	echo 20000 >"$SIB/$knob"
	tcp_exact h2 "$NET.2" h1 8 "$drv $mode: 8 MiB h1 -> h2"
	tcp_exact h1 "$NET.1" h2 8 "$drv $mode: 8 MiB h2 -> h1"
	echo 0 >"$SIB/$knob"
	lost=$(both drop_random)
	bursts=$(both loss_bursts)
	echo "$drv $mode: lost $lost messages in $bursts bursts; RC: $(both local_ack_timeouts) ACK timeouts, $(both retransmits) sent again, $(both retries_exceeded) given up"
	assert_ge "$bursts" 1 "$drv $mode: loss bursts"
	assert_ge "$lost" $((bursts + 1)) "$drv $mode: messages lost (bursts of 3)"
	assert_ge "$(both drop_injected)" "$lost" "$drv $mode: drop_injected counts them"
	ip netns del h1
	ip netns del h2
}

fabric_up devices=2 ports=1

step "witness: the in-tree driver"
intree_up
lossy in-tree datagram ud_loss_ppm
lossy in-tree connected rc_loss_ppm
rmmod ib_ipoib

step "ours"
ours_up
lossy ours datagram ud_loss_ppm
lossy ours connected rc_loss_ppm
pass
