#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The link as iproute2 and sysfs show and change it: ip link add/set/show
# -d with pkey, mode and umcast; sysfs mode, umcast, pkey, parent,
# create_child, delete_child, dev_id.  Every value reads back the same way
# through both, invalid ones are refused with the errno a user sees and
# change nothing, and traffic flows after each change.
#
#   root namespace                      h2
#   A     10.30.0.1 ---- pkey 0xffff ---- B     10.30.0.2
#   A.8001 10.31.0.1 --- pkey 0x8001 ---- B.8001 10.31.0.2
#
# timeout: 240
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=2 ports=1 pkeys=0xffff,0x8001,0x8002
ours_up
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
A=/sys/class/net/$a
ib_host h2 "$b" 10.30.0.2/24
ip addr add 10.30.0.1/24 dev "$a"
ip link set "$a" up
wait_for 20 grep -qx 1 "$A/carrier" || fail "$a got no carrier"
wait_carrier h2 "$b"

# sysfs_write FILE VALUE: print "ok", or the error the write got as bash
# reports it ("Invalid argument").
sysfs_write() {
	local err
	if err=$({ echo "$2" >"$1"; } 2>&1); then
		echo ok
	else
		echo "${err##*: }"
	fi
}

# ipoib_d IFACE [NS]: the "pkey .. mode .. umcast .." part of ip -d link.
ipoib_d() {
	ip ${2:+-n "$2"} -d link show "$1" |
		grep -oE 'pkey +0x[0-9a-f]+ +mode +[a-z]+ +umcast +[0-9a-f]+' |
		tr -s ' '
}

ping_all() {
	assert ping -c 2 -i 0.2 -W 2 10.30.0.2
	if [ -e "$A.8001" ]; then
		assert ping -c 2 -i 0.2 -W 2 10.31.0.2
	fi
}

links() { ip -o link show | wc -l; }

# When connected mode is built in, the mode switch must work; until then
# it must be refused as unsupported.
cm=no
[ -e /sys/module/ib_ipoib/parameters/cm_policy ] && cm=yes
echo "connected mode in this build: $cm"

step "ip -d link show: P_Key, mode and umcast of a main interface"
ip -d link show "$a"
assert_eq "$(ipoib_d "$a")" "pkey 0xffff mode datagram umcast 0000" "ip -d link of $a"
assert_eq "$(cat "$A/pkey")" 0xffff "sysfs pkey"
assert_eq "$(cat "$A/mode")" datagram "sysfs mode"
assert_eq "$(cat "$A/umcast")" 0 "sysfs umcast"
assert_eq "$(cat "$A/dev_id")" 0x0 "sysfs dev_id"
assert_eq "$(cat "$A/dev_port")" 0 "sysfs dev_port"
[ ! -e "$A/parent" ] || fail "a main interface has a parent file"
ping_all

step "ip link add ... type ipoib pkey mode umcast"
ip link add link "$a" name "$a.8001" type ipoib pkey 0x8001 mode datagram umcast 1
ip -n h2 link add link "$b" name "$b.8001" type ipoib pkey 0x8001
ip -d link show "$a.8001"
assert_eq "$(ipoib_d "$a.8001")" "pkey 0x8001 mode datagram umcast 0001" "ip -d link of $a.8001"
assert_eq "$(ipoib_d "$b.8001" h2)" "pkey 0x8001 mode datagram umcast 0000" "ip -d link of $b.8001"
assert_eq "$(cat "$A.8001/pkey")" 0x8001 "child's sysfs pkey"
assert_eq "$(cat "$A.8001/umcast")" 1 "child's sysfs umcast"
assert_eq "$(cat "$A.8001/parent")" "$a" "child's sysfs parent"
assert_eq "$(cat "$A.8001/dev_id")" "$(cat "$A/dev_id")" "child's dev_id"
assert_eq "$(cat "$A.8001/dev_port")" "$(cat "$A/dev_port")" "child's dev_port"
[ ! -e "$A.8001/create_child" ] || fail "a child has a create_child file"
ip addr add 10.31.0.1/24 dev "$a.8001"
ip link set "$a.8001" up
ip -n h2 addr add 10.31.0.2/24 dev "$b.8001"
ip -n h2 link set "$b.8001" up
wait_for 20 grep -qx 1 "$A.8001/carrier" || fail "$a.8001 got no carrier"
wait_carrier h2 "$b.8001"
ping_all

