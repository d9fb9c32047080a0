#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# systemd-networkd units written for the in-tree driver work unchanged with
# ours: Debian's systemd-networkd makes a P_Key child from a .netdev of
# Kind=ipoib with an [IPoIB] section and addresses it from a .network, first
# over ours, then over the in-tree driver; the child must have the settings
# asked for and carry traffic to a peer made by hand on the other HCA.
#
#   networkd:  ibnd (child of sib0's interface, P_Key 0x8001, connected)
#              10.81.0.1  ===  h2: peer (child of sib1's) 10.81.0.2
#
# The in-tree driver runs the same units with Mode=datagram: connected mode
# through netlink is a race in it.  Its set_mode drops rtnl in the middle of
# the request and takes it back with rtnl_trylock(); when anything else
# took rtnl meanwhile (networkd's own next request, the link watcher), the
# request fails with EBUSY and its error path unregisters the new link
# without rtnl: "RTNL: assertion failed" and a dozen WARNINGs (seen in CI
# on 6.1).  Its netlink children have no sysfs "mode" to switch later.
# Ours holds rtnl throughout and gets Mode=connected.
#
# networkd gives a .netdev's link a "persistent" address made from the
# machine ID: for IPoIB, 20 bytes whose GID part is that hash, not the
# port's GID.  The in-tree driver takes a child's port GID from the address
# it is created with, so its joins name a GID the port does not have and
# the SA refuses them (status -22): under it, the units run with no machine
# ID (networkd then leaves the address to the driver).  Ours takes the GID
# from the port whatever it is given, and the case checks that it does.
#
# networkd runs as a plain daemon, without systemd, udevd or D-Bus: it
# waits for udevd to initialise every link unless /sys is read-only (its
# sign of a container, where no udevd runs), so it gets a read-only /sys in
# a mount namespace of its own; without D-Bus it only loses its bus API
# (networkctl reload, reconfigure and the like), which this case does not use.
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

units=/etc/systemd/network
log=$PWD/networkd.log
networkd_pid=''

# start_networkd PARENT MODE: units for a child of PARENT in MODE, then
# the daemon.
start_networkd() {
	rm -rf "$units" /run/systemd/netif
	mkdir -p "$units" /run/systemd/netif
	# What systemd would make for it; it runs as this user.
	chown systemd-network:systemd-network /run/systemd/netif
	cat >"$units/10-ibnd.netdev" <<-EOF
		[NetDev]
		Name=ibnd
		Kind=ipoib

		[IPoIB]
		PartitionKey=0x8001
		Mode=$2
		IgnoreUserspaceMulticastGroups=yes
	EOF
	cat >"$units/10-parent.network" <<-EOF
		[Match]
		Name=$1

		[Network]
		IPoIB=ibnd
		LinkLocalAddressing=no
	EOF
	cat >"$units/20-ibnd.network" <<-EOF
		[Match]
		Name=ibnd

		[Network]
		Address=10.81.0.1/24
		LinkLocalAddressing=no
		IPv6AcceptRA=no
	EOF
	SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=debug \
		unshare -m sh -c "mount -o remount,bind,ro /sys && $hide_machine_id exec systemd-networkd" \
		>"$log" 2>&1 &
	networkd_pid=$!
}

stop_networkd() {
	[ -n "$networkd_pid" ] || return 0
	kill "$networkd_pid" 2>/dev/null || true
	wait "$networkd_pid" || true
	networkd_pid=''
}
# A networkd left running would take the next case's ib0 for its own.
trap stop_networkd EXIT

# show_traffic: what each end knows of the other, when a ping failed.
show_traffic() {
	local f
	echo "-- neighbours: ibnd; h2's peer"
	ip neigh show dev ibnd | sed 's/^/   /'
	ip -n h2 neigh show dev peer | sed 's/^/   /'
	for f in /sys/kernel/debug/ib_ipoib/ibnd/neighs /sys/kernel/debug/ib_ipoib/ibnd/cm; do
		[ -r "$f" ] || continue
		echo "-- $f"
		sed 's/^/   /' "$f"
	done
	sib_counters sib0 1
	sib_counters sib1 1
	show_networkd_log
}

