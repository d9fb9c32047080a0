#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debugfs: /sys/kernel/debug/ib_ipoib/<interface>/{mcg,paths,neighs,cm},
# read over and over while a TCP stream runs (every byte of it arrives),
# show the broadcast group joined, the path to the peer and the peer's
# link address; a child has a folder of its own that goes away with it.
#
#   h1: A 10.60.0.1 ---- software fabric ---- h2: B 10.60.0.2
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

D=/sys/kernel/debug/ib_ipoib

# stream_start: a TCP stream from h1 to h2 until stream_end.
stream_start() {
	rx0=$(netdev_stat "$b" rx_bytes h2)
	soak_tcp_start h2 10.60.0.2 h1
}

# shellcheck disable=SC2317 # called through wait_for
rx_past() { [ "$(netdev_stat "$b" rx_bytes h2)" -ge "$1" ]; }

# stream_end WHEN: once h2 has had 1 MB of it, end the stream; every
# byte sent must have arrived.
stream_end() {
	wait_for 30 rx_past $((rx0 + 1000000)) || fail "the TCP stream $1 stalled"
	soak_tcp_stop
	echo "TCP $1: sent $soak_tcp_sent bytes, received $soak_tcp_received"
	assert_eq "$soak_tcp_whole" yes "the TCP stream $1"
	assert_eq "$soak_tcp_received" "$soak_tcp_sent" "TCP bytes received $1"
}
fabric_up devices=2 ports=1 pkeys=0xffff,0x8001
ours_up
two_hosts ib_ipoib 10.60.0
assert on h1 ping -c 2 -i 0.2 -W 2 10.60.0.2

step "the files, one folder per interface"
ls -l "$D" "$D/$a"
for f in mcg paths neighs cm; do
	[ -r "$D/$a/$f" ] || fail "no readable $D/$a/$f"
done
gid_b=$(ip netns exec h2 cat "/sys/class/infiniband/sib1/ports/1/gids/0")
addr_b=$(ip netns exec h2 cat "/sys/class/net/$b/address")
qpn_b=$(echo "$addr_b" | cut -d: -f2-4 | tr -d :)

step "read them all while TCP runs"
stream_start
reads=0
for _ in $(seq 10); do
	for f in mcg paths neighs cm; do
		cat "$D/$a/$f" "$D/$b/$f" >/dev/null || fail "reading $f failed under traffic"
		reads=$((reads + 2))
	done
done
stream_end "while debugfs was read"
echo "$reads reads"

step "mcg: the broadcast group, joined"
cat "$D/$a/mcg"
grep -E "^ff12:401b:ffff:.* broadcast +joined +yes" "$D/$a/mcg" ||
	fail "mcg does not show the broadcast group joined and attached"

step "paths: the peer's GID, resolved"
cat "$D/$a/paths"
grep -E "^$gid_b .* valid +[1-9]" "$D/$a/paths" ||
	fail "paths does not show a valid path to $gid_b with a neighbour"

step "neighs: the peer's link address, with its AH"
cat "$D/$a/neighs"
grep -E "^00:0*$qpn_b:.* yes " "$D/$a/neighs" ||
	fail "neighs does not show QPN $qpn_b resolved"

step "cm: readable"
cat "$D/$a/cm"

if [ -e /sys/module/ib_ipoib/parameters/cm_policy ]; then
	step "cm: the connection to the peer, read while TCP runs in connected mode"
	on h1 sh -c "echo connected >/sys/class/net/$a/mode"
	on h2 sh -c "echo connected >/sys/class/net/$b/mode"
	on h1 ip link set "$a" mtu 65520
	on h2 ip link set "$b" mtu 65520
	assert on h1 ping -c 2 -i 0.2 -W 2 -s 60000 10.60.0.2
	stream_start
	for _ in $(seq 20); do
		cat "$D/$a/cm" "$D/$b/cm" "$D/$a/neighs" >/dev/null ||
			fail "reading cm failed under traffic"
	done
	stream_end "in connected mode while debugfs was read"
	cat "$D/$a/cm"
	# The peer's address past its flags octet, on a line of an RC connection.
	grep -F "${addr_b:3}" "$D/$a/cm" | grep -qE " (RC|UC) " ||
		fail "cm does not show the connection to $addr_b"
fi

step "a child has its own folder, gone with it"
on h1 sh -c "echo 0x8001 >/sys/class/net/$a/create_child"
child=$a.8001
[ -d "$D/$child" ] || fail "no debugfs folder for $child"
cat "$D/$child/mcg"
on h1 ip link set "$child" name renamed0
[ -d "$D/$child" ] || fail "the folder did not keep the name the child had when made"
cat "$D/$child/neighs" >/dev/null
on h1 sh -c "echo 0x8001 >/sys/class/net/$a/delete_child"
[ ! -e "$D/$child" ] || fail "the child's folder outlived it"
assert on h1 ping -c 2 -i 0.2 -W 2 10.60.0.2
pass
