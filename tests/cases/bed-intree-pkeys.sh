#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Partitions on the test bed, with Debian's ib_ipoib: children made through
# sysfs create_child and through `ip link add ... type ipoib pkey`, traffic
# across each partition, and no traffic between different partitions.
#
#   h1: ib0.8001 10.81.0.1  ===  h2: ib1.8001 10.81.0.2   (sysfs children)
#   h3: ib0.8002 10.82.0.1  ===  h4: ib1.8002 10.82.0.2   (netlink children)
#   h5: ib0.8003 10.83.0.1  =/=  h6: ib1.8004 10.83.0.2   (other partitions)
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=2 ports=1 pkeys=0xffff,0x8001,0x8002,0x8003,0x8004
intree_up
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
ip link set "$a" up
ip link set "$b" up

step "children through sysfs"
echo 0x8001 >"/sys/class/net/$a/create_child"
echo 0x8001 >"/sys/class/net/$b/create_child"
assert_eq "$(cat "/sys/class/net/$a.8001/pkey")" 0x8001 "child pkey"
assert_eq "$(cat "/sys/class/net/$a.8001/parent")" "$a" "child parent"
ib_host h1 "$a.8001" 10.81.0.1/24
ib_host h2 "$b.8001" 10.81.0.2/24

step "children through netlink"
ip link add link "$a" name "$a.8002" type ipoib pkey 0x8002
ip link add link "$b" name "$b.8002" type ipoib pkey 0x8002
ip -d link show "$a.8002" | tee /dev/stderr | grep -q "pkey  *0x8002" ||
	fail "ip -d link does not show pkey 0x8002"
ib_host h3 "$a.8002" 10.82.0.1/24
ib_host h4 "$b.8002" 10.82.0.2/24

step "children in different partitions"
echo 0x8003 >"/sys/class/net/$a/create_child"
echo 0x8004 >"/sys/class/net/$b/create_child"
ib_host h5 "$a.8003" 10.83.0.1/24
ib_host h6 "$b.8004" 10.83.0.2/24

for p in "h1 $a.8001" "h2 $b.8001" "h3 $a.8002" "h4 $b.8002" "h5 $a.8003" "h6 $b.8004"; do
	# shellcheck disable=SC2086
	wait_carrier $p
done

step "traffic inside each partition"
assert on h1 ping -c 3 -i 0.2 -W 2 10.81.0.2
assert on h3 ping -c 3 -i 0.2 -W 2 10.82.0.2

step "nothing between partitions"
if on h5 ping -c 2 -W 1 10.83.0.2; then
	fail "0x8003 reached 0x8004"
fi
# Forge the neighbour, so that unicast does leave h5: the receiving port
# must refuse it on the P_Key.
mac6=$(ip netns exec h6 cat "/sys/class/net/$b.8004/address")
on h5 ip neigh replace 10.83.0.2 lladdr "$mac6" dev "$a.8003" nud permanent
v0=$(sib_counter sib1 1 pkey_violations)
if on h5 ping -c 3 -i 0.2 -W 1 10.83.0.2; then
	fail "0x8003 reached 0x8004 with a forged neighbour"
fi
sib_counters sib1 1
assert_ge "$(( $(sib_counter sib1 1 pkey_violations) - v0 ))" 3 "P_Key violations counted"

step "children go away"
echo 0x8001 >"/sys/class/net/$a/delete_child"
if ip -n h1 link show "$a.8001" 2>/dev/null; then
	fail "sysfs child still there"
fi
ip -n h3 link del "$a.8002"
if ip -n h3 link show "$a.8002" 2>/dev/null; then
	fail "netlink child still there"
fi
pass
