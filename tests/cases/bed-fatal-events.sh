#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Errors an HCA reports on its own, raised on demand (sib debugfs): the UD
# QP of h1's interface made fatal (sibN/qp_fatal), its receive CQ put in
# error (sibN/cq_err), a connection's RC QP made fatal under TCP, and the
# whole HCA dead (sibN/fatal).  Each time the fabric flushes the work the
# QP held (wr_flushed) and raises the event (async_events).  The in-tree
# driver first: what it does is shown for 3 s, not judged (it has no handler for
# any of them).  Then ours: pings answered again within a bound after the
# QP and the CQ failed, each counted once in ethtool -S with one kernel
# log line; a new connection carries the whole TCP stream after its QP
# failed; a dead HCA takes the carrier away, and says why.
#
# The in-tree driver skips the RC step: with its RC QPs made fatal, its
# stream stalled (for 222 s once, past 30 s in two more runs), and once
# its unload then warned "Destroy of kernel CQ shouldn't fail" (a QP of
# a connection left on its CQs), which fails any case.
#
#   h1: sib0 10.33.0.1 ==== switch ==== h2: sib1 10.33.0.2
#
# timeout: 600
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

NET=10.33.0

# ud_qpn NS IFACE: the UD QPN, bytes 1-3 of the link address.
ud_qpn() {
	ip -n "$1" -o link show dev "$2" |
		sed -n 's|.*link/infiniband [0-9a-f]*:\([0-9a-f]*\):\([0-9a-f]*\):\([0-9a-f]*\):.*|0x\1\2\3|p'
}

# qp_field IBDEV QPN FIELD: a field of the QP's line in sibN/qps.
qp_field() {
	awk -v q="$(printf '0x%x' "$2")" -v k="$3" '$2 == q {
		for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$SIB/$1/qps"
}

# async IBDEV KIND raised|handled: sibN/async_events.
async() {
	awk -v k="$2" -v w="$3" '$1 == k { for (i = 2; i < NF; i += 2) if ($i == w) print $(i + 1) }' \
		"$SIB/$1/async_events"
}

# estat NS IFACE NAME: an ethtool -S figure.
estat() { ip netns exec "$1" ethtool -S "$2" | awk -v n="$3:" '$1 == n { print $2 }'; }

# shellcheck disable=SC2317 # called through wait_for
reaches() { ip netns exec h1 ping -c 1 -W 1 "$NET.2"; }
# shellcheck disable=SC2317 # called through wait_for
carrier_off() { ! carrier_is_on h1 "$a"; }

logged() { dmesg | grep -c -- "$1" || true; }

# more_than N CMD...: CMD prints a number above N.
# shellcheck disable=SC2317 # called through wait_for
more_than() { [ "$("${@:2}")" -gt "$1" ]; }
# qp_failed IBDEV QPN: the QP is in error, or already destroyed.
# shellcheck disable=SC2317 # called through wait_for
qp_failed() { [ "$(qp_field "$1" "$2" state)" != RTS ]; }

# hosts DRIVER [--connected]: a fresh pair on a freshly loaded DRIVER.
hosts() {
	local h
	for h in h1 h2; do
		[ -e "/run/netns/$h" ] || continue
		ip netns pids "$h" | xargs -r kill 2>/dev/null || true
	done
	ip netns del h1 2>/dev/null || true
	ip netns del h2 2>/dev/null || true
	! lsmod | grep -q '^ib_ipoib ' || rmmod ib_ipoib
	if [ "$1" = in-tree ]; then intree_up; else ours_up; fi
	two_hosts ${2:+"$2"} ib_ipoib "$NET"
	assert on h1 ping -c 2 -i 0.2 -W 2 "$NET.2"
}

# pinging: h2 pings h1 in the background while a fault is raised (4 s at
# most); stop_pinging once the fault has met it.
pinging() {
	ip netns exec h2 ping -q -i 0.1 -w 4 "$NET.1" >/dev/null 2>&1 &
	pinger=$!
}
stop_pinging() {
	kill "$pinger" 2>/dev/null || true
	wait "$pinger" || true
}

