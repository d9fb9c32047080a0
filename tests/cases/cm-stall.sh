#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One peer stops taking packets; the others must not notice.  h1 sends TCP
# to h2 over RC while it blasts UDP at h3 over RC and at h4 over UD, with
# small send rings (ethtool -G tx 64):
#
#   h1: ib (sib0) 10.9.0.1 connected, tx ring 64
#     ==RC==> h2: ib (sib1) 10.9.0.2 connected   TCP, must keep its rate
#     ==RC==> h3: ib (sib2) 10.9.0.3 connected   UDP blast; its port stalls
#     --UD--> h4: ib (sib3) 10.9.0.4 datagram    UDP blast
#
# The fabric stalls h3's port (it takes no receive buffers, so RC gets RNR
# NAKs).  h3's connection fills its ring and backlog and then drops, or
# fails over to UD after its few RNR retries; TCP to h2 keeps at least half
# the rate it had under the same load with nobody stalled; no send is ever
# posted into a full ring (tx_drop_ring_full stays 0, and the driver would
# warn); the watchdog never fires.  After the release h3 is reached again.
#
# Before the fix, a full connection ring stopped the interface's one queue
# and a completion on any other ring woke it, so the next packet for the
# full ring could overwrite a slot still in flight (a leaked skb that only
# kmemleak showed, now a room check and a warning); the stalled connection
# retried RNR forever.  Run on the old driver, this case kept TCP to h2 at
# full rate too: it guards the rules, and the debug tier its memory.
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

stat_of() { ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'; }

# load SECONDS: UDP blasts at h3 and h4 in the background and TCP to h2 in
# the foreground, all from h1; prints the bytes h2 received.
load() {
	ip netns exec h1 udpbench blast 10.9.0.3 9 "$1" 1400 >/tmp/blast3.log &
	ip netns exec h1 udpbench blast 10.9.0.4 9 "$1" 1400 >/tmp/blast4.log &
	iperf_bytes h2 10.9.0.2 h1 -t "$1"
	wait
	echo "to h3: $(cat /tmp/blast3.log)" >&2
	echo "to h4: $(cat /tmp/blast4.log)" >&2
}

fabric_up devices=4 ports=1
ours_up
for i in 0 1 2 3; do
	ifc[i]=$(wait_iface ib_ipoib "sib$i" 1)
done
for i in 0 1 2; do
	echo connected >"/sys/class/net/${ifc[i]}/mode"
done
a=${ifc[0]}
ethtool -G "$a" tx 64
for i in 0 1 2 3; do
	ib_host "h$((i + 1))" "${ifc[i]}" "10.9.0.$((i + 1))/24"
done
for i in 0 1 2 3; do
	wait_carrier "h$((i + 1))" "${ifc[i]}"
done
ip netns exec h1 ethtool -g "$a" | sed -n '/Current/,$p'
for i in 2 3 4; do
	assert on h1 ping -c 2 -i 0.2 -W 2 "10.9.0.$i"
done
cat "/sys/kernel/debug/ib_ipoib/$a/cm"

step "reference: TCP to h2 while h3 and h4 are blasted, nobody stalled"
ref=$(load 6)

step "h3's port stalls for the same load"
b0=$(($(stat_of h1 "$a" cm_tx_backlogged) + $(stat_of h1 "$a" cm_tx_drop_backlog)))
sib_stall sib2 1 1
stalled=$(load 6)
sib_counters sib2 1
sib_stall sib2 1 0
b1=$(($(stat_of h1 "$a" cm_tx_backlogged) + $(stat_of h1 "$a" cm_tx_drop_backlog)))
echo "TCP to h2: $ref bytes with nobody stalled, $stalled with h3 stalled"
ip netns exec h1 ethtool -S "$a" | grep -E 'cm_|tx_drop|tx_timeouts|tx_ring'
assert_ge "$((b1 - b0))" 1 "packets that found h3's connection ring full"
assert_ge "$((stalled * 2))" "$ref" "twice TCP bytes to h2 while h3 stalled, against the reference"

step "nothing was posted into a full ring, the watchdog never fired"
assert_eq "$(stat_of h1 "$a" tx_drop_ring_full)" 0 "tx_drop_ring_full"
assert_eq "$(stat_of h1 "$a" tx_timeouts)" 0 "tx_timeouts"
! dmesg | grep -q "transmit timed out" || fail "the watchdog reset the data path"

step "h3 is reached again after the release"
wait_for 30 ip netns exec h1 ping -c 1 -W 1 10.9.0.3 || fail "h3 unreachable after the release"
tcp_exact h3 10.9.0.3 h1 8 "TCP to h3 after the release"
assert on h1 ping -c 2 -i 0.2 -W 2 10.9.0.2
pass
