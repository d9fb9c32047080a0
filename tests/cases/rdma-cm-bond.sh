#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma_cm through an active-backup bond of two IPoIB interfaces, with
# Debian's in-tree ib_ipoib first (the witness), then ours.  The address
# lives on the bond; a request arrives on a slave's port, and the
# interface rdma_cm must be told of is the bond (its address and routes
# are the bond's).  After a failover to the other slave the request
# arrives on the other port and is still the bond's:
#
#   h1: ib (sib0 port 1) 10.81.0.1  -->  h2: bond0 10.81.0.2, listening :7000
#                                           slaves: ib (sib1 port 1), ib (sib1 port 2)
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/rdma.sh
. "$TESTS_LIB/rdma.sh"

# shellcheck disable=SC2317 # called by wait_for
active_is() { ip netns exec h2 grep -q "Currently Active Slave: $1\$" /proc/net/bonding/bond0; }

# via PORT SLAVE: h1 connects (its neighbour entry for h2 made anew) and
# the request, on sib1 port PORT, is the bond's.
via() {
	ip -n h1 neigh flush dev "$a"
	rp_ok h1 "connect 10.81.0.2:7000"
	rp_exchanged h2 bond0
	rp_has " on sib1 port $1 net_device bond0 "
	echo "the request came in on sib1 port $1, whose interface $2 is bond0's active slave"
}

run() {
	local label=$1 b1 b2
	step "$label: h2's two interfaces in an active-backup bond"
	$2
	a=$(wait_iface ib_ipoib sib0 1)
	b1=$(wait_iface ib_ipoib sib1 1)
	b2=$(wait_iface ib_ipoib sib1 2)
	ib_host h1 "$a" 10.81.0.1/24
	ns_add h2
	move_to_ns "$b1" h2
	move_to_ns "$b2" h2
	ip -n h2 link add bond0 type bond mode active-backup miimon 100 primary "$b1"
	ip -n h2 link set "$b1" master bond0
	ip -n h2 link set "$b2" master bond0
	ip -n h2 addr add 10.81.0.2/24 dev bond0
	ip -n h2 link set bond0 up
	wait_carrier h1 "$a"
	wait_carrier h2 bond0
	wait_for 20 active_is "$b1" || fail "bond0's active slave is not $b1"
	echo "h2: $b1: $(driver_of h2 "$b1")"
	ip netns exec h2 grep -E "Bonding Mode|Slave Interface|Currently Active" /proc/net/bonding/bond0

	step "$label: rdma_cm to the bond's address"
	rp_ok h2 "listen 10.81.0.2:7000"
	via 1 "$b1"

	step "$label: failover to the other slave"
	ip -n h2 link set "$b1" down
	wait_for 20 active_is "$b2" || fail "bond0 did not fail over to $b2"
	ip netns exec h2 grep "Currently Active" /proc/net/bonding/bond0
	via 2 "$b2"

	rp_ok h2 "unlisten 10.81.0.2:7000"
	ip netns del h1
	ip -n h2 link del bond0
	ip netns del h2
	rmmod ib_ipoib
}

fabric_up devices=2 ports=2
modprobe bonding
rp_up
run in-tree intree_up
run ours ours_up
pass
