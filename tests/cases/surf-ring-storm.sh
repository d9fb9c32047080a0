#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ethtool -G again and again while a TCP stream fills the send ring.
# Every resize takes the data path down while sends are in flight and the
# queue wakes as completions come back: a send that slips past the down,
# once its ring is freed, leaves the ring's count off by one for good (a
# kernel warning on the next completion, a leaked skb).
# After the storm the stream has carried its bytes, no send failed, pings
# pass, and the send ring is empty once nothing is on its way.  Ours only:
# the in-tree driver has no ethtool -G (EOPNOTSUPP).
#
#   h1: A 10.41.0.1 ---- software fabric ---- h2: B 10.41.0.2
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

SECS=12
# Each send takes this long in the poster's context: a send that began
# before the down is still in the HCA when the drain looks.
SEND_DELAY_US=100
MIN_RESIZES=10

et_stat() {
	ip netns exec h1 ethtool -S "$a" |
		awk -v k="$1:" '{ sub(/^[ \t]+/, "") } $1 == k { print $2 }'
}
# shellcheck disable=SC2317 # called through wait_for
tx_ring_idle() { [ "$(et_stat tx_ring_outstanding)" = 0 ]; }

# storm DRIVER: resizes of h1's rings for as long as a TCP stream runs.
storm() {
	local iperf n=0 err0
	err0=$(netdev_stat "$a" tx_errors h1)
	iperf_bytes h2 10.41.0.2 h1 -t "$SECS" >iperf.out &
	iperf=$!
	while kill -0 "$iperf" 2>/dev/null; do
		if [ $((n % 2)) = 0 ]; then
			on h1 ethtool -G "$a" rx 256 tx 64 >/dev/null
		else
			on h1 ethtool -G "$a" rx 512 tx 128 >/dev/null
		fi
		n=$((n + 1))
	done
	wait "$iperf" || fail "$1: the TCP stream did not survive the resizes"
	echo "$1: $n resizes, $(cat iperf.out) bytes"
	assert_ge "$n" "$MIN_RESIZES" "$1: resizes during the stream"
	assert_ge "$(cat iperf.out)" 1000000 "$1: TCP bytes across the resizes"
	assert_eq "$(netdev_stat "$a" tx_errors h1)" "$err0" "$1: send errors"
	assert on h1 ping -c 3 -i 0.2 -W 2 10.41.0.2
	assert on h2 ping -c 3 -i 0.2 -W 2 10.41.0.1
}

step "ethtool -G again and again under a full send ring"
fabric_up devices=2 ports=1 send_delay_us=$SEND_DELAY_US
# Each resize takes the interface down and up, which asks for the paths
# and the broadcast group anew: an SA slower than a resize (the harsh
# fabric's sa_delay_ms=20, against about 13 ms a resize there) leaves the
# stream nothing to run on.  This case is about sends in flight, so the SA
# answers at once.
echo 0 >"$SIB/sa_delay_ms"
ours_up
two_hosts ib_ipoib 10.41.0
storm ours
wait_for 10 tx_ring_idle ||
	fail "$(et_stat tx_ring_outstanding) sends outstanding with nothing on its way"
pass