step "ip link set ... type ipoib umcast, read back through sysfs"
ip link set "$a.8001" type ipoib umcast 0
assert_eq "$(cat "$A.8001/umcast")" 0 "sysfs umcast after ip link set umcast 0"
ip link set "$a" type ipoib umcast 1
assert_eq "$(cat "$A/umcast")" 1 "sysfs umcast after ip link set umcast 1"
ping_all

step "sysfs umcast, read back through ip -d link"
assert_eq "$(sysfs_write "$A/umcast" 0)" ok "umcast 0"
assert_eq "$(ipoib_d "$a")" "pkey 0xffff mode datagram umcast 0000" "ip -d link after umcast 0"
assert_eq "$(sysfs_write "$A.8001/umcast" 1)" ok "child umcast 1"
assert_eq "$(ipoib_d "$a.8001")" "pkey 0x8001 mode datagram umcast 0001" "ip -d link after umcast 1"
for v in junk -1 "" 0x1ffffffff; do
	assert_eq "$(sysfs_write "$A.8001/umcast" "$v")" "Invalid argument" "umcast '$v'"
	assert_eq "$(cat "$A.8001/umcast")" 1 "umcast after refusing '$v'"
done
dmesg | grep -q "umcast is a number" || fail "no kernel message about a bad umcast"
ping_all

step "mode: bad names refused, the mode stays"
for v in bogus Connected "" datagramx; do
	assert_eq "$(sysfs_write "$A/mode" "$v")" "Invalid argument" "mode '$v'"
	assert_eq "$(cat "$A/mode")" datagram "mode after refusing '$v'"
done
dmesg | grep -q 'mode is "datagram" or "connected"' || fail "no kernel message about a bad mode"
assert_eq "$(sysfs_write "$A/mode" datagram)" ok "mode datagram"
ip link set "$a" type ipoib mode datagram
assert_eq "$(ipoib_d "$a")" "pkey 0xffff mode datagram umcast 0000" "ip -d link after mode datagram"

if [ "$cm" = yes ]; then
	step "mode connected through sysfs and ip link, and back"
	ip -n h2 link set "$b" type ipoib mode connected
	assert_eq "$(sysfs_write "$A/mode" connected)" ok "mode connected"
	assert_eq "$(ipoib_d "$a")" "pkey 0xffff mode connected umcast 0000" "ip -d link in connected mode"
	assert_eq "$(ip netns exec h2 cat "/sys/class/net/$b/mode")" connected "sysfs mode after ip link set mode connected"
	ip link set "$a" mtu 65520
	ip -n h2 link set "$b" mtu 65520
	ping_all
	assert ping -c 2 -i 0.2 -W 2 -s 60000 10.30.0.2
	ip link set "$a" type ipoib mode datagram
	# $b lives in h2: its sysfs is there.
	assert on h2 bash -c "echo datagram >/sys/class/net/$b/mode"
	assert_eq "$(ip netns exec h2 cat "/sys/class/net/$b/mode")" datagram "h2 mode after sysfs"
	assert_eq "$(cat "$A/mode")" datagram "mode after ip link set mode datagram"
	assert_eq "$(cat "$A/mtu")" 2044 "MTU back in datagram mode"
else
	step "mode connected: refused as unsupported, the mode stays"
	assert_eq "$(sysfs_write "$A/mode" connected)" "Operation not supported" "mode connected"
	assert_eq "$(cat "$A/mode")" datagram "mode after refusing connected"
	if err=$(ip link set "$a" type ipoib mode connected 2>&1); then
		fail "ip link set mode connected succeeded without connected mode"
	fi
	echo "ip: $err"
	echo "$err" | grep -q "connected mode is not available" ||
		fail "ip link set mode connected: no reason given"
	assert_eq "$(ipoib_d "$a")" "pkey 0xffff mode datagram umcast 0000" "ip -d link after refusing connected"
fi
ping_all

step "ip link add ... mode connected"
n=$(links)
if [ "$cm" = yes ]; then
	ip link add link "$a" name "$a.8002" type ipoib pkey 0x8002 mode connected
	assert_eq "$(cat "$A.8002/mode")" connected "mode of a child made connected"
	ip link del "$a.8002"
