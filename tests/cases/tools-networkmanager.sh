#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NetworkManager (Debian's, 1.42) configures IPoIB as operators ask it to
# with nmcli: a connection on the port's interface in connected mode at
# MTU 65520 with an address, up; a P_Key child (infiniband.p-key 0x8002,
# infiniband.parent), which NM makes through sysfs create_child and finds
# by the name it predicts; the child down (NM deletes it through
# delete_child) and up again; the transport mode changed to datagram and
# the connection activated again (the MTU follows the mode).  What a user
# checks is asserted: nmcli's GENERAL.STATE, sysfs mode and pkey, the MTU,
# pings and 2 MB over TCP compared at h2.  On the in-tree driver first
# (the witness), then on ours.
#
# A P_Key the port does not hold: NM activates the connection, the child
# has no carrier and the kernel log says why; carrier and traffic come
# once the SM adds the P_Key.  A parent whose name has 11 characters or
# more: NM predicts the child's name as PARENT.8002 cut to 15 characters,
# both drivers cut the parent's name to 10 (ibparentlo.8002), so NM does
# not find the child it made and fails; the child is left to delete_child.
#
#   init namespace: NetworkManager                  h2: made by hand
#       IF 10.94.0.1 (connected, 65520)    ------   10.94.0.2
#       IF.8002 10.95.0.1 (P_Key 0x8002)   ------   peer (0x8002) 10.95.0.2
#       IF.8003 10.96.0.1 (P_Key 0x8003)   ------   peer3 (0x8003) 10.96.0.2
#
# NM runs without systemd: with a writable /sys it waits for udev to
# have initialised each link, so systemd-udevd runs too (no rules: it only
# records the links); dbus-daemon --system serves nmcli and NM over
# /run/dbus, with polkit off (root may do everything).  All three stop
# when the case ends, however it ends.
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

work=$PWD
nm_pid='' bus_pid='' udevd_pid=''

# stop PID: end a daemon of ours and wait for it.
stop() {
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# daemons_down: NM first (it talks to the other two), then the bus and
# udevd, and their state, so the next case in this boot finds none.
# shellcheck disable=SC2317 # the EXIT trap calls it
daemons_down() {
	stop "$nm_pid"
	nm_pid=''
	stop "$bus_pid"
	stop "$udevd_pid"
	rm -rf /run/NetworkManager /etc/NetworkManager /var/lib/NetworkManager \
		/run/dbus /run/udev
	echo "left running of NetworkManager, dbus-daemon, systemd-udevd: $(cat /proc/[0-9]*/comm 2>/dev/null |
		grep -cxE 'NetworkManager|dbus-daemon|systemd-udevd')"
}
trap daemons_down EXIT

# udev_up: systemd-udevd (udevadm's binary), every device announced.
udev_up() {
	systemd-udevd >"$work/udevd.log" 2>&1 &
	udevd_pid=$!
	wait_for 10 test -S /run/udev/control || { cat "$work/udevd.log"; fail "systemd-udevd did not start"; }
}

# udev_knows IFACE: udev has recorded the link (what NM waits for): its
# database file exists, empty when no rule gave it properties.
# shellcheck disable=SC2317 # called through wait_for
udev_knows() { [ -e "/run/udev/data/n$(cat "/sys/class/net/$1/ifindex")" ]; }

bus_up() {
	mkdir -p /run/dbus
	dbus-daemon --system --nofork --nopidfile >"$work/dbus.log" 2>&1 &
	bus_pid=$!
	wait_for 10 test -S /run/dbus/system_bus_socket || { cat "$work/dbus.log"; fail "no system bus"; }
}

# nm_up: NetworkManager, with a state of its own.
nm_up() {
	rm -rf /etc/NetworkManager /var/lib/NetworkManager /run/NetworkManager
	mkdir -p /etc/NetworkManager/system-connections /var/lib/NetworkManager /run/NetworkManager
	cat >/etc/NetworkManager/NetworkManager.conf <<-EOF
		[main]
		plugins=keyfile
		auth-polkit=false
		no-auto-default=*

		[logging]
		level=DEBUG
		domains=PLATFORM,DEVICE,CORE
	EOF
	# --debug: in the foreground, its log on stderr.
	NetworkManager --debug >"$work/nm.log" 2>&1 &
	nm_pid=$!
	wait_for 30 nm_running || { tail -n 40 "$work/nm.log"; fail "NetworkManager did not start"; }
}

# shellcheck disable=SC2317 # called through wait_for
nm_running() { nmcli -t -f RUNNING general 2>/dev/null | grep -qx running; }

