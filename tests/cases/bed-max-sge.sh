#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An HCA that gathers at most two SGEs per send (sib max_sge=2, the least
# the in-tree driver takes: its UD receives are two).  A file served with
# sendfile (busybox httpd) leaves one page per fragment, more than two SGEs
# hold, so in datagram mode (TSO on) each driver must copy such packets
# into one buffer (skb_linearize), or the fabric refuses the send; our
# driver counts its copies (ethtool -S tx_linearized).  Connected mode has
# no checksum offload, so there the stack copies sendfile's shared pages
# itself before the driver sees them.  Both modes: the file arrives intact
# (sha256), no send refused or dropped, and connected mode carries it over
# RC.  The in-tree driver goes first: the witness.  A limit out of range
# fails sib's load, saying so.
#
#   h1: ib (sib0 port 1) 10.13.0.1 httpd  ===UD, then RC===  h2: ib (sib1 port 1) 10.13.0.2 wget
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

# Two-SGE receives hold 8176 bytes in-tree (a page and a page), 4608 in
# ours (a 512-byte head and a page): an MTU both take.
CM_MTU=4000

step "a limit out of range fails the load"
if modprobe sib max_sge=0 2>/dev/null; then
	fail "sib loaded with max_sge=0"
fi
dmesg | grep "sib: max_sge=0 out of range" || fail "no message for max_sge=0"

fabric_up devices=2 ports=1 max_sge=2
mkdir -p www
head -c $((8 << 20)) /dev/urandom >www/blob
want=$(sha256sum <www/blob)
echo "blob: 8 MiB, sha256 ${want%% *}"

stat_of() { ip netns exec h1 ethtool -S "$1" | awk -v k="$2:" '$1 == k { print $2 }'; }

# fetch DRIVER MODE: h2 gets the blob from h1's httpd (sendfile); compare,
# count what crossed and what the sender dropped.
fetch() {
	local drv=$1 pid got lin0='' err0 drop0 tx0
	err0=$(netdev_stat "$a" tx_errors h1)
	drop0=$(netdev_stat "$a" tx_dropped h1)
	tx0=$(sib_counter sib0 1 tx_bytes)
	[ "$drv" = ours ] && lin0=$(stat_of "$a" tx_linearized)
	ip netns exec h1 busybox httpd -f -p 10.13.0.1:8080 -h "$PWD/www" &
	pid=$!
	wait_for 10 iperf_listening h1 8080 || fail "httpd did not start"
	ip netns exec h2 timeout 60 busybox wget -q -O got http://10.13.0.1:8080/blob ||
		fail "wget failed"
	kill "$pid"
	wait "$pid" || true
	got=$(sha256sum <got)
	echo "received $(stat -c %s got) bytes, sha256 ${got%% *}"
	assert_eq "$got" "$want" "sha256 of the file received"
	echo "sib0 port 1 sent $(( $(sib_counter sib0 1 tx_bytes) - tx0 )) bytes"
	assert_eq "$(netdev_stat "$a" tx_errors h1)" "$err0" "h1 send errors"
	assert_eq "$(netdev_stat "$a" tx_dropped h1)" "$drop0" "h1 sends dropped"
	if [ "$drv" = ours ]; then
		echo "tx_linearized: $(( $(stat_of "$a" tx_linearized) - lin0 ))"
		[ "$2" = connected ] ||
			assert_ge "$(( $(stat_of "$a" tx_linearized) - lin0 ))" 1 "packets linearized"
		assert_eq "$(stat_of "$a" tx_drop_post)" 0 "sends the HCA refused"
	fi
	rm -f got
}

# run DRIVER: both modes on DRIVER (intree or ours, ib_ipoib both).
run() {
	local drv=$1 lso0 rc0 mtu
	step "$drv: datagram mode, TSO"
	"${drv}_up"
	two_hosts ib_ipoib 10.13.0
	ip netns exec h1 ethtool -k "$a" | grep -E '^(scatter-gather|tcp-segmentation-offload):'
	ip netns exec h1 ethtool -k "$a" | grep -qx 'scatter-gather: on' ||
		fail "scatter-gather off with two SGEs"
	lso0=$(sib_counter sib0 1 lso_segments)
	fetch "$drv" datagram
	echo "LSO segments cut by sib0: $(( $(sib_counter sib0 1 lso_segments) - lso0 ))"
	assert_ge "$(( $(sib_counter sib0 1 lso_segments) - lso0 ))" 1 "LSO segments"

	step "$drv: connected mode, MTU $CM_MTU"
	ip netns exec h1 sh -c "echo connected >/sys/class/net/$a/mode"
	ip netns exec h2 sh -c "echo connected >/sys/class/net/$b/mode"
	mtu=$(ip netns exec h1 cat "/sys/class/net/$a/mtu")
	echo "connected-mode MTU the driver chose: $mtu"
	# Ours: what its 512-byte head and one page hold, less the encap.
	[ "$drv" = intree ] || assert_eq "$mtu" 4604 "connected-mode MTU"
	ip -n h1 link set "$a" mtu "$CM_MTU"
	ip -n h2 link set "$b" mtu "$CM_MTU"
	rc0=$(sib_ipoib_count sib0 1 rc ipv4)
	fetch "$drv" connected
	echo "IPv4 messages sib0 sent over RC: $(( $(sib_ipoib_count sib0 1 rc ipv4) - rc0 ))"
	assert_ge "$(( $(sib_ipoib_count sib0 1 rc ipv4) - rc0 ))" 100 "IPv4 over RC"
	rmmod ib_ipoib
}

run intree
run ours
sib_counters sib0 1
pass
