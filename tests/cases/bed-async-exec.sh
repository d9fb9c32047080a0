#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test bed executes sends as an HCA does when asked (sib async=1): the
# post only queues the work, the fabric's worker executes it later and
# reads the send buffer then, completions come after.
#
#   sibperf: QP on sib0 port 1 --SEND--> QP on sib1 port 1
#   h1: ib (sib0 port 1) 10.N.0.1  ===UD, then RC===  h2: ib (sib1 port 1) 10.N.0.2
#
# - sibperf's scribble, UD and RC: one SEND of a buffer of 0xa5 bytes,
#   overwritten with 0x5a as soon as ib_post_send returns (a driver that
#   reuses a buffer before its completion).  async=0: the send completed
#   in the post and the receiver got 0xa5; async=1 (a 2 ms doorbell): no
#   completion in the post, the receiver got 0x5a -- and on UD the AH,
#   destroyed right after the post, still took the message where it
#   pointed (sib copies the address vector into the WQE, as HCAs do);
# - sibperf's flush, UD and RC: eight sends posted and their QP moved to
#   error at once: async=0, all eight delivered; async=1, all eight
#   completed with a flush error and none delivered.  Then eight posted
#   on a sender destroyed at once (its batch still pending: the destroy
#   waits for the worker);
# - async=1 with 50 us plus up to 200 us of jitter per batch: Debian's
#   ib_ipoib (the witness), then ours, in datagram mode (pings, 8 MiB over
#   TCP, every byte checked) and then connected mode (60000-byte pings,
#   8 MiB over TCP, h1's packets over RC counted); the port's async_wqes
#   counter shows the worker carried the sends.
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

P=/sys/module/sib/parameters
SCRIBBLE=/sys/kernel/debug/sibperf/scribble
FLUSH=/sys/kernel/debug/sibperf/flush

# scribble TYPE BYTES: the result line of one scribbled send.
scribble() {
	echo "$1 $2" >"$SCRIBBLE" || fail "sibperf scribble $1 $2 failed"
	cat "$SCRIBBLE"
}

# field LINE NAME: NAME's value in a key=value line.
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"; }

# expect TYPE BYTES RECEIVED DONE_AT_POST: one scribble, judged.
expect() {
	local out
	out=$(scribble "$1" "$2")
	echo "async=$(cat $P/async): $out"
	assert_eq "$(field "$out" received)" "$3" "$1: what the receiver got"
	assert_eq "$(field "$out" done_at_post)" "$4" "$1: send completed in the post"
	assert_eq "$(field "$out" send)" success "$1: send status"
	assert_eq "$(field "$out" recv)" success "$1: receive status"
	if [ "$1" = ud ]; then
		assert_eq "$(field "$out" ah_gone)" "$((1 - $4))" "ud: AH destroyed before the completion"
	fi
}

# flushes TYPE SUCCEEDED FLUSHED DELIVERED DONE: eight sends posted, their
# QP moved to error at once, judged; then eight on a sender destroyed at
# once, DONE of them complete by then (no receives posted: UD drops them,
# RC waits out RNR NAKs).
flushes() {
	local out
	echo "$1 256" >"$FLUSH" || fail "sibperf flush $1 failed"
	out=$(cat "$FLUSH")
	echo "async=$(cat $P/async): $out"
	assert_eq "$(field "$out" succeeded)" "$2" "$1: sends that succeeded"
	assert_eq "$(field "$out" flushed)" "$3" "$1: sends flushed"
	assert_eq "$(field "$out" delivered)" "$4" "$1: messages delivered"
	assert_eq "$(field "$out" done_before_destroy)" "$5" "$1: sends done before the destroy"
}

wqes() { sib_counter sib0 1 async_wqes; }

run() {
	local drv=$1 net=$2 w0 w1 rc0 rc
	step "$drv: datagram mode, async=1"
	two_hosts ib_ipoib "$net"
	w0=$(wqes)
	assert on h1 ping -c 5 -i 0.2 -W 3 "$net.2"
	assert on h1 ping -c 3 -i 0.2 -W 3 -s 1400 "$net.2"
	tcp_exact h2 "$net.2" h1 8 "$drv datagram TCP"

	step "$drv: connected mode, async=1"
	two_hosts_connected
	assert_eq "$(ip netns exec h1 cat "/sys/class/net/$a/mode")" connected "mode"
	rc0=$(sib_ipoib_count sib0 1 rc ipv4)
	assert on h1 ping -c 5 -i 0.2 -W 3 -s 60000 "$net.2"
	tcp_exact h2 "$net.2" h1 8 "$drv connected TCP"
	rc=$(($(sib_ipoib_count sib0 1 rc ipv4) - rc0))
	echo "$drv: h1 sent $rc IPv4 packets over RC"
	# 8 MiB in 65520-byte packets at most, and the pings.
	assert_ge "$rc" 128 "IPv4 packets h1 sent over RC"
	w1=$(wqes)
	echo "$drv: sib0 port 1's worker completed $((w1 - w0)) sends ($(sib_counter sib0 1 async_batches) batches in all)"
	# 16 MiB of TCP: 256 sends at least, of 64 KiB each at most.
	assert_ge "$((w1 - w0))" 256 "sends sib0's worker completed"

	ip -n h1 link set "$a" down
	ip -n h2 link set "$b" down
	rmmod ib_ipoib
}

fabric_up devices=2 ports=1
modprobe sibperf

step "scribble, async=0: the fabric reads the buffer in the post"
# Set here: a run may have given every case sib.async=0.
echo 0 >$P/async
expect ud 256 original 1
expect rc 4096 original 1
flushes ud 8 0 8 8
flushes rc 8 0 8 0

step "scribble, async=1: the fabric reads it later"
echo 2000 >$P/async_delay_us
echo 1 >$P/async
b0=$(sib_counter sib0 1 async_batches)
expect ud 256 overwritten 0
expect rc 4096 overwritten 0
flushes ud 0 8 0 0
flushes rc 0 8 0 0
assert_ge "$(($(sib_counter sib0 1 async_batches) - b0))" 2 "batches sib0's worker ran"
rmmod sibperf

echo 50 >$P/async_delay_us
echo 200 >$P/async_jitter_us
intree_up
run intree 10.43.0
ours_up
run ours 10.44.0
sib_counters sib0 1 | grep -E "async|tx_packets|rnr|retrans"
pass