# nm_manages IFACE: NM has taken the device over (it is not unmanaged).
# shellcheck disable=SC2317 # called through wait_for
nm_manages() {
	local st
	st=$(nmcli -t -f DEVICE,STATE device 2>/dev/null | sed -n "s/^$1://p")
	[ -n "$st" ] && [ "$st" != unmanaged ]
}

# con_state CON: what nmcli says of an active connection (empty when
# it is not active).
con_state() { nmcli -g GENERAL.STATE connection show "$1" 2>/dev/null || true; }

# activated CON: nmcli says so, as a user would check.
# child_add CON PARENT PKEY ADDR: an NM connection for PARENT's P_Key
# 0xPKEY child, PARENT.PKEY, with a static IPv4 address.
child_add() {
	nmcli connection add type infiniband con-name "$1" ifname "$2.$3" \
		infiniband.p-key "0x$3" infiniband.parent "$2" \
		ipv4.method manual ipv4.addresses "$4" ipv6.method disabled
}
activated() { assert_eq "$(con_state "$1")" activated "nmcli's GENERAL.STATE of $1"; }

nm_log() {
	echo "-- NetworkManager's log: $*"
	grep -iE "$*" "$work/nm.log" | tail -n 40 | sed 's/^/   /'
}

# up CON: nmcli connection up, NM's log lines about WHAT when it fails.
up() {
	nmcli --wait 30 connection up "$1" || { nm_log "$2"; fail "nmcli connection up $1 failed"; }
}

h1sys() { cat "/sys/class/net/$1/$2"; }

# shellcheck disable=SC2317 # called through wait_for
has_carrier() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }

# link_gone IFACE
# shellcheck disable=SC2317 # called through wait_for
link_gone() { [ ! -e "/sys/class/net/$1" ]; }

# tcp_to_h2 ADDR: 2 MB of random bytes through one TCP connection from
# here to a listener in h2, compared there.
tcp_to_h2() {
	local pid sum
	head -c 2000000 /dev/urandom >"$work/sent"
	ip netns exec h2 nc -l -p 5400 </dev/null >"$work/got" &
	pid=$!
	wait_for 10 iperf_listening h2 5400 || fail "nc in h2 does not listen"
	cat "$work/sent" >"/dev/tcp/$1/5400" || fail "TCP to $1 failed"
	wait "$pid" || fail "nc in h2 failed"
	sum=$(md5sum <"$work/got")
	echo "TCP to $1: sent $(wc -c <"$work/sent") bytes, h2 got $(wc -c <"$work/got"), md5 ${sum%% *}"
	cmp "$work/sent" "$work/got" || fail "what h2 got over TCP to $1 is not what was sent"
}

