#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What udev's rules name and match IPoIB interfaces by looks the same on
# both drivers: each port's interface and a P_Key child made through
# sysfs create_child (as NetworkManager makes them), on a two-port HCA.
# The attributes come from sysfs (type, addr_len, dev_port, dev_id, the
# link address without the QPN, broadcast, the parent device and its
# bus, iflink, mtu, the child's pkey and parent), and from udev's own
# net_id builtin (`udevadm test-builtin net_id`: the ID_NET_NAME_*
# persistent names systemd's rules give).  The in-tree driver's are
# taken first; ours must match them line for line.
#
#   sib0 port 1: ib0, ib0.8002        sib0 port 2: ib1
#
# timeout: 120
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

# attrs IFACE: one "name value" line per attribute.
attrs() {
	local n=/sys/class/net/$1 a
	echo "name $1"
	for a in type addr_len dev_port dev_id broadcast addr_assign_type; do
		echo "$a $(cat "$n/$a")"
	done
	# The flags octet and the QPN are the driver's and the moment's; the
	# GID is the port's.
	echo "address-gid $(cut -d: -f5- "$n/address")"
	# Children have none: rules with DRIVERS=="?*" match the main one only.
	if [ -e "$n/device" ]; then
		echo "device $(basename "$(readlink -f "$n/device")")"
		echo "device-subsystem $(basename "$(readlink -f "$n/device/subsystem")")"
		echo "device-driver $(basename "$(readlink -f "$n/device/driver")")"
	else
		echo "device none"
	fi
	if [ "$(cat "$n/iflink")" = "$(cat "$n/ifindex")" ]; then
		echo "iflink self"
	else
		echo "iflink $(ip -o link show | awk -F': ' -v i="$(cat "$n/iflink")" '$1 == i { print $2 }')"
	fi
	for a in pkey parent umcast; do
		[ ! -e "$n/$a" ] || echo "$a $(cat "$n/$a")"
	done
	udevadm test-builtin net_id "$n" 2>/dev/null | grep '^ID_NET_NAM' | sort
}

# snapshot: the attributes of the two ports' interfaces and a child.
snapshot() {
	local p1 p2
	p1=$(wait_iface ib_ipoib sib0 1)
	p2=$(wait_iface ib_ipoib sib0 2)
	echo 0x8002 >"/sys/class/net/$p1/create_child"
	wait_for 10 test -e "/sys/class/net/$p1.8002" || fail "create_child made no $p1.8002"
	attrs "$p1"
	attrs "$p2"
	attrs "$p1.8002"
	echo 0x8002 >"/sys/class/net/$p1/delete_child"
}

fabric_up devices=1 ports=2 pkeys=0xffff,0x8002

step "the in-tree driver"
intree_up
snapshot >intree.txt
cat intree.txt
grep -q '^ID_NET_NAMING_SCHEME' intree.txt || fail "udevadm test-builtin net_id did not run"
rmmod ib_ipoib

step "ours"
ours_up
snapshot >ours.txt
if ! diff -u intree.txt ours.txt; then
	fail "ours differ from the in-tree driver's (- in-tree, + ours)"
fi
echo "ours: $(wc -l <ours.txt) attributes, the same as the in-tree driver's"
pass
