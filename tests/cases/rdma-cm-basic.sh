#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA over IPoIB addresses: the kernel's rdma_cm (driven by the rdmaprobe
# test module) connects to listeners on IPoIB addresses, hosts in network
# namespaces, first with Debian's in-tree ib_ipoib (the witness that the
# case and the fabric are fair), then with ours.  Each connect resolves
# the address (ARP or ND over IPoIB) and the route (the SA), makes an RC
# QP, connects, sends 4096 bytes each way, compared with their CRC-32,
# and disconnects; the listener's side logs the CONNECT_REQUEST and the
# net_device rdma_cm matched it to (our get_net_dev_by_params answers).
#
#   h1: ib0       10.N.0.1 fdN::1  <-- rdma_cm both ways -->  h2: ib1       10.N.0.2 fdN::2
#   h1: ib0.8123  10.M.0.1         ---- rdma_cm ---------->  h2: ib1.8123  10.M.0.2
#
# Then, as rdma_cm needs the 20-byte link address (GID in bytes 4-19)
# current: after a switch to connected mode, and (ours; the in-tree driver
# has no ring resize) after ethtool -G, which brings a new QPN, the link
# address still holds the port's GID, a change of it (ours: the flags
# octet, the QPN) was announced (NETDEV_CHANGEADDR: `ip monitor link`
# sees the new address), and rdma_cm still connects.  Nothing is left
# behind: the fabric's count of QPs, CQs, PDs and MRs is back where it was
# once the connections are over (checked in datagram mode: in connected
# mode IPoIB's own connections count too).
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/rdma.sh
. "$TESTS_LIB/rdma.sh"

# gid_in_addr NS IFACE: bytes 4-19 of the link address, as a GID.
gid_in_addr() {
	ip netns exec "$1" cat "/sys/class/net/$2/address" | cut -d: -f5- |
		tr -d : | sed 's/\(....\)/\1:/g; s/:$//'
}

# addr_current NS IFACE IBDEV: the link address holds the port's GID.
addr_current() {
	assert_eq "$(gid_in_addr "$1" "$2")" "$(cat "/sys/class/infiniband/$3/ports/1/gids/0")" \
		"GID in $2's link address"
}

# monitored FILE ADDR: ip monitor has reported the link address.
# shellcheck disable=SC2317 # called by wait_for
monitored() { grep -qi "link/infiniband $2" "$1"; }

# change_announced WHAT NS IFACE IBDEV: after WHAT changed the link address,
# it is current, the change was sent to user space, rdma_cm connects.
change_announced() {
	local now
	now=$(ip netns exec "$2" cat "/sys/class/net/$3/address")
	echo "$1: $3's link address is now $now"
	addr_current "$2" "$3" "$4"
	wait_for 10 monitored mon.log "$now" ||
		fail "no NETDEV_CHANGEADDR: ip monitor link never saw $now"
	wait_carrier "$2" "$3"
}

