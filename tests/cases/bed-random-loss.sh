#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A lossy fabric, at random and in bursts: sib's ud_loss_ppm (datagram
# mode) or rc_loss_ppm (connected mode) at 20000 (2%), each loss taking
# the next two of its kind the same port sends within 1 ms too
# (loss_burst=3, loss_burst_us at its default), while 8 MiB go over TCP
# each way.  Every byte arrives, each the one sent (tcpstream), and the
# ports' counters show the knob bit: drop_random and loss_bursts above 0,
# in datagram mode more messages lost than bursts.  The in-tree driver
# first (the witness), then ours.  In connected mode the in-tree driver
# asks for no RC retries (retry_cnt 0): every loss ends its connection,
# and its reconnections back off, so a stream of 8 MiB can take minutes.
# That is shown, not judged, one way only: after 15 s the loss stops, and
# the stream must then complete whole.
#
#   h1: sib0 10.34.0.1 ==== switch (2% lost, bursts of 3) ==== h2: sib1 10.34.0.2
#
# timeout: 900
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

NET=10.34.0

both() { echo $(($(sib_counter sib0 1 "$1") + $(sib_counter sib1 1 "$1"))); }

# stream SRV ADDR CLI WHAT KNOB JUDGE: 8 MiB over TCP, every byte
# compared.  JUDGE yes: within 240 s; no: KNOB off after 15 s if need be
# (shown), then whole within 120 s.
stream() {
	local pid t0=$SECONDS
	( tcp_exact "$1" "$2" "$3" 8 "$4" ) &
	pid=$!
	if [ "$6" = no ] && ! wait_for 15 pid_gone "$pid"; then
		echo "$4: not complete 15 s into the loss; $5 back to 0"
		echo 0 >"$SIB/$5"
		wait_for 120 pid_gone "$pid" || fail "$4: not complete 120 s after the loss stopped"
	fi
	wait_for 240 pid_gone "$pid" || fail "$4: not complete in 240 s"
	wait "$pid" || fail "$4: the stream failed"
	echo "$4: $((SECONDS - t0)) s"
}

# shellcheck disable=SC2317 # called through wait_for
no_rc_qps() { ! grep -q 'type RC' "$SIB/sib0/qps" "$SIB/sib1/qps"; }

# quiesce: both links down and every connection gone, so that unloading
# the in-tree driver does not race its own reconnections.
quiesce() {
	ip -n h1 link set "$a" down
	ip -n h2 link set "$b" down
	wait_for 30 no_rc_qps || echo "RC QPs left 30 s after the links went down: $(grep -c 'type RC' "$SIB/sib0/qps" "$SIB/sib1/qps" | tr '\n' ' ')"
}

# lossy DRIVER MODE KNOB JUDGE: 8 MiB each way with KNOB at 2%, bursts
# of 3.
lossy() {
	local drv=$1 mode=$2 knob=$3 judge=$4 lost bursts
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
	stream h2 "$NET.2" h1 "$drv $mode: 8 MiB h1 -> h2" "$knob" "$judge"
	# What is only shown is shown one way.
	if [ "$judge" = yes ]; then
		echo 20000 >"$SIB/$knob"
		stream h1 "$NET.1" h2 "$drv $mode: 8 MiB h2 -> h1" "$knob" "$judge"
	fi
	echo 0 >"$SIB/$knob"
	lost=$(both drop_random)
	bursts=$(both loss_bursts)
	echo "$drv $mode: lost $lost messages in $bursts bursts; RC: $(both local_ack_timeouts) ACK timeouts, $(both retransmits) sent again, $(both retries_exceeded) given up"
	assert_ge "$bursts" 1 "$drv $mode: loss bursts"
	# A burst takes what the port sends within 1 ms: in datagram mode
	# the rest of the flight; an RC QP sends nothing more until its ACK
	# timeout, so there a burst is one message.
	if [ "$mode" = datagram ]; then
		assert_ge "$lost" $((bursts + 1)) "$drv $mode: messages lost (bursts of 3)"
	else
		assert_ge "$lost" "$bursts" "$drv $mode: messages lost"
	fi
	assert_ge "$(both drop_injected)" "$lost" "$drv $mode: drop_injected counts them"
	quiesce
	# Back to the first namespace now: a deleted one gives its
	# interfaces back only when its cleanup work runs, seconds later.
	ip -n h1 link set "$a" netns 1
	ip -n h2 link set "$b" netns 1
	ip netns del h1
	ip netns del h2
}

fabric_up devices=2 ports=1

step "witness: the in-tree driver"
intree_up
lossy in-tree datagram ud_loss_ppm yes
lossy in-tree connected rc_loss_ppm no
rmmod ib_ipoib

step "ours"
ours_up
lossy ours datagram ud_loss_ppm yes
lossy ours connected rc_loss_ppm yes
pass
