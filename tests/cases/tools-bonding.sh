#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An active-backup bond of the two ports of one HCA, as operators run
# IPoIB for failover: the active port goes down, the bond moves to the
# other within seconds and a TCP stream through it survives; the port
# comes back, the other goes down, and the bond moves back.  On the
# in-tree driver first (the witness, in datagram mode), then ours in
# datagram and in connected mode, then a bond of two P_Key children
# (0x8002) of ours.  With ours, the backup's mode is switched while it
# waits (the bond takes its address as it is at the failover), and a
# ring resize of a slave is refused: new rings are a new QP, so a new
# link address, which a bond does not follow.
#
#   h1: bond0 10.90.0.1 fd90::1 (active-backup, miimon 100)
#        |-- sib0 port 1 (active)        \
#        '-- sib0 port 2 (backup)         >-- switch --- sib1 port 1
#                                        /               h2: 10.90.0.2 fd90::2
#
# The bonding driver takes the IPoIB slave's type, address length,
# broadcast address and header (its header_ops call the active slave's),
# and forces fail_over_mac=active: the bond's address is the active
# slave's, and a failover announces it (gratuitous ARP, unsolicited NA).
#
# timeout: 420
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

bonding=/sys/class/net/bond0/bonding

# h1 CMD...: quietly in h1 (where the bond lives).
h1() { ip netns exec h1 "$@"; }

# shellcheck disable=SC2317 # called through wait_for
active_is() { [ "$(h1 cat "$bonding/active_slave")" = "$1" ]; }
# shellcheck disable=SC2317 # called through wait_for
slave_up() { [ "$(h1 cat "/sys/class/net/$1/bonding_slave/mii_status")" = up ]; }

# received: bytes h2's interface has received so far.
received() { netdev_stat "$peer_if" rx_bytes h2; }

# stream_moves_on MIN: h2 receives MIN bytes more (the stream is all
# there is).
stream_moves_on() {
	local from
	from=$(received)
	wait_for 30 received_past $((from + $1)) ||
		fail "the stream stopped (h2 received $(($(received) - from)) bytes in 30 s)"
}

# shellcheck disable=SC2317 # called through wait_for
received_past() { [ "$(received)" -ge "$1" ]; }

# failover DOWN_PORT FROM TO: take that sib0 port down; the bond moves from
# FROM to TO and says so; pings and the stream go on.
failover() {
	local t0
	step "sib0 port $1 down: $2 -> $3"
	t0=$(soak_now)
	echo down >"$SIB/sib0/port$1/state"
	wait_for 10 active_is "$3" || fail "bond0 still on $(h1 cat $bonding/active_slave)"
	echo "bond0 moved to $3 in $(soak_since "$t0") s"
	assert_eq "$(h1 cat /sys/class/net/bond0/address)" "$(h1 cat "/sys/class/net/$3/address")" \
		"bond0's address after the failover (fail_over_mac=active)"
	# The peer learns the new address from the bond's announce.
	wait_for 10 h2_holds "$(h1 cat "/sys/class/net/$3/address")" ||
		fail "h2 did not learn bond0's new address: $(ip -n h2 neigh show 10.90.0.1)"
	echo "h2 learned $(ip -n h2 neigh show 10.90.0.1) in $(soak_since "$t0") s"
	# In connected mode h2 may still answer on its connection to the
	# slave that went down until RC gives up on it (four ACK timeouts,
	# about a second); what it sent there is lost, as it would be with
	# the in-tree driver.  What a user expects: pings within seconds.
	wait_for 10 h1 ping -c 1 -W 1 10.90.0.2 || fail "no ping through bond0 10 s after the failover"
	echo "pings through bond0 $(soak_since "$t0") s after the failover"
	assert on h1 ping -c 2 -i 0.2 -W 2 10.90.0.2
	assert on h1 ping -6 -c 2 -i 0.2 -W 2 fd90::2
	stream_moves_on 1000000
	echo "the stream goes on: h2 has received $(received) bytes"

	step "sib0 port $1 up again"
	echo up >"$SIB/sib0/port$1/state"
	wait_for 20 slave_up "$2" || fail "$2 did not come back as a slave"
	assert_eq "$(h1 cat $bonding/active_slave)" "$3" "active slave after $2 came back"
}

# shellcheck disable=SC2317 # called through wait_for
h2_holds() { ip -n h2 neigh show 10.90.0.1 | grep -q "lladdr $1 "; }

