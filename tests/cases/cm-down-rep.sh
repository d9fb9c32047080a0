#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A link goes down while one of its connections waits for the RTU that
# would complete it: h2 has answered cmprobe's REQ with a REP, and the
# probe (rtu=no) never sends the RTU.  The down must end that connection
# at once: the CM takes back the REP, a REJ reaches the probe, and the
# REP is not sent again.  A REJ of the driver's own would have left the
# REP to run out its retries first (8.6 s each, cm_timeout=21), with the
# down waiting for them under rtnl.
#
# Shown through ib_cm's own port counters: the probe's port received one
# REP (cm_rx_msgs), and no second one by the time the down has returned;
# h2's port counts a REP's sends when it is done with it (cm_tx_msgs, 1
# plus its retries).  The probe's view: REP, then REJ.  Then h1 and h2 still ping over a
# connection.  The in-tree driver first, as the witness.
#
#   cmprobe (sib0) --REQ--> h2: ib (sib1)  <-- REP (no RTU); down, up
#   h1: ib (sib0) 10.17.0.1     10.17.0.2
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

PROBE=/sys/kernel/debug/cmprobe/probe
# REPs that reached the probe's port; REP sends h2's port is done with.
reps_seen() { cat /sys/class/infiniband/sib0/ports/1/cm_rx_msgs/rep; }
reps_sent() { cat /sys/class/infiniband/sib1/ports/1/cm_tx_msgs/rep; }
field() { awk -v k="$1" '$1 == k { print $2 }' <<<"$out"; }
# shellcheck disable=SC2317 # called through wait_for
reps_seen_are() { [ "$(reps_seen)" = "$1" ]; }

# story WHO: the down while h2's REP waits for its RTU, over the driver
# loaded as ib_ipoib.
story() {
	local who=$1 qpn dgid seen0 sent0 prober t0
	two_hosts --connected ib_ipoib 10.17.0
	dgid=$(cat /sys/class/infiniband/sib1/ports/1/gids/0)
	qpn=$(ip netns exec h2 cat "/sys/class/net/$b/address" | cut -d: -f2-4 | tr -d :)

	step "$who: a REQ answered with a REP, no RTU"
	seen0=$(reps_seen)
	sent0=$(reps_sent)
	echo "dev=sib0 dgid=$dgid qpn=0x$qpn pdata=good rtu=no cm_timeout=21" >"$PROBE" &
	prober=$!
	wait_for 20 reps_seen_are $((seen0 + 1)) || fail "$who: no REP reached the probe"
	echo "the probe's port: a REP received"

	step "$who: h2's link down"
	t0=$SECONDS
	ip -n h2 link set "$b" down
	echo "the down returned after $((SECONDS - t0)) s"
	assert_eq "$(reps_seen)" $((seen0 + 1)) "$who: REPs at the probe's port once the down returned"
	wait "$prober" || fail "$who: the probe failed"
	echo "h2's port: the REP sent $(($(reps_sent) - sent0)) times"
	out=$(cat "$PROBE")
	while IFS= read -r line; do echo "   | $line"; done <<<"$out"
	assert_eq "$(field outcome)" rep "$who: the answer to the REQ"
	assert_eq "$(field teardown)" rej "$who: how h2 ended the half-made connection"

	step "$who: h1 <-> h2 over a connection afterwards"
	ip -n h2 link set "$b" up
	wait_carrier h2 "$b"
	assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 10.17.0.2
	ip netns del h1
	ip netns del h2
}

fabric_up devices=2 ports=1
modprobe cmprobe

step "the in-tree driver (witness)"
intree_up
story in-tree
rmmod ib_ipoib

step "ours"
ours_up
story ours
pass