# link_state IFACE KEY: what networkd says of a link (its state file).
link_state() {
	local idx
	idx=$(cat "/sys/class/net/$1/ifindex" 2>/dev/null) || return 1
	sed -n "s/^$2=//p" "/run/systemd/netif/links/$idx" 2>/dev/null
}

configured() {
	[ "$(link_state ibnd ADMIN_STATE)" = configured ] &&
		[ "$(link_state ibnd OPER_STATE)" = routable ]
}

# shellcheck disable=SC2317 # called through wait_for
configured_or_gone() {
	configured || ! kill -0 "$networkd_pid" 2>/dev/null
}

show_networkd_log() {
	echo "-- networkd log (last 60 lines)"
	tail -n 60 "$log" | sed 's/^/   /'
}

# one_driver NAME MODE WHOSE: the whole story with the driver that is
# loaded (WHOSE: ours or intree); MODE is what the .netdev and "ip link
# add" ask for.
one_driver() {
	local drv=$1 mode=$2 a b hide_machine_id
	a=$(wait_iface "$drv" sib0 1)
	b=$(wait_iface "$drv" sib1 1)

	step "$drv: the peer, made by hand on $b"
	ip link set "$b" up
	ip link add link "$b" name peer type ipoib pkey 0x8001 mode "$mode"
	ib_host h2 peer 10.81.0.2/24

	step "$drv: systemd-networkd makes ibnd on $a"
	hide_machine_id=''
	[ "$3" = ours ] || hide_machine_id='mount --bind /dev/null /etc/machine-id &&'
	start_networkd "$a" "$mode"
	wait_for $((60 * ${TIMEOUT_SCALE:-1})) configured_or_gone || true
	if ! configured; then
		show_networkd_log
		fail "networkd did not get ibnd configured and routable" \
			"(admin: $(link_state ibnd ADMIN_STATE), oper: $(link_state ibnd OPER_STATE))"
	fi

	networkctl list --no-pager 2>&1 || true
	ip -d addr show ibnd

	step "$drv: ibnd has the .netdev's settings, as netlink tells them"
	ip -d link show ibnd | grep -q "^[0-9]*: ibnd@$a:" || fail "ibnd is not a child of $a"
	ip -d link show ibnd | grep -Eq "pkey +0x8001 .*mode +$mode .*umcast +0*1( |\$)" ||
		fail "ip -d link does not show pkey 0x8001, mode $mode, umcast 1"
	# Connected mode raises the MTU.
	[ "$mode" != connected ] || assert_eq "$(cat /sys/class/net/ibnd/mtu)" 65520 "mtu"
	ip addr show ibnd | grep -q 'inet 10\.81\.0\.1/24' || fail "ibnd has not got 10.81.0.1/24"
	if [ "$3" = ours ]; then
		grep 'Using MAC address' "$log" || true
		assert_eq "$(cut -d: -f5- /sys/class/net/ibnd/address | tr -d :)" \
			"$(tr -d : </sys/class/infiniband/sib0/ports/1/gids/0)" "ibnd's GID (the port's)"
	fi

	step "$drv: traffic, in $mode mode"
	wait_carrier h2 peer
	ping -c 3 -i 0.2 -W 2 10.81.0.2 || { show_traffic; fail "no ping through ibnd"; }
	# Larger than a UD packet can be: only a connection carries it whole.
	[ "$mode" != connected ] || assert ping -c 2 -i 0.2 -W 2 -M "do" -s 3900 10.81.0.2

	stop_networkd
	ip link del ibnd
	ip -n h2 link del peer
	ip netns del h2
}

fabric_up devices=2 ports=1 pkeys=0xffff,0x8001

step "our driver"
ours_up
one_driver ib_ipoib connected ours
rmmod ib_ipoib

step "the in-tree driver"
intree_up
one_driver ib_ipoib datagram intree
pass