# run LABEL LOAD NET NET_CHILD: the whole session with one driver.
run() {
	local label=$1 load=$2 n=$3 m=$4 before old mon
	step "$label: two hosts"
	$load
	two_hosts ib_ipoib "10.$n.0" "fd$n"
	echo "h1: $a: $(driver_of h1 "$a")"
	echo "h2: $b: $(driver_of h2 "$b")"
	before=$(verbs sib1)
	echo "sib1 verbs objects: $before"

	step "$label: listens in h2 (IPv4, IPv6) and h1"
	rp_ok h2 "listen 10.$n.0.2:7000"
	rp_has "listening on 10.$n.0.2:7000 \\(netns $(netns_id h2), sib1\\)"
	rp_ok h2 "listen [fd$n::2]:7000"
	rp_ok h1 "listen 10.$n.0.1:7001"
	rdma res show cm_id | tee cm_ids.txt
	grep -q "state LISTEN .*src-addr 10.$n.0.2:7000" cm_ids.txt ||
		fail "rdma res show cm_id lists no listen on 10.$n.0.2:7000"

	step "$label: h1 -> h2 over IPv4, IPv6; h2 -> h1"
	rp_ok h1 "connect 10.$n.0.2:7000"
	rp_exchanged h2 "$b"
	rp_has "^cli#[0-9]+ ADDR_RESOLVED status 0 dev $a "
	rp_ok h1 "connect [fd$n::2]:7000"
	rp_exchanged h2 "$b"
	rp_ok h2 "connect 10.$n.0.1:7001 len=16384"
	rp_exchanged h1 "$a"

	step "$label: to a P_Key child's address"
	ip -n h1 link add link "$a" name "$a.8123" type ipoib pkey 0x8123
	ip -n h2 link add link "$b" name "$b.8123" type ipoib pkey 0x8123
	ip -n h1 addr add "10.$m.0.1/24" dev "$a.8123"
	ip -n h2 addr add "10.$m.0.2/24" dev "$b.8123"
	ip -n h1 link set "$a.8123" up
	ip -n h2 link set "$b.8123" up
	wait_carrier h1 "$a.8123"
	wait_carrier h2 "$b.8123"
	rp_ok h2 "listen 10.$m.0.2:7000"
	rp_ok h1 "connect 10.$m.0.2:7000"
	rp_exchanged h2 "$b.8123"
	rp_has "^cli#[0-9]+ ADDR_RESOLVED status 0 dev $a.8123 "

	step "$label: the child's listen dropped, nothing left behind"
	rp_ok h2 "unlisten 10.$m.0.2:7000"
	rp_lacks "^conn "
	ip -n h1 link del "$a.8123"
	ip -n h2 link del "$b.8123"
	# Before connected mode: its own RC connections would count too.
	wait_for 10 verbs_are sib1 "$before" ||
		fail "sib1 verbs objects: $(verbs sib1), were $before"
	echo "sib1 verbs objects: $(verbs sib1)"

	step "$label: connected mode"
	ip -n h2 monitor link >mon.log 2>&1 &
	mon=$!
	old=$(ip netns exec h2 cat "/sys/class/net/$b/address")
	ip -n h1 link set "$a" type ipoib mode connected
	ip -n h2 link set "$b" type ipoib mode connected
	if [ "$label" = ours ]; then
		# Ours advertises RC in the flags octet in connected mode only.
		[ "$(ip netns exec h2 cat "/sys/class/net/$b/address")" != "$old" ] ||
			fail "the mode switch left $b's link address as it was"
		change_announced "connected mode" h2 "$b" sib1
	else
		# The in-tree driver advertises RC in either mode.
		assert_eq "$(ip netns exec h2 cat "/sys/class/net/$b/address")" "$old" \
			"the in-tree driver's link address after a mode switch"
		addr_current h2 "$b" sib1
		wait_carrier h2 "$b"
	fi
	rp_ok h1 "connect 10.$n.0.2:7000"
	rp_exchanged h2 "$b"

	if [ "$label" = ours ]; then
		step "$label: ring resize (a new QPN)"
		old=$(ip netns exec h2 cat "/sys/class/net/$b/address")
		ip netns exec h2 ethtool -G "$b" rx 256 tx 128
		[ "$(ip netns exec h2 cat "/sys/class/net/$b/address")" != "$old" ] ||
			fail "the resize left $b's link address (and QPN) as it was"
		change_announced "ring resize" h2 "$b" sib1
		rp_ok h1 "connect 10.$n.0.2:7000"
		rp_exchanged h2 "$b"
	fi
	kill "$mon"
	wait "$mon" 2>/dev/null || true

	step "$label: listens dropped"
	rp_ok h2 "unlisten 10.$n.0.2:7000"
	rp_ok h2 "unlisten [fd$n::2]:7000"
	rp_ok h1 "unlisten 10.$n.0.1:7001"
	rp_lacks "^(listen|conn) "
	ip netns del h1
	ip netns del h2
	rmmod ib_ipoib
}

fabric_up devices=2 ports=1 pkeys=0xffff,0x8123
rp_up
run in-tree intree_up 41 42
run ours ours_up 43 44
pass
