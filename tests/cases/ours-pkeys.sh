#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Partitions, written once and checked with both drivers: first Debian's
# in-tree ib_ipoib (the test bed: the fabric's P_Key rules are fair), then
# ours.  Children through sysfs create_child and through `ip link add ...
# type ipoib pkey` carry traffic; different partitions cannot reach each
# other, and the receiving port counts the violation; children go away.
# Ours only: bad P_Keys are refused and change nothing, and a child whose
# P_Key is not in the port's table waits, then comes up when the SM adds it.
#
#   h1: ib0.8001 10.81.0.1  ===  h2: ib1.8001 10.81.0.2   (sysfs children)
#   h3: ib0.8002 10.82.0.1  ===  h4: ib1.8002 10.82.0.2   (netlink children)
#   h5: ib0.8003 10.83.0.1  =/=  h6: ib1.8004 10.83.0.2   (other partitions)
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

# partitions LOAD_COMMAND...: load a driver, make the children, check
# traffic inside and nothing between partitions.
partitions() {
	local mac6 v0 p
	"$@"
	a=$(wait_iface ib_ipoib sib0 1)
	b=$(wait_iface ib_ipoib sib1 1)
	ip link set "$a" up
	ip link set "$b" up

	step "$1: children through sysfs"
	echo 0x8001 >"/sys/class/net/$a/create_child"
	echo 0x8001 >"/sys/class/net/$b/create_child"
	assert_eq "$(cat "/sys/class/net/$a.8001/pkey")" 0x8001 "child pkey"
	assert_eq "$(cat "/sys/class/net/$a.8001/parent")" "$a" "child parent"
	ib_host h1 "$a.8001" 10.81.0.1/24
	ib_host h2 "$b.8001" 10.81.0.2/24

	step "$1: children through netlink"
	ip link add link "$a" name "$a.8002" type ipoib pkey 0x8002
	ip link add link "$b" name "$b.8002" type ipoib pkey 0x8002
	ip -d link show "$a.8002" | tee /dev/stderr | grep -q "pkey  *0x8002" ||
		fail "ip -d link does not show pkey 0x8002"
	ib_host h3 "$a.8002" 10.82.0.1/24
	ib_host h4 "$b.8002" 10.82.0.2/24

	step "$1: children in different partitions"
	echo 0x8003 >"/sys/class/net/$a/create_child"
	echo 0x8004 >"/sys/class/net/$b/create_child"
	ib_host h5 "$a.8003" 10.83.0.1/24
	ib_host h6 "$b.8004" 10.83.0.2/24
	for p in "h1 $a.8001" "h2 $b.8001" "h3 $a.8002" "h4 $b.8002" "h5 $a.8003" "h6 $b.8004"; do
		# shellcheck disable=SC2086
		wait_carrier $p
	done

	step "$1: traffic inside each partition"
	assert on h1 ping -c 3 -i 0.2 -W 2 10.81.0.2
	assert on h3 ping -c 3 -i 0.2 -W 2 10.82.0.2
	tcp_exact h4 10.82.0.2 h3 16 "TCP inside 0x8002"

	step "$1: nothing between partitions"
	if on h5 ping -c 2 -i 0.2 -W 1 10.83.0.2; then
		fail "0x8003 reached 0x8004"
	fi
	# Forge the neighbour, so that unicast does leave h5: the receiving
	# port must refuse it on the P_Key.
	mac6=$(ip netns exec h6 cat "/sys/class/net/$b.8004/address")
	on h5 ip neigh replace 10.83.0.2 lladdr "$mac6" dev "$a.8003" nud permanent
	v0=$(sib_counter sib1 1 pkey_violations)
	if on h5 ping -c 3 -i 0.2 -W 1 10.83.0.2; then
		fail "0x8003 reached 0x8004 with a forged neighbour"
	fi
	assert_ge "$(( $(sib_counter sib1 1 pkey_violations) - v0 ))" 3 "P_Key violations counted"
}

# waits_for_pkey IFACE: the kernel log says IFACE waits for its P_Key.
# shellcheck disable=SC2317 # called through wait_for
waits_for_pkey() { dmesg | grep -q "$1: P_Key 0x[0-9a-f]* is not in the port's table"; }

# children_go: a sysfs child deleted through sysfs, a netlink one through
# netlink; each is gone.
children_go() {
	echo 0x8001 >"/sys/class/net/$a/delete_child"
	if ip -n h1 link show "$a.8001" 2>/dev/null; then
		fail "sysfs child still there"
	fi
	ip -n h3 link del "$a.8002"
	if ip -n h3 link show "$a.8002" 2>/dev/null; then
		fail "netlink child still there"
	fi
}

fabric_up devices=2 ports=1 pkeys=0xffff,0x8001,0x8002,0x8003,0x8004
partitions intree_up
step "intree_up: children go away"
children_go
for n in h1 h2 h3 h4 h5 h6; do ip netns del "$n"; done
rmmod ib_ipoib

partitions ours_up

step "bad P_Keys are refused and change nothing"
before=$(find /sys/class/net -mindepth 1 -maxdepth 1 | wc -l)
for k in 0x0000 0x8000 0x10000 junk 0x8001; do
	if echo "$k" 2>/dev/null >"/sys/class/net/$a/create_child"; then
		fail "create_child accepted $k"
	fi
done
for k in 0 0x8000 0x10000; do
	if ip link add link "$a" name bad0 type ipoib pkey "$k" 2>/dev/null; then
		fail "ip link add accepted pkey $k"
	fi
done
assert_eq "$(find /sys/class/net -mindepth 1 -maxdepth 1 | wc -l)" "$before" "interfaces after refused P_Keys"
if echo 0x8009 2>/dev/null >"/sys/class/net/$a/delete_child"; then
	fail "delete_child of a child that does not exist succeeded"
fi
assert on h1 ping -c 2 -i 0.2 -W 2 10.81.0.2

step "a child waits for its P_Key, then comes up"
echo 0x8005 >"/sys/class/net/$a/create_child"
echo 0x8005 >"/sys/class/net/$b/create_child"
ib_host h7 "$a.8005" 10.85.0.1/24
ib_host h8 "$b.8005" 10.85.0.2/24
# Up, the child says why it waits; until the SM acts, nothing can join.
for c in "$a" "$b"; do
	wait_for 10 waits_for_pkey "$c.8005" || fail "no kernel message says $c.8005 waits for its P_Key"
done
dmesg | grep "0x8005 is not in the port's table"
assert_eq "$(ip netns exec h7 cat "/sys/class/net/$a.8005/carrier")" 0 "carrier without the P_Key"
assert_eq "$(ip netns exec h8 cat "/sys/class/net/$b.8005/carrier")" 0 "carrier without the P_Key"
sm_set_pkeys 0xffff,0x8001,0x8002,0x8003,0x8004,0x8005
wait_carrier h7 "$a.8005"
wait_carrier h8 "$b.8005"
assert on h7 ping -c 3 -i 0.2 -W 2 10.85.0.2
assert on h1 ping -c 2 -i 0.2 -W 2 10.81.0.2

step "ours_up: children go away"
children_go
pass
