#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DHCP over IPoIB (RFC 4390), as a cluster's provisioning server hands out
# addresses: Debian's dnsmasq serves the subnet from h2, and on h1
# systemd-networkd's DHCP client gets a lease and renews it (the server
# sets T1 to 3 s), in datagram and in connected mode, on the in-tree
# driver first (the witness), then on ours.  Debian's other DHCP clients
# cannot run on IPoIB whatever the driver: ISC dhclient 4.4.3 refuses the
# interface ("Unsupported device type 32"); dhcpcd 9.4.1 cannot open its
# BOOTP socket (bpf_open: EINVAL) and none of its DISCOVERs reaches the
# server.
#
#   h1: (no address) ---- switch ---- h2: 10.91.0.2/24, dnsmasq
#       systemd-networkd                    leases 10.91.0.100-199
#
# The lease must show the client identifier RFC 4390 requires (option 61,
# type 0xff: an IAID and a DUID, RFC 4361), since an IPoIB client has no
# chaddr (hlen 0), and the client asks for broadcast replies.
#
# Then, with ours, networkd started before the interface can join its
# broadcast group (the fabric drops every MAD: no join, no carrier): no
# DISCOVER crosses while the group is missing, the lease comes once the
# MADs flow again.
#
# timeout: 420
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

units=/etc/systemd/network
work=$PWD

# dnsmasq_up IFACE: the server in h2, its log in dnsmasq.log, leases in
# leases.
dnsmasq_up() {
	rm -f "$work/leases" "$work/dnsmasq.log"
	: >"$work/leases"
	ip netns exec h2 dnsmasq --no-daemon --conf-file=/dev/null --port=0 \
		--user=root --group=root --pid-file= \
		--interface="$1" --bind-interfaces --dhcp-authoritative \
		--dhcp-range=10.91.0.100,10.91.0.199,255.255.255.0,2m \
		--dhcp-option=option:T1,3 --dhcp-option=option:T2,100 \
		--dhcp-leasefile="$work/leases" --log-dhcp --log-facility=- \
		>"$work/dnsmasq.log" 2>&1 &
	dnsmasq_pid=$!
	wait_for 10 udp_bound h2 67 || { cat "$work/dnsmasq.log"; fail "dnsmasq did not start"; }
}

# shellcheck disable=SC2317 # called through wait_for
# served WHAT N: dnsmasq has logged at least N lines "WHAT(iface) ...".
served() { [ "$(grep -c "$1(" "$work/dnsmasq.log")" -ge "$2" ]; }

# lease_of ADDR: the lease file's line for ADDR.
lease_of() { awk -v a="$1" '$3 == a' "$work/leases"; }

# h1_addr IFACE: the address h1 got on IFACE.
h1_addr() { ip -n h1 -4 -o addr show dev "$1" | awk '{ sub(/\/.*/, "", $4); print $4 }' | head -n 1; }

# shellcheck disable=SC2317 # called through wait_for
has_addr() { [ -n "$(h1_addr "$1")" ]; }

# check_lease IFACE CLIENT: h1 has an address from the range on IFACE,
# the server's lease for it names an RFC 4390 client identifier, and h2
# answers pings to h1 at that address.
check_lease() {
	local ifc=$1 addr lease cid
	addr=$(h1_addr "$ifc")
	case $addr in
	10.91.0.1[0-9][0-9]) ;;
	*) fail "$2: h1 has no address from the range on $ifc: '$addr'" ;;
	esac
	lease=$(lease_of "$addr")
	echo "$2: h1 has $addr; the lease: $lease"
	[ -n "$lease" ] || fail "$2: dnsmasq has no lease for $addr"
	cid=$(awk '{ print $5 }' <<<"$lease")
	# Type 0xff, a 4-byte IAID, then a DUID (2-byte type, and more).
	[[ $cid == ff:??:??:??:??:00:0[1-4]:* ]] ||
		fail "$2: client identifier $cid is not type 0xff + IAID + DUID (RFC 4390, 4361)"
	grep -q "broadcast response" "$work/dnsmasq.log" ||
		fail "$2: the client did not ask for broadcast replies"
	assert on h2 ping -c 2 -i 0.2 -W 2 "$addr"
}

