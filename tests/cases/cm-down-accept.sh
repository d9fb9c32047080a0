#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A connection ended while its accept still runs.  cmprobe sends h2 one
# good REQ (no RTU) at a time; the fabric holds the connection's QP on its
# way to RTR (sib rtr_hold), so that h2's CM handler stays in the accept
# until the case lets it go, once h2's link is going down.  The CM keeps
# the listen the REQ came on until the handler returns, and the down
# stops listening first: the down waits for the accept (seen in its kernel
# stack), which then ends with a REP; the down then ends the half-made
# connection with the CM's REJ (Consumer Reject): only the CM's takes the
# REP back (cm-down-rep).
#
# (A second kind, the set-up deadline's reaper ending the connection while
# the handler still runs, is not a case yet: with the hold, the probe's REQ
# sometimes timed out instead of seeing our REJ.)
#
# One REQ counted on h2, no REJ of ours, nothing established, no
# connection nor QP left.  The kernel log must stay clean (a refcount
# underflow or a use after free fails the case).  No SRQ (sib srq=0), so
# that the accept has a receive ring to fill and free too.  Then h1 and
# h2 still ping over a connection.
#
#   cmprobe (sib0) --REQ--> h2: ib (sib1)  down, up
#   h1: ib (sib0) 10.16.0.1     10.16.0.2
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

PROBE=/sys/kernel/debug/cmprobe/probe
stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
field() { awk -v k="$1" '$1 == k { print $2 }' <<<"$out"; }
qps() { awk '$1 == "qps" { print $2 }' "$SIB/sib1/resources"; }
# shellcheck disable=SC2317 # called through wait_for
held_is() { [ "$(cat "$SIB/rtr_hold")" = "$1" ]; }
# shellcheck disable=SC2317
accepting() { grep -q ' connecting passive ' "$cm"; }
# shellcheck disable=SC2317
no_conn() { ! grep -q ' passive \| initiator ' "$cm"; }
# shellcheck disable=SC2317
qps_are() { [ "$(qps)" = "$1" ]; }
# shellcheck disable=SC2317
running() { kill -0 "$1" 2>/dev/null; }
# shellcheck disable=SC2317 # the down waits for the accept's handler
down_waits() { grep -q 'cm_destroy_id' "/proc/$1/stack" && grep -q ipoib_cm_down "/proc/$1/stack"; }
# shellcheck disable=SC2317
stat_is() { [ "$(stat_of h2 "$b" "$1")" = "$2" ]; }
# shellcheck disable=SC2317
stat_ge() { [ "$(stat_of h2 "$b" "$1")" -ge "$2" ]; }

fabric_up devices=2 ports=1 srq=0
ours_up
two_hosts --connected ib_ipoib 10.16.0
modprobe cmprobe
dgid=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)
cm=/sys/kernel/debug/ib_ipoib/$b/cm
# A case that fails midway must not leave the next command stuck on it.
trap 'echo 0 >"$SIB/rtr_hold"' EXIT

# round KIND: one REQ, held in the accept, ended as KIND says.
round() {
	local kind=$1 q0 reqs rejs est tmo t0 prober downer qpn pd
	qpn=$(ip netns exec h2 cat "/sys/class/net/$b/address" | cut -d: -f2-4 | tr -d :)
	q0=$(qps)
	reqs=$(stat_of h2 "$b" cm_reqs_received)
	rejs=$(stat_of h2 "$b" cm_rejects_sent)
	est=$(stat_of h2 "$b" cm_established)
	tmo=$(stat_of h2 "$b" cm_connect_timeouts)
	t0=$SECONDS
	echo 1 >"$SIB/rtr_hold"
	# cm_timeout=21: the REQ waits 25 s for its answer, past the deadline.
	echo "dev=sib0 dgid=$dgid qpn=0x$qpn pdata=good rtu=no cm_timeout=21" >"$PROBE" &
	prober=$!
	wait_for 20 held_is 1 || fail "$kind: no QP of h2 held on its way to RTR"
	wait_for 10 accepting || fail "$kind: h2 shows no connection being accepted"
	if [ "$kind" = down ]; then
		ip -n h2 link set "$b" down &
		downer=$!
		wait_for 20 down_waits "$downer" ||
			fail "down: the down did not come to wait for the accept"
		assert held_is 1
		echo "0 >rtr_hold"
		echo 0 >"$SIB/rtr_hold"
		wait "$downer" || fail "down: ip link set down failed"
		wait "$prober" || fail "down: the probe failed"
	else
		# The reaper ends it: no rtnl is held, ethtool answers.
		wait_for 20 stat_is cm_connect_timeouts $((tmo + 1)) ||
			fail "reaped: no connect timeout counted on h2"
		wait_for 10 no_conn || fail "reaped: the connection is still listed"
		wait_for 10 stat_ge cm_rejects_sent $((rejs + 1)) ||
			fail "reaped: no REJ counted for the ended connection"
		# The REJ went out while the handler still runs.
		wait "$prober" || fail "reaped: the probe failed"
		assert held_is 1
		echo "0 >rtr_hold"
		echo 0 >"$SIB/rtr_hold"
	fi
	wait_for 10 held_is 0 || fail "$kind: the held QP did not go on"
	out=$(cat "$PROBE")
	while IFS= read -r line; do echo "   | $line"; done <<<"$out"
	if [ "$kind" = down ]; then
		assert_eq "$(field outcome)" rep "down: the accept finished first"
		assert_eq "$(field teardown)" rej "down: how h2 ended the half-made connection"
		assert_eq "$(field teardown_reason)" "28" "down: REJ reason (the CM's Consumer Reject)"
		pd=''
		ip -n h2 link set "$b" up
		wait_carrier h2 "$b"
	else
		assert_eq "$(field outcome)" rej "reaped: the answer to the REQ"
		assert_eq "$(field reason)" "4" "reaped: REJ reason (Timeout)"
		pd=$(field pdata)
	fi
	[ -z "$pd" ] || assert_eq "${pd:0:8}" "00$qpn" "$kind: h2's UD QPN in its REJ"
	wait_for 10 qps_are "$q0" || fail "$kind: h2's QPs: $(qps), expected $q0"
	wait_for 5 no_conn || fail "$kind: a connection is left on h2"
	assert_eq "$(stat_of h2 "$b" cm_reqs_received)" $((reqs + 1)) "$kind: REQs received"
	[ "$kind" = down ] || rejs=$((rejs + 1))
	assert_eq "$(stat_of h2 "$b" cm_rejects_sent)" "$rejs" "$kind: REJs of ours sent"
	assert_eq "$(stat_of h2 "$b" cm_established)" "$est" "$kind: established"
	echo "$kind: round done in $((SECONDS - t0)) s"
}

t0=$SECONDS
step "a REQ held in h2's accept, then: down"
round down
echo "done in $((SECONDS - t0)) s"
on h2 ethtool -S "$b" | grep -E 'cm_(reqs_rec|rejects_sent|established|connections|connect_timeouts)'

step "h1 <-> h2 over a connection afterwards"
t1=$(stat_of h1 "$a" cm_tx_packets)
assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 10.16.0.2
assert_ge "$(( $(stat_of h1 "$a" cm_tx_packets) - t1 ))" 3 "h1 sent over a connection"
pass
