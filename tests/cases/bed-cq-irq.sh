#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fabric raises completion events as an HCA does (sib cq_irq=1): an
# interrupt on the CPU of the CQ's vector, not a call in the poster's
# context.  Ours and the in-tree driver talk over it in both modes; every
# event went the interrupt's way, some to the other CPU; switched back at
# run time, events are raised inline again.  Polls there reap several
# packets at once: what says that small ones, which may skip GRO, never
# overtake a large one it holds.
#
#   h1: ipoib_alt (sib0) 10.9.0.1  ===UD, then RC===  h2: in-tree ib_ipoib (sib1) 10.9.0.2
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

events() { awk -v k="$2" '$1 == k { print $2 }' "$SIB/$1/cq_events"; }

interop_up cq_irq=1
ib_host h1 "$ours" 10.9.0.1/24
ib_host h2 "$theirs" 10.9.0.2/24
wait_carrier h1 "$ours"
wait_carrier h2 "$theirs"

step "datagram mode: pings both ways, datagrams in order"
assert on h1 ping -c 3 -i 0.2 -W 3 10.9.0.2
assert on h2 ping -c 3 -i 0.2 -W 3 -s 1500 10.9.0.1
udp_in_order h1 10.9.0.1 h2 64:1400

step "connected mode, MTU 65520: pings and TCP both ways, datagrams in order"
on h1 sh -c "echo connected >/sys/class/net/$ours/mode"
on h2 sh -c "echo connected >/sys/class/net/$theirs/mode"
ip -n h1 link set "$ours" mtu 65520
ip -n h2 link set "$theirs" mtu 65520
assert_eq "$(ip netns exec h1 cat "/sys/class/net/$ours/mode")" connected "our mode"
assert_eq "$(ip netns exec h2 cat "/sys/class/net/$theirs/mode")" connected "in-tree mode"
assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 10.9.0.2
assert on h2 ping -c 3 -i 0.2 -W 3 -s 60000 10.9.0.1
tcp_exact h2 10.9.0.2 h1 16 "TCP ours -> in-tree"
tcp_exact h1 10.9.0.1 h2 16 "TCP in-tree -> ours"
udp_in_order h1 10.9.0.1 h2 64:8000

step "every CQ event was an interrupt, some on the other CPU"
for d in sib0 sib1; do
	echo "$d: $(tr '\n' ' ' <"$SIB/$d/cq_events")"
	assert_eq "$(events "$d" inline)" 0 "$d events raised in the poster's context"
	assert_ge "$(events "$d" irq_remote)" 1 "$d events raised on the other CPU"
	assert_ge $(($(events "$d" irq_local) + $(events "$d" irq_remote))) 20 "$d events raised as interrupts"
done

step "cq_irq=0 at run time: events inline again"
echo 0 >/sys/module/sib/parameters/cq_irq
irq0=$(($(events sib1 irq_local) + $(events sib1 irq_remote)))
assert on h1 ping -c 3 -i 0.2 -W 3 -s 60000 10.9.0.2
assert_ge "$(events sib1 inline)" 3 "sib1 events inline"
assert_eq $(($(events sib1 irq_local) + $(events sib1 irq_remote))) "$irq0" "sib1 events as interrupts after the switch"
pass
