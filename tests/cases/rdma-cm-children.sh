#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several P_Key children of one port sharing one P_Key (as a container
# host makes one per pod with `ip link add ... type ipoib`): they share
# the port's GID too, so only the IP address a connection request names
# tells rdma_cm's question "which interface?" apart.  With Debian's
# in-tree ib_ipoib first (the witness), then ours, each request must reach
# the listener of the right namespace, matched to the child that holds the
# address:
#
#                                   sib1 port 1, P_Key 0x8123 on all four:
#   h1: ib0.8123 10.61.0.1 fd61::1  --> h2: c1 10.61.0.2 fd61::2  listen :7000
#       10.62.0.1 10.63.0.1         --> h3: c2 10.61.0.3 fd61::3  listen :7000
#                                   --> h4: c3 10.62.0.4, c4 10.63.0.4,
#                                           one listen on 0.0.0.0:7001
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/rdma.sh
. "$TESTS_LIB/rdma.sh"

# child NAME NS ADDR...: a child of sib1's interface on P_Key 0x8123, in
# NS, addressed, up.
child() {
	local name=$1 ns=$2 addr
	shift 2
	ip link add link "$b" name "$name" type ipoib pkey 0x8123
	[ -e "/run/netns/$ns" ] || ns_add "$ns"
	move_to_ns "$name" "$ns"
	for addr in "$@"; do
		ip -n "$ns" addr add "$addr" dev "$name" nodad
	done
	ip -n "$ns" link set "$name" up
}

run() {
	local label=$1 c ns ifc
	step "$label: four children of sib1 on P_Key 0x8123"
	$2
	a=$(wait_iface ib_ipoib sib0 1)
	b=$(wait_iface ib_ipoib sib1 1)
	ip link set "$a" up
	ip link set "$b" up
	ip link add link "$a" name "$a.8123" type ipoib pkey 0x8123
	ib_host h1 "$a.8123" 10.61.0.1/24 fd61::1/64
	ip -n h1 addr add 10.62.0.1/24 dev "$a.8123"
	ip -n h1 addr add 10.63.0.1/24 dev "$a.8123"
	child c1 h2 10.61.0.2/24 fd61::2/64
	child c2 h3 10.61.0.3/24 fd61::3/64
	child c3 h4 10.62.0.4/24
	child c4 h4 10.63.0.4/24
	wait_carrier h1 "$a.8123"
	for c in "h2 c1" "h3 c2" "h4 c3" "h4 c4"; do
		# shellcheck disable=SC2086
		wait_carrier $c
	done
	echo "c1: $(driver_of h2 c1)"
	for c in "h2 c1" "h3 c2" "h4 c3" "h4 c4"; do
		read -r ns ifc <<<"$c"
		echo "$ns: $(ip -n "$ns" -br link show "$ifc")"
	done

	step "$label: listens"
	rp_ok h2 "listen 10.61.0.2:7000"
	rp_ok h2 "listen [fd61::2]:7000"
	rp_ok h3 "listen 10.61.0.3:7000"
	rp_ok h3 "listen [fd61::3]:7000"
	rp_ok h4 "listen 0.0.0.0:7001"

	step "$label: each address reaches its own child's namespace"
	rp_ok h1 "connect 10.61.0.2:7000"
	rp_exchanged h2 c1
	rp_ok h1 "connect 10.61.0.3:7000"
	rp_exchanged h3 c2
	rp_ok h1 "connect [fd61::3]:7000"
	rp_exchanged h3 c2
	rp_ok h1 "connect [fd61::2]:7000"
	rp_exchanged h2 c1

	step "$label: one namespace, one listen on any address: the child that holds it"
	rp_ok h1 "connect 10.62.0.4:7001"
	rp_exchanged h4 c3
	rp_ok h1 "connect 10.63.0.4:7001"
	rp_exchanged h4 c4

	step "$label: the second child gone, its address is refused; the first still answers"
	ip -n h3 link del c2
	rp_refused h1 "connect 10.61.0.3:7000 timeout=3000"
	rp_lacks CONNECT_REQUEST
	rp_ok h1 "connect 10.61.0.2:7000"
	rp_exchanged h2 c1

	rp_ok h2 "unlisten 10.61.0.2:7000"
	rp_ok h2 "unlisten [fd61::2]:7000"
	rp_ok h3 "unlisten 10.61.0.3:7000"
	rp_ok h3 "unlisten [fd61::3]:7000"
	rp_ok h4 "unlisten 0.0.0.0:7001"
	for c in h1 h2 h3 h4; do
		ip netns del "$c"
	done
	rmmod ib_ipoib
}

fabric_up devices=2 ports=1 pkeys=0xffff,0x8123
rp_up
run in-tree intree_up
run ours ours_up
pass