# bond_story WHO MODE SLAVE1 SLAVE2 PEER: the whole story over those
# interfaces (in the init namespace, up or not, in MODE) of the in-tree
# driver or ours (WHO).
bond_story() {
	local drv=$1 mode=$2 s1=$3 s2=$4 peer=$5 mtu=2044 ifc sent rx out m

	peer_if=$peer

	[ "$mode" = datagram ] || mtu=65520
	for ifc in "$s1" "$s2" "$peer"; do
		echo "$mode" >"/sys/class/net/$ifc/mode"
	done
	ns_add h1
	move_to_ns "$s1" h1
	move_to_ns "$s2" h1
	step "$drv, $mode: bond0 of $s1 and $s2"
	on h1 ip link add bond0 type bond mode active-backup miimon 100
	on h1 ip link set "$s1" master bond0
	on h1 ip link set "$s2" master bond0
	on h1 ip link set bond0 mtu "$mtu"
	on h1 ip addr add 10.90.0.1/24 dev bond0
	on h1 ip addr add fd90::1/64 dev bond0 nodad
	on h1 ip link set bond0 up
	ip link set "$peer" mtu "$mtu"
	ib_host h2 "$peer" 10.90.0.2/24 fd90::2/64
	wait_carrier h1 bond0
	wait_carrier h2 "$peer"
	# Whichever slave had carrier first is active: make it the first.
	wait_for 20 slave_up "$s1" || fail "$s1 is not up in bond0"
	wait_for 20 slave_up "$s2" || fail "$s2 is not up in bond0"
	on h1 ip link set bond0 type bond active_slave "$s1"
	wait_for 10 active_is "$s1" || fail "bond0's active slave is not $s1"
	h1 ip -d link show bond0
	assert_eq "$(h1 cat /sys/class/net/bond0/type)" 32 "bond0's type (ARPHRD_INFINIBAND)"
	assert_eq "$(h1 cat /sys/class/net/bond0/broadcast)" "$(h1 cat "/sys/class/net/$s1/broadcast")" \
		"bond0's broadcast address"
	assert_eq "$(h1 cat $bonding/fail_over_mac)" "active 1" "fail_over_mac"
	assert_eq "$(h1 cat /sys/class/net/bond0/address)" "$(h1 cat "/sys/class/net/$s1/address")" \
		"bond0's address"

	step "$drv, $mode: traffic through bond0"
	assert on h1 ping -c 3 -i 0.2 -W 2 10.90.0.2
	assert on h1 ping -6 -c 3 -i 0.2 -W 2 fd90::2
	# Larger than one UD message: only a connection carries it whole.
	[ "$mode" = datagram ] || assert on h1 ping -c 2 -i 0.2 -W 2 -M "do" -s 8000 10.90.0.2
	soak_tcp_start h2 10.90.0.2 h1
	stream_moves_on 1000000

	if [ "$drv:$mode" = ours:datagram ]; then
		step "ours: the backup's mode switched while it waits"
		for m in connected datagram connected; do
			h1 sh -c "echo $m >/sys/class/net/$s2/mode"
		done
		assert_eq "$(h1 cat "/sys/class/net/$s2/mode")" connected "$s2's mode"
		step "ours: no ring resize under a bond (a new QP is a new address)"
		rx=$(h1 ethtool -g "$s1" | awk '$1 == "RX:" { n++ } n == 2 { print $2; exit }')
		if out=$(h1 ethtool -G "$s1" rx $((rx * 2)) 2>&1); then
			fail "ethtool -G $s1 rx $((rx * 2)) (from $rx) succeeded on a bond slave: $out"
		fi
		echo "ethtool -G $s1 rx $((rx * 2)): $out"
		grep -q "release the slave first" <<<"$out" || fail "no reason given: $out"
		stream_moves_on 1000000
	fi

	failover 1 "$s1" "$s2"
	failover 2 "$s2" "$s1"

	step "$drv, $mode: the stream, whole"
	soak_tcp_stop
	echo "sent $soak_tcp_sent bytes, received $soak_tcp_received"
	assert_eq "$soak_tcp_whole" yes "the stream survived both failovers"
	assert_eq "$soak_tcp_received" "$soak_tcp_sent" "bytes received"
	sent=$soak_tcp_sent
	assert_ge "$sent" 3000000 "bytes sent"

	ip -n h1 link del bond0
	ip netns del h1
	ip netns del h2
}

# main_story WHO MODE: the story over the main interfaces of the driver
# loaded as ib_ipoib (WHO: intree or ours).
main_story() {
	bond_story "$1" "$2" "$(wait_iface ib_ipoib sib0 1)" "$(wait_iface ib_ipoib sib0 2)" \
		"$(wait_iface ib_ipoib sib1 1)"
}

fabric_up devices=2 ports=2 pkeys=0xffff,0x8002

step "the in-tree driver (witness)"
intree_up
main_story intree datagram
rmmod ib_ipoib

step "our driver"
ours_up
main_story ours datagram
main_story ours connected

step "ours: a bond of two P_Key 0x8002 children"
for p in 1 2; do
	ip link set "$(wait_iface ib_ipoib sib0 $p)" up
	ip link add link "$(wait_iface ib_ipoib sib0 $p)" name "ch$p" type ipoib pkey 0x8002
done
peer=$(wait_iface ib_ipoib sib1 1)
ip link set "$peer" up
ip link add link "$peer" name pch type ipoib pkey 0x8002
bond_story ours datagram ch1 ch2 pch
pass