else
	if err=$(ip link add link "$a" name "$a.8002" type ipoib pkey 0x8002 mode connected 2>&1); then
		fail "ip link add mode connected succeeded without connected mode"
	fi
	echo "ip: $err"
	echo "$err" | grep -q "connected mode is not available" ||
		fail "ip link add mode connected: no reason given"
fi
assert_eq "$(links)" "$n" "links after ip link add mode connected"
ping_all

step "the P_Key of an interface cannot change"
if err=$(ip link set "$a.8001" type ipoib pkey 0x8002 2>&1); then
	fail "ip link set pkey changed a child's P_Key"
fi
echo "ip: $err"
assert_eq "$(cat "$A.8001/pkey")" 0x8001 "P_Key after refused change"
assert_eq "$(sysfs_write "$A/pkey" 0x8002)" "Permission denied" "writing sysfs pkey"
assert_eq "$(cat "$A/pkey")" 0xffff "P_Key after refused sysfs write"
ping_all

step "ip link add refuses bad parents and P_Keys, with a reason"
# veth, not dummy: the debug kernel is built without dummy.
ip link add notib0 type veth peer name notib1
n=$(links)
for args in "lo" "notib0" "$a.8001" "$a pkey 0x8000" "$a pkey 0"; do
	# shellcheck disable=SC2086
	if err=$(ip link add link ${args%% *} name bad0 type ipoib ${args#"${args%% *}"} 2>&1); then
		fail "ip link add link $args succeeded"
	fi
	echo "ip link add link $args: $err"
	echo "$err" | grep -q "^Error: " || fail "ip link add link $args: no reason given"
done
if ip link add name bad0 type ipoib 2>/dev/null; then
	fail "ip link add without a parent succeeded"
fi
assert_eq "$(links)" "$n" "links after refused ip link add"
ip link del notib0

step "sysfs create_child: made, duplicates and reserved P_Keys refused"
assert_eq "$(sysfs_write "$A/create_child" 0x8002)" ok "create_child 0x8002"
assert_eq "$(cat "$A.8002/pkey")" 0x8002 "sysfs child's pkey"
assert_eq "$(cat "$A.8002/parent")" "$a" "sysfs child's parent"
assert_eq "$(ipoib_d "$a.8002")" "pkey 0x8002 mode datagram umcast 0000" "ip -d link of the sysfs child"
n=$(links)
assert_eq "$(sysfs_write "$A/create_child" 0x8002)" "Name not unique on network" "create_child 0x8002 again"
assert_eq "$(sysfs_write "$A/create_child" 0x0002)" "Name not unique on network" "create_child 0x0002 (the same partition)"
assert_eq "$(sysfs_write "$A/create_child" 0xffff)" "Name not unique on network" "create_child with the parent's P_Key"
for v in 0 0x8000 0x10000 junk ""; do
	assert_eq "$(sysfs_write "$A/create_child" "$v")" "Invalid argument" "create_child '$v'"
done
assert_eq "$(links)" "$n" "links after refused create_child"
dmesg | grep -q "exists already" || fail "no kernel message about the duplicate child"
ping_all

step "sysfs delete_child: only what create_child made"
assert_eq "$(sysfs_write "$A/delete_child" 0x8001)" "No such device" "delete_child of an ip link child"
[ -e "$A.8001" ] || fail "delete_child removed an ip link child"
assert_eq "$(sysfs_write "$A/delete_child" 0x8003)" "No such device" "delete_child 0x8003"
assert_eq "$(sysfs_write "$A/delete_child" junk)" "Invalid argument" "delete_child junk"
assert_eq "$(links)" "$n" "links after refused delete_child"
assert_eq "$(sysfs_write "$A/delete_child" 0x8002)" ok "delete_child 0x8002"
[ ! -e "$A.8002" ] || fail "$a.8002 still there after delete_child"
ping_all

step "the main interface stays when ip link del is asked to remove it"
ip link del "$a" || true
[ -e "$A" ] || fail "ip link del removed the port's main interface"
dmesg | grep -q "cannot be deleted" || fail "no kernel message about deleting a main interface"
ping_all

step "ip link del of a child"
ip link del "$a.8001"
[ ! -e "$A.8001" ] || fail "$a.8001 still there after ip link del"
assert ping -c 2 -i 0.2 -W 2 10.30.0.2
pass
