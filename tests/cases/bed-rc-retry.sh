#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test bed retransmits RC as IBA has it: a request no ACK answers is
# sent again when the QP's local ACK timer runs out (4.096 us * 2^timeout),
# up to retry_cnt times, and only then fails with RETRY_EXC_ERR.  In
# connected mode, Debian's ib_ipoib first (the witness), then ours:
#
#   h1: ib (sib0 port 1) 10.N.0.1 httpd  ===RC===  h2: ib (sib1 port 1) 10.N.0.2 wget
#
# - h1's RC QPs carry the timer ib_cm programmed (sib's qps file): timeout
#   16, 268 ms, from the SA's packet lifetime 14 and sib's ACK delay 15;
#   retry_cnt as the driver's REQ asked: ours 3, the in-tree driver 0;
# - retry_cnt of h1's messages lost in a row (sib's rc_drop_next): a
#   60000-byte ping still comes back, retry_cnt timeouts later, with no new
#   connection (ib_cm's REQ count) -- nothing to show with retry_cnt 0;
# - one loss more: h1's send fails retry_cnt + 1 timeouts after it left,
#   not at once, and a new connection carries the next ping;
# - every 40th RC message lost (rc_drop_every) while h2 fetches 16 MiB
#   from h1 over HTTP (busybox): every byte arrives (sha256); ours makes
#   no new connection, the in-tree driver one per loss of its own.  The
#   timer is capped at 20 ms here (sib ack_timeout_max_ms, shown in the
#   qps file): ours sends some 9000 messages, and 268 ms a loss would be
#   a minute;
# - h2's port down: h1's next send fails retry_cnt + 1 timeouts later.
# Each step checks h1's port's counters local_ack_timeouts, retransmits
# and retries_exceeded against what it implies.
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

COUNTERS="local_ack_timeouts retransmits retries_exceeded"

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# rc_timers IBDEV: "timeout retry_cnt ack_timeout_us give_up_ms" of the
# device's RC QPs in RTS, one line for each that differs.
rc_timers() {
	awk '{ delete f; for (i = 1; i < NF; i += 2) f[$i] = $(i + 1) }
	     f["type"] == "RC" && f["state"] == "RTS" {
		print f["timeout"], f["retry_cnt"], f["ack_timeout_us"], f["give_up_ms"] }' \
		"$SIB/$1/qps" | sort -u
}

rc_qps() { awk '$4 == "RC"' "$SIB/$1/qps" | wc -l; }
# shellcheck disable=SC2317 # called by wait_for
no_rc_qps() { [ "$(rc_qps sib0)" = 0 ] && [ "$(rc_qps sib1)" = 0 ]; }

# REQs a port's ib_cm sent: one per connection made.
reqs() { cat "/sys/class/infiniband/$1/ports/1/cm_tx_msgs/req"; }

# snap / moved: h1's port's counters of unanswered requests, and by how
# much each moved since the snap ("TIMEOUTS RETRANSMITS EXCEEDED").
snap() {
	local c
	declare -gA base
	for c in $COUNTERS; do base[$c]=$(sib_counter sib0 1 "$c"); done
}
moved() {
	local c out=()
	for c in $COUNTERS; do out+=($(($(sib_counter sib0 1 "$c") - base[$c]))); done
	echo "${out[*]}"
}

# shellcheck disable=SC2317 # called by wait_for
exceeded_moved() { [ "$(sib_counter sib0 1 retries_exceeded)" != "${base[retries_exceeded]}" ]; }

# fails_after WHAT: one 60000-byte ping from h1 that no ACK will answer;
# waits (polling every 20 ms) for its send to fail and checks how long
# that took against retry_cnt + 1 timeouts, and the counters.
fails_after() {
	local t0 t1 ms pid
	snap
	t0=$(now_ms)
	ip netns exec h1 ping -c 1 -W 1 -s 60000 "$net.2" >/dev/null 2>&1 &
	pid=$!
	while ! exceeded_moved; do
		[ $(($(now_ms) - t0)) -lt $((2 * give_up + 10000)) ] ||
			fail "$1: h1's send did not fail within $((2 * give_up + 10000)) ms"
		sleep 0.02
	done
	t1=$(now_ms)
	ms=$((t1 - t0))
	wait "$pid" || true
	echo "$1: h1's send failed after $ms ms (retry_cnt + 1 = $((retry + 1)) timeouts of $ack_ms ms: $give_up ms)"
	assert_eq "$(moved)" "$((retry + 1)) $retry 1" "$1: $COUNTERS"
	# Not at once; a timer may fire up to a tick early.
	assert_ge "$ms" $((give_up * 9 / 10)) "$1: ms before the send failed"
	[ "$ms" -le $((2 * give_up + 5000)) ] ||
		fail "$1: the send failed only after $ms ms, not about $give_up"
}

# shellcheck disable=SC2317 # called by wait_for
pings() { ip netns exec h1 ping -c 1 -W 2 -s 60000 "$net.2"; }

# pings_rc: a 60000-byte ping from h1 comes back, and went over RC (over
# UD, while a driver backs off after a failure, it goes in fragments).
# shellcheck disable=SC2317 # called by wait_for
pings_rc() {
	local c0
	c0=$(sib_ipoib_count sib0 1 rc ipv4)
	pings >/dev/null && [ "$(sib_ipoib_count sib0 1 rc ipv4)" -gt "$c0" ]
}

# all_reqs: the REQs both ports sent.
all_reqs() { echo $(($(reqs sib0) + $(reqs sib1))); }

