#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Joining the broadcast group gives the interface its Q_Key, which the UD
# QP must take before it can receive anything: every datagram a peer sends
# carries it.  When the HCA refuses the change, the join has failed: it is
# tried again, and the carrier comes on only with the Q_Key in place.
# Before the fix the refusal was logged and the interface came up all the
# same, deaf: every datagram to it a Q_Key violation at its port.
#
#   h1: sib0 10.13.0.1 (its first Q_Key change refused) --- h2: sib1 10.13.0.2
#
# sib's fail_qkey_set refuses the change; the in-tree driver goes through
# the same (the witness).
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }

# shellcheck disable=SC2317 # called through wait_for
refused_all() { [ "$(cat "$SIB/fail_qkey_set")" = 0 ]; }

# run DRIVER: h1 and h2 on DRIVER's interfaces (sets a and b), h1 first,
# its first Q_Key change refused; then pings both ways.
run() {
	local drv=$1 v0 v1
	a=$(wait_iface ib_ipoib sib0 1)
	b=$(wait_iface ib_ipoib sib1 1)
	echo 1 >"$SIB/fail_qkey_set"
	ib_host h1 "$a" 10.13.0.1/24
	wait_for 10 refused_all || fail "h1 changed no Q_Key"
	ib_host h2 "$b" 10.13.0.2/24
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
	dmesg | grep -iE "q_?key|modify QP" || true
	v0=$(sib_counter sib0 1 qkey_violations)
	assert on h2 ping -c 3 -i 0.2 -W 2 10.13.0.1
	assert on h1 ping -c 3 -i 0.2 -W 2 10.13.0.2
	v1=$(sib_counter sib0 1 qkey_violations)
	echo "$drv: Q_Key violations at h1's port: $v0 -> $v1"
	assert_eq "$((v1 - v0))" 0 "datagrams h1's QP refused"
}

fabric_up devices=2 ports=1

step "ours: the first Q_Key change refused, the join tried again"
ours_up
run ours
on h1 ethtool -S "$a" | grep -E 'mcast_join'
assert_ge "$(stat_of h1 "$a" mcast_join_failures)" 1 "failed joins counted"
rmmod ib_ipoib
ip netns del h1
ip netns del h2

step "witness: the in-tree driver"
intree_up
run in-tree
pass
