#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connected-mode receive memory does not grow with interfaces: the parent
# and its 15 P_Key children on sib0 (16 connected interfaces at MTU 65520,
# the most sib's 16-entry P_Key table allows) share one receive pool, one
# SRQ and its 64 KiB buffers, which starts small and follows the load.
#
#   h1: ib (sib0) + 15 children, connected  ===RC===  h2: ib (sib1) + 15
#       10.41.K.1 (K = 0 parent, 1-15 P_Key 0x80K)     10.41.K.2
#
# Asserted: the kernel memory the 16 interfaces take to go connected
# (MemAvailable before and after, idle) stays below one pool at its
# ceiling (512 buffers, 34 MB; before the pool, each interface posted its
# own 512: 16 times that); every interface counts the same pool of 16
# users with its start of 64 buffers; a 60000-byte ping on each partition
# reaches the interface that owns it (its cm_rx_packets); a burst on
# every child at once makes the pool grow (cm_rx_pool_grows), past its
# start but never past its ceiling, and once quiet it shrinks back to its
# start as traffic returns its buffers.  Alone on the pool, the parent's
# ethtool -G rx sets its ceiling.
#
# timeout: 600
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

N=15
stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }
mem_avail_kb() { awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo; }
pool_of() { stat_of h1 "$a" "cm_rx_pool_$1"; }
# shellcheck disable=SC2317 # called through wait_for
pool_at_most() { [ "$(pool_of buffers)" -le "$1" ]; }
# shellcheck disable=SC2317 # called through wait_for
target_is() { [ "$(pool_of target)" = "$1" ]; }

pkeys=0xffff
for k in $(seq 1 "$N"); do
	pkeys+=$(printf ',0x%04x' $((0x8000 + k)))
done
fabric_up devices=2 ports=1 "pkeys=$pkeys"
# Quiet after half a second, not five: the shrink is the same, sooner.
ours_up cm_pool_quiet_ms=500
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
ifs1=("$a")
ifs2=("$b")
for k in $(seq 1 "$N"); do
	p=$(printf '%04x' $((0x8000 + k)))
	ip link add link "$a" name "$a.$p" type ipoib pkey "0x$p"
	ip link add link "$b" name "$b.$p" type ipoib pkey "0x$p"
	ifs1+=("$a.$p")
	ifs2+=("$b.$p")
done
for k in $(seq 0 "$N"); do
	ib_host h1 "${ifs1[k]}" "10.41.$k.1/24"
	ib_host h2 "${ifs2[k]}" "10.41.$k.2/24"
done
for k in $(seq 0 "$N"); do
	wait_carrier h1 "${ifs1[k]}"
	wait_carrier h2 "${ifs2[k]}"
done

step "16 interfaces turn connected: one pool"
sync
echo 3 >/proc/sys/vm/drop_caches
m0=$(mem_avail_kb)
for k in $(seq 0 "$N"); do
	ip -n h1 link set "${ifs1[k]}" type ipoib mode connected
done
m1=$(mem_avail_kb)
used=$((m0 - m1))
echo "MemAvailable: $m0 kB before, $m1 kB after: $used kB for 16 connected interfaces, $((used / 16)) kB each"
on h1 ethtool -S "$a" | grep -E 'cm_rx_pool|rx_pages_new'
assert_eq "$(pool_of users)" 16 "interfaces using sib0 port 1's pool"
assert_eq "$(pool_of target)" 64 "the pool's start"
assert_eq "$(pool_of ceiling)" 512 "the pool's ceiling (recv_queue_size)"
assert_ge 64 "$(pool_of buffers)" "buffers posted while idle"
for k in $(seq 1 "$N"); do
	assert_eq "$(stat_of h1 "${ifs1[k]}" cm_rx_pool_users)" 16 "${ifs1[k]}: the same pool"
done
# One pool at its ceiling: 512 buffers of 17 pages.
assert_ge $((512 * 17 * 4)) "$used" "kB the 16 connected interfaces took"

step "each partition's packets reach its own interface"
for k in $(seq 0 "$N"); do
	ip -n h2 link set "${ifs2[k]}" type ipoib mode connected
done
for k in $(seq 0 "$N"); do
	on h2 ping -q -c 2 -i 0.2 -W 3 -s 60000 "10.41.$k.1" >/dev/null ||
		fail "no 60000-byte ping to 10.41.$k.1"
done
for k in $(seq 0 "$N"); do
	assert_ge "$(stat_of h1 "${ifs1[k]}" cm_rx_packets)" 2 "${ifs1[k]} received over RC"
done

step "a burst on every child: the pool grows"
# As an HCA does, the fabric executes sends in batches (a millisecond's
# worth) and raises completion events as interrupts on the CQs' CPUs, so
# receives complete while the polls are busy: buffers are out at once.
echo 1000 >/sys/module/sib/parameters/async_delay_us
echo 1 >/sys/module/sib/parameters/cq_irq
echo 1 >/sys/module/sib/parameters/async
rnr0=$(sib_counter sib0 1 rnr_naks)
for k in $(seq 1 "$N"); do
	ip netns exec h2 udpbench blast "10.41.$k.1" 9 4 60000 >"/tmp/blast-$k.log" &
done
wait
echo 0 >/sys/module/sib/parameters/async
echo 0 >/sys/module/sib/parameters/cq_irq
grows=$(pool_of grows)
max=$(pool_of buffers)
on h1 ethtool -S "$a" | grep -E 'cm_rx_pool|cm_rx_drop'
echo "RNR NAKs sib0 port 1 sent during the burst: $(($(sib_counter sib0 1 rnr_naks) - rnr0))"
assert_ge "$grows" 1 "times the pool grew"
assert_ge 512 "$max" "buffers, at most the ceiling"

step "quiet: the target halves back to the start, traffic frees the rest"
wait_for 60 target_is 64 || fail "target still $(pool_of target) after a minute of quiet"
assert_ge "$(pool_of shrinks)" 1 "times the pool shrank"
# Buffers beyond the target are freed as they come back: every message
# takes one, whatever its size, so many small pings cycle them fastest.
# shellcheck disable=SC2317 # called through wait_for
pings_bring_back() {
	ip netns exec h2 ping -q -c 100 -i 0.005 -W 2 10.41.0.1 >/dev/null || true
	pool_at_most 64
}
wait_for 120 pings_bring_back || fail "$(pool_of buffers) buffers after the shrink"
on h1 ethtool -S "$a" | grep -E 'cm_rx_pool'

step "children go: the pool stays the parent's, then goes with it"
for k in $(seq 1 "$N"); do
	ip -n h1 link del "${ifs1[k]}"
done
assert_eq "$(pool_of users)" 1 "users once the children are gone"
on h1 ping -q -c 2 -i 0.2 -W 3 -s 60000 10.41.0.2 >/dev/null || fail "parent lost its traffic"

step "ethtool -G rx sets the ceiling: the largest ring among the users"
on h1 ethtool -G "$a" rx 128
assert_eq "$(pool_of ceiling)" 128 "ceiling after -G rx 128"
on h1 ping -q -c 2 -i 0.2 -W 3 -s 60000 10.41.0.2 >/dev/null || fail "no traffic after -G rx 128"
on h1 ethtool -G "$a" rx 1024
assert_eq "$(pool_of ceiling)" 1024 "ceiling after -G rx 1024 (the pool made anew)"
on h1 ping -q -c 2 -i 0.2 -W 3 -s 60000 10.41.0.2 >/dev/null || fail "no traffic after -G rx 1024"
ip -n h1 link set "$a" type ipoib mode datagram
assert_eq "$(pool_of users)" 0 "users in datagram mode"
pass