run() {
	local drv=$1 timers ms t0 req0 req1 lost d0 d1 x0 x1 pid got
	net=$2
	step "$drv: connected mode, a connection each way"
	two_hosts --connected ib_ipoib "$net"
	assert on h1 ping -c 2 -i 0.2 -W 3 -s 60000 "$net.2"
	wait_for 20 pings_rc || fail "h1's pings do not go over RC"
	cat "$SIB/sib0/qps"
	timers=$(rc_timers sib0)
	[ -n "$timers" ] || fail "no RC QP of h1's in RTS"
	[ "$(wc -l <<<"$timers")" = 1 ] ||
		fail "h1's RC QPs run different timers: $timers"
	read -r timeout retry ack_us give_up <<<"$timers"
	ack_ms=$((ack_us / 1000))
	echo "h1's RC QPs: timeout $timeout ($ack_ms ms), retry_cnt $retry: an unanswered request fails after $give_up ms"
	# Both ends programmed alike: the retry count is the REQ's.
	assert_eq "$(rc_timers sib1)" "$timers" "h2's RC QPs' timers"
	assert_ge "$timeout" 1 "timeout (0 would wait forever)"

	step "$drv: $retry of h1's messages lost in a row"
	if [ "$retry" = 0 ]; then
		echo "retry_cnt 0: the first loss is the last (next step)"
	else
		snap
		req0=$(all_reqs)
		echo "$retry" >"$SIB/sib0/port1/rc_drop_next"
		t0=$(now_ms)
		assert on h1 ping -c 1 -W 10 -s 60000 "$net.2"
		ms=$(($(now_ms) - t0))
		echo "the ping came back after $ms ms"
		assert_eq "$(moved)" "$retry $retry 0" "$COUNTERS"
		assert_eq "$(cat "$SIB/sib0/port1/rc_drop_next")" 0 "losses left"
		assert_eq "$(all_reqs)" "$req0" "REQs sent (a new connection)"
		assert_ge "$ms" $((retry * ack_ms * 9 / 10)) "ms before the reply"
	fi

	step "$drv: $((retry + 1)) lost in a row"
	req0=$(all_reqs)
	echo $((retry + 1)) >"$SIB/sib0/port1/rc_drop_next"
	fails_after "$((retry + 1)) losses"
	wait_for 20 pings_rc || fail "no ping over RC after the failed send"
	assert_ge "$(($(all_reqs) - req0))" 1 "REQs sent for a new connection"

	step "$drv: every 40th RC message lost, 16 MiB over TCP"
	ip netns exec h1 busybox httpd -f -p "$net.1:8080" -h "$PWD/www" &
	pid=$!
	wait_for 10 iperf_listening h1 8080 || fail "httpd did not start"
	req0=$(all_reqs)
	d0=$(($(sib_counter sib0 1 drop_injected) + $(sib_counter sib1 1 drop_injected)))
	x0=$(($(sib_counter sib0 1 retries_exceeded) + $(sib_counter sib1 1 retries_exceeded)))
	echo 20 >/sys/module/sib/parameters/ack_timeout_max_ms
	assert_eq "$(rc_timers sib0 | cut -d' ' -f3 | sort -u)" 20000 "ack_timeout_us under a 20 ms cap"
	echo 40 >"$SIB/rc_drop_every"
	t0=$SECONDS
	ip netns exec h2 timeout 120 busybox wget -q -O got "http://$net.1:8080/blob" ||
		fail "wget failed"
	echo 0 >"$SIB/rc_drop_every"
	echo 0 >/sys/module/sib/parameters/ack_timeout_max_ms
	kill "$pid"
	wait "$pid" || true
	got=$(sha256sum <got)
	rm -f got
	echo "h2 received the blob in $((SECONDS - t0)) s: sha256 ${got%% *}"
	assert_eq "$got" "$want" "sha256 of the 16 MiB h2 received"
	req1=$(all_reqs)
	d1=$(($(sib_counter sib0 1 drop_injected) + $(sib_counter sib1 1 drop_injected)))
	x1=$(($(sib_counter sib0 1 retries_exceeded) + $(sib_counter sib1 1 retries_exceeded)))
	lost=$((d1 - d0))
	echo "RC messages lost: $lost; sends failed: $((x1 - x0)); connections made again: $((req1 - req0))"
	assert_ge "$lost" 2 "RC messages lost"
	if [ "$retry" -gt 0 ]; then
		assert_eq "$((x1 - x0))" 0 "sends that failed"
		assert_eq "$((req1 - req0))" 0 "connections made again"
	else
		assert_ge "$((x1 - x0))" 1 "sends that failed with retry_cnt 0"
		assert_ge "$((req1 - req0))" 1 "connections made again"
	fi

	step "$drv: h2's port down"
	wait_for 20 pings_rc || fail "no ping over RC before h2's port went down"
	echo down >"$SIB/sib1/port1/state"
	fails_after "h2's port down"
	echo up >"$SIB/sib1/port1/state"
	wait_carrier h2 "$b"
	wait_for 30 pings || fail "no ping once h2's port is back"
	sib_counters sib0 1 | grep -E "drop_injected|$(tr ' ' '|' <<<"$COUNTERS")"

	# The in-tree driver's unload warns with connections still on its CQs.
	ip -n h1 link set "$a" down
	ip -n h2 link set "$b" down
	wait_for 30 no_rc_qps || fail "RC QPs left with the links down: $(rc_qps sib0), $(rc_qps sib1)"
	rmmod ib_ipoib
}

fabric_up devices=2 ports=1
mkdir -p www
head -c $((16 << 20)) /dev/urandom >www/blob
want=$(sha256sum <www/blob)
echo "blob: 16 MiB, sha256 ${want%% *}"
intree_up
run intree 10.41.0
ours_up
run ours 10.42.0
pass