# story WHO: the whole story with the driver loaded as ib_ipoib.
story() {
	local who=$1 a b out long kname
	a=$(wait_iface ib_ipoib sib0 1)
	b=$(wait_iface ib_ipoib sib1 1)
	echo connected >"/sys/class/net/$b/mode"
	ip link set "$b" mtu 65520
	ip link set "$b" up
	ip link add link "$b" name peer type ipoib pkey 0x8002
	ip link add link "$b" name peer3 type ipoib pkey 0x8003
	ib_host h2 "$b" 10.94.0.2/24
	ib_host h2 peer 10.95.0.2/24
	ib_host h2 peer3 10.96.0.2/24
	udevadm trigger --action=add --subsystem-match=net
	wait_for 30 udev_knows "$a" ||
		{ udevadm info "/sys/class/net/$a"; tail -n 30 "$work/udevd.log"; fail "udev has not recorded $a"; }
	nm_up
	wait_for 30 nm_manages "$a" || { nmcli device; nm_log "$a"; fail "NM does not manage $a"; }
	nmcli device

	step "$who: nmcli: $a connected, MTU 65520, 10.94.0.1/24"
	nmcli connection add type infiniband con-name ibmain ifname "$a" \
		infiniband.transport-mode connected infiniband.mtu 65520 \
		ipv4.method manual ipv4.addresses 10.94.0.1/24 ipv6.method disabled
	up ibmain "$a"
	activated ibmain
	assert_eq "$(h1sys "$a" mode)" connected "$a's mode"
	assert_eq "$(h1sys "$a" mtu)" 65520 "$a's MTU"
	ip addr show "$a" | grep -q 'inet 10\.94\.0\.1/24' || fail "no address on $a"
	assert ping -c 2 -i 0.2 -W 2 -s 8000 10.94.0.2
	tcp_to_h2 10.94.0.2

	step "$who: nmcli: the P_Key 0x8002 child of $a"
	child_add ibchild "$a" 8002 10.95.0.1/24
	up ibchild "8002|create_child"
	activated ibchild
	ip -d link show "$a.8002"
	ip -d link show "$a.8002" | grep -q "^[0-9]*: $a.8002@$a:" || fail "$a.8002 is not a child of $a"
	assert_eq "$(h1sys "$a.8002" pkey)" 0x8002 "the child's P_Key"
	assert_eq "$(h1sys "$a.8002" mode)" datagram "the child's mode"
	assert_eq "$(h1sys "$a.8002" mtu)" 2044 "the child's MTU (the broadcast group's)"
	assert ping -c 2 -i 0.2 -W 2 10.95.0.2
	tcp_to_h2 10.95.0.2

	step "$who: the child down (NM deletes it) and up again"
	nmcli --wait 30 connection down ibchild
	wait_for 10 link_gone "$a.8002" || fail "$a.8002 is still there after nmcli connection down"
	assert_eq "$(con_state ibchild)" "" "ibchild's state after down"
	up ibchild "8002"
	activated ibchild
	assert ping -c 2 -i 0.2 -W 2 10.95.0.2

	step "$who: datagram mode, MTU left to the driver, activated again"
	nmcli connection modify ibmain infiniband.transport-mode datagram infiniband.mtu 0
	up ibmain "$a"
	activated ibmain
	ip -d link show "$a"
	assert_eq "$(h1sys "$a" mode)" datagram "$a's mode"
	assert_eq "$(h1sys "$a" mtu)" 2044 "$a's MTU"
	assert ping -c 2 -i 0.2 -W 2 -s 1900 10.94.0.2
	tcp_to_h2 10.94.0.2

	step "$who: a P_Key the port does not hold (0x8003), then the SM adds it"
	child_add ibbad "$a" 8003 10.96.0.1/24
	# With a static address NM has nothing to wait for: it activates the
	# connection, and the child waits without carrier for its P_Key.
	kernel_log_mark "$who: ibbad"
	up ibbad "8003"
	activated ibbad
	ip -d link show "$a.8003"
	assert_eq "$(h1sys "$a.8003" carrier)" 0 "carrier of $a.8003 without its P_Key"
	dmesg | sed -n "/test: $who: ibbad/,\$p" | grep -E "$a\.8003: .*0x8003" ||
		fail "the kernel log does not say $a.8003 lacks its P_Key"
	sm_set_pkeys 0xffff,0x8002,0x8003
	wait_for 20 has_carrier "$a.8003" || fail "$a.8003 got no carrier once the port holds 0x8003"
	assert ping -c 2 -i 0.2 -W 2 10.96.0.2
	nmcli connection delete ibbad
	wait_for 10 link_gone "$a.8003" || fail "$a.8003 is still there after nmcli connection delete"
	sm_set_pkeys 0xffff,0x8002

	step "$who: a parent name of 11 characters or more"
	nmcli --wait 30 connection down ibchild
	nmcli --wait 30 connection down ibmain
	long=ibparentlong
	ip link set "$a" down
	ip link set "$a" name "$long"
	nmcli connection add type infiniband con-name iblong ifname "$long" \
		ipv4.method manual ipv4.addresses 10.94.0.1/24 ipv6.method disabled
	up iblong "$long"
	activated iblong
	# No autoconnect: NM would try again and again.
	nmcli connection add type infiniband con-name iblongchild autoconnect no \
		infiniband.p-key 0x8002 infiniband.parent "$long" \
		ipv4.method manual ipv4.addresses 10.95.0.1/24 ipv6.method disabled
	if out=$(nmcli --wait 30 connection up iblongchild 2>&1); then
		fail "nmcli connection up iblongchild: $out"
	fi
	echo "$who: nmcli connection up iblongchild: $out"
	grep -E "partition|create_child" "$work/nm.log" | grep -i "$long" | tail -n 4
	# What is left: the kernel's child, which NM did not find.
	kname=$(cd /sys/class/net && echo "${long:0:10}".*)
	ip -br link show
	echo "$who: nmcli failed; the kernel made $kname" >>"$work/long-parent"
	assert_eq "$kname" "${long:0:10}.8002" "the child's name (IFNAMSIZ: the parent's cut to 10)"
	# What a user does about it.
	nmcli connection delete iblongchild
	echo 0x8002 >"/sys/class/net/$long/delete_child"
	wait_for 10 link_gone "$kname" || fail "delete_child left $kname"

	stop "$nm_pid"
	nm_pid=''
	ip netns del h2
}

fabric_up devices=2 ports=1 pkeys=0xffff,0x8002
bus_up
udev_up

step "the in-tree driver (witness)"
intree_up
story in-tree
rmmod ib_ipoib

step "ours"
ours_up
story ours
cat "$work/long-parent"
assert_eq "$(sed -n 's/^ours: //p' "$work/long-parent")" \
	"$(sed -n 's/^in-tree: //p' "$work/long-parent")" "ours with an 11-character parent, against the in-tree driver"
pass