qp_fatal() {
	local drv=$1 qpn f0 r0 h0 t0
	step "$drv: h1's UD QP fatal while pings run"
	hosts "$drv"
	qpn=$(ud_qpn h1 "$a")
	echo "h1's UD QP: $qpn, $(grep -w "qpn $(printf '0x%x' "$qpn")" "$SIB/sib0/qps")"
	f0=$(sib_counter sib0 1 wr_flushed)
	r0=$(async sib0 qp_fatal raised)
	h0=$(async sib0 qp_fatal handled)
	pinging
	wait_for 5 reaches || fail "$drv: no ping before the fault"
	echo "$qpn" >"$SIB/sib0/qp_fatal"
	t0=$SECONDS
	wait_for 10 more_than "$r0" async sib0 qp_fatal raised || fail "$drv: no QP_FATAL raised"
	echo "$drv: QP $qpn now $(qp_field sib0 "$qpn" state)"
	echo "$drv: flushed $(($(sib_counter sib0 1 wr_flushed) - f0)) work requests; QP_FATAL raised $(($(async sib0 qp_fatal raised) - r0)), to a handler $(($(async sib0 qp_fatal handled) - h0))"
	assert_ge "$(($(sib_counter sib0 1 wr_flushed) - f0))" 1 "$drv: work requests flushed"
	stop_pinging
	if [ "$drv" = in-tree ]; then
		if wait_for 3 reaches; then
			echo "in-tree: answers again after $((SECONDS - t0)) s"
		else
			echo "in-tree: no answer 3 s after QP_FATAL (its UD QP has no event handler; QP $(qp_field sib0 "$qpn" state))"
		fi
		return
	fi
	wait_for 10 reaches || fail "ours: no answer 10 s after QP_FATAL"
	echo "ours: answers again after $((SECONDS - t0)) s"
	assert_eq "$(($(async sib0 qp_fatal handled) - h0))" 1 "ours: QP_FATAL events a handler took"
	assert_eq "$(estat h1 "$a" ud_qp_fatal)" 1 "ours: ud_qp_fatal"
	assert_eq "$(estat h1 "$a" hw_recoveries)" 1 "ours: hw_recoveries"
	assert_eq "$(logged "UD QP $qpn: .*; restarting the data path")" 1 "ours: log lines"
	assert_eq "$(ud_qpn h1 "$a")" "$qpn" "ours: the QPN after the restart"
	assert_eq "$(qp_field sib0 "$qpn" state)" RTS "ours: the QP's state"
	assert on h2 ping -c 3 -i 0.2 -W 2 "$NET.1"
}

cq_err() {
	local drv=$1 qpn cqn r0 h0 t0
	step "$drv: h1's UD receive CQ in error while pings run"
	hosts "$drv"
	qpn=$(ud_qpn h1 "$a")
	cqn=$(qp_field sib0 "$qpn" rcq)
	[ -n "$cqn" ] || fail "no receive CQ for QP $qpn in $SIB/sib0/qps"
	echo "h1's UD QP $qpn completes receives on CQ $cqn"
	r0=$(async sib0 cq_err raised)
	h0=$(async sib0 cq_err handled)
	pinging
	wait_for 5 reaches || fail "$drv: no ping before the fault"
	echo "$cqn" >"$SIB/sib0/cq_err"
	t0=$SECONDS
	wait_for 10 more_than "$r0" async sib0 cq_err raised || fail "$drv: no CQ_ERR raised"
	# Its QP follows it into error (ours may have destroyed it already).
	wait_for 5 qp_failed sib0 "$qpn" || fail "$drv: QP $qpn still in RTS after its CQ failed"
	echo "$drv: CQ_ERR raised $(($(async sib0 cq_err raised) - r0)), to a handler $(($(async sib0 cq_err handled) - h0))"
	stop_pinging
	if [ "$drv" = in-tree ]; then
		echo "in-tree: QP $qpn: $(qp_field sib0 "$qpn" state); CQs:"
		cat "$SIB/sib0/cqs"
		if wait_for 3 reaches; then
			echo "in-tree: answers again after $((SECONDS - t0)) s"
		else
			echo "in-tree: no answer 3 s after CQ_ERR (no handler on its CQs)"
		fi
		return
	fi
	wait_for 20 reaches || fail "ours: no answer 20 s after CQ_ERR"
	echo "ours: answers again after $((SECONDS - t0)) s, QPN $qpn -> $(ud_qpn h1 "$a")"
	assert_eq "$(($(async sib0 cq_err handled) - h0))" 1 "ours: CQ_ERR events a handler took"
	assert_eq "$(estat h1 "$a" ud_cq_errors)" 1 "ours: ud_cq_errors"
	assert_eq "$(estat h1 "$a" hw_recoveries)" 1 "ours: hw_recoveries"
	assert_eq "$(logged "a UD completion queue: .*; making new queues")" 1 "ours: log lines"
	assert_eq "$(logged "never completed")" 0 "ours: drain timeouts logged"
	[ "$(ud_qpn h1 "$a")" != "$qpn" ] || fail "ours: the same QPN on new queues"
	# The CQ in error is gone with its QP: none left in error.
	! grep -q 'error 1' "$SIB/sib0/cqs" || fail "ours: a CQ in error is still there: $(cat "$SIB/sib0/cqs")"
	assert on h2 ping -c 3 -i 0.2 -W 2 "$NET.1"
}