# networkd_units IFACE: a .network asking for DHCPv4 on IFACE.
networkd_units() {
	rm -rf "$units" /run/systemd/netif
	mkdir -p "$units" /run/systemd/netif
	chown systemd-network:systemd-network /run/systemd/netif
	cat >"$units/10-dhcp.network" <<-EOF
		[Match]
		Name=$1

		[Network]
		DHCP=ipv4
		LinkLocalAddressing=no
		IPv6AcceptRA=no
	EOF
}

# networkd_start: systemd-networkd in h1.  Without udevd it waits for it
# unless /sys is read-only (see surf-networkd); without D-Bus it loses
# only its bus API.
networkd_start() {
	ip netns exec h1 env SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=debug \
		unshare -m sh -c 'mount -o remount,bind,ro /sys && exec systemd-networkd' \
		>"$work/networkd.log" 2>&1 &
	networkd_pid=$!
}

# networkd_lease IFACE MODE: systemd-networkd gets and renews a lease on
# IFACE.
networkd_lease() {
	local ifc=$1 acks
	step "$2: systemd-networkd's DHCP client on $ifc"
	networkd_units "$ifc"
	networkd_start
	wait_for 60 served DHCPACK 1 ||
		{ tail -n 40 "$work/networkd.log"; cat "$work/dnsmasq.log"; fail "networkd got no lease"; }
	wait_for 10 has_addr "$ifc" || fail "networkd did not set the address"
	check_lease "$ifc" networkd

	step "$2: networkd renews (T1 3 s)"
	acks=$(grep -c 'DHCPACK(' "$work/dnsmasq.log")
	wait_for 20 served DHCPACK $((acks + 1)) || fail "networkd did not renew"
	grep 'DHCPREQUEST(' "$work/dnsmasq.log" | tail -n 1

	# networkd keeps its lease when it stops: no release to see here.
	kill "$networkd_pid"
	wait "$networkd_pid" || true
	ip -n h1 addr flush dev "$ifc"
}

# one_mode DRIVER MODE: both clients in MODE over that driver's interfaces.
one_mode() {
	local drv=$1 mode=$2 a b
	a=$(wait_iface "$drv" sib0 1)
	b=$(wait_iface "$drv" sib1 1)
	echo "$mode" >"/sys/class/net/$a/mode"
	echo "$mode" >"/sys/class/net/$b/mode"
	ns_add h1
	move_to_ns "$a" h1
	ip -n h1 link set "$a" up
	ib_host h2 "$b" 10.91.0.2/24
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
	dnsmasq_up "$b"
	networkd_lease "$a" "$drv, $mode"
	kill "$dnsmasq_pid"
	wait "$dnsmasq_pid" || true
	ip netns del h1
	ip netns del h2
}

fabric_up devices=2 ports=1

step "the in-tree driver (witness)"
intree_up
one_mode ib_ipoib datagram
one_mode ib_ipoib connected
rmmod ib_ipoib

step "our driver"
ours_up
one_mode ib_ipoib datagram
one_mode ib_ipoib connected

step "ours: networkd before the broadcast group is joined"
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
ib_host h2 "$b" 10.91.0.2/24
wait_carrier h2 "$b"
dnsmasq_up "$b"
echo 1 >"$SIB/mad_drop_every"
ns_add h1
move_to_ns "$a" h1
networkd_units "$a"
networkd_start
sleep_until=$((SECONDS + 5))
while [ "$SECONDS" -lt "$sleep_until" ]; do
	! carrier_is_on h1 "$a" || fail "carrier without the broadcast group"
	! served DHCPDISCOVER 1 || fail "a DISCOVER crossed without the broadcast group"
	sleep 0.2
done
echo "no carrier and nothing at dnsmasq for 5 s: $(grep -m1 -i -E "$a: .*carrier" "$work/networkd.log")"
echo 0 >"$SIB/mad_drop_every"
wait_carrier h1 "$a"
wait_for 60 served DHCPACK 1 || { tail -n 30 "$work/networkd.log"; fail "no lease once the group was joined"; }
wait_for 10 has_addr "$a" || fail "networkd did not set the address"
check_lease "$a" "networkd, late group"
pass