# rc_rts IBDEV: the QPNs of its RC QPs in RTS.
rc_rts() { awk '$4 == "RC" && $6 == "RTS" { print $2 }' "$SIB/$1/qps"; }

rc_fatal() {
	local drv=$1 q n=0 c0 pid r0 f0
	step "$drv: connected mode, h1's RC QPs fatal under TCP"
	if [ "$drv" = in-tree ]; then
		echo "in-tree: not run (its unload may warn after it: see the top of this file)"
		return 0
	fi
	hosts "$drv" --connected
	assert on h1 ping -c 2 -i 0.2 -W 3 -s 60000 "$NET.2"
	[ -n "$(rc_rts sib0)" ] || fail "$drv: no RC QP of h1's in RTS"
	r0=$(async sib0 qp_fatal raised)
	f0=$(sib_counter sib0 1 wr_flushed)
	c0=$(sib_ipoib_count sib0 1 rc ipv4)
	( tcp_exact h2 "$NET.2" h1 32 "$drv: 32 MiB h1 -> h2 across an RC QP fatal" ) &
	pid=$!
	wait_for 30 more_than $((c0 + 50)) sib_ipoib_count sib0 1 rc ipv4 ||
		fail "$drv: the stream does not go over RC"
	for q in $(rc_rts sib0); do
		echo "$q" >"$SIB/sib0/qp_fatal"
		n=$((n + 1))
	done
	echo "$drv: $n RC QPs of h1's made fatal, $(($(sib_ipoib_count sib0 1 rc ipv4) - c0)) messages into the stream"
	wait_for 60 pid_gone "$pid" || fail "ours: the stream not complete 60 s after the fault"
	wait "$pid" || fail "ours: the stream did not complete"
	echo "$drv: flushed $(($(sib_counter sib0 1 wr_flushed) - f0)); QP_FATAL raised $(($(async sib0 qp_fatal raised) - r0))"
	assert_eq "$(($(async sib0 qp_fatal raised) - r0))" "$n" "$drv: QP_FATAL raised"
	assert_ge "$(estat h1 "$a" cm_qp_fatal)" 1 "ours: cm_qp_fatal"
	assert_ge "$(logged "; ending it")" 1 "ours: log lines"
	assert_ge "$(estat h1 "$a" cm_established)" 2 "ours: connections made (one again)"
	assert on h1 ping -c 2 -i 0.2 -W 3 -s 60000 "$NET.2"
}

dev_fatal() {
	local drv=$1
	step "$drv: the HCA under h1 dies"
	hosts "$drv"
	echo 1 >"$SIB/sib0/fatal"
	assert_eq "$(async sib0 device_fatal raised)" 1 "DEVICE_FATAL raised"
	assert_eq "$(cat "$SIB/sib0/port1/state")" DOWN "sib0 port 1 after fatal"
	! echo up >"$SIB/sib0/port1/state" 2>/dev/null || fail "a dead HCA's port came up"
	if [ "$drv" = in-tree ]; then
		if wait_for 3 carrier_off; then
			echo "in-tree: carrier off"
		else
			echo "in-tree: carrier still on 3 s after DEVICE_FATAL (it does not handle it)"
		fi
	else
		wait_for 5 carrier_off || fail "ours: carrier still on after DEVICE_FATAL"
		assert_eq "$(logged "sib0 reported a fatal error; no carrier")" 1 "ours: log lines"
		assert_eq "$(estat h1 "$a" device_fatal)" 1 "ours: device_fatal"
	fi
	! ip netns exec h1 ping -c 1 -W 1 "$NET.2" >/dev/null || fail "$drv: a ping crossed a dead HCA"
	# Only teardown works now: the interfaces, then the fabric, go.
	ip netns del h1
	ip netns del h2
	rmmod ib_ipoib
	rmmod sib
}

for drv in in-tree ours; do
	fabric_up devices=2 ports=1
	[ "$drv" = in-tree ] || step "ours"
	qp_fatal "$drv"
	cq_err "$drv"
	rc_fatal "$drv"
	dev_fatal "$drv"
done
pass
