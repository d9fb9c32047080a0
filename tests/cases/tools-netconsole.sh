#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netconsole over IPoIB, to catch a dying node's last words: the kernel
# messages of h1 (netconsole bound to its IPoIB interface) arrive at a UDP
# listener on h2, written through /dev/kmsg; in datagram and in connected
# mode, and while a TCP stream fills the interface.  This runs the
# driver's netpoll path: netpoll hands ndo_start_xmit an Ethernet frame
# with interrupts off and polls the NAPI for the completions.
#
#   h1 (init namespace: netpoll binds there)    h2
#   sib0's interface 10.92.0.1  ---- switch ---- sib1's 10.92.0.2
#   netconsole=6665@10.92.0.1/IF,6666@10.92.0.2/     udplog 6666
#
# The in-tree driver (witness): the listener gets a datagram h1 sends with
# a socket, so the fabric and the listener are fair; its netconsole lines
# cannot arrive (its transmit path takes netpoll's Ethernet header for its
# own pseudo header), which the case shows but does not judge.
#
# Then, with ours, netconsole started before the interface has carrier
# (the fabric drops every MAD, so no broadcast group): netpoll says it
# waited for carrier, lines written meanwhile are counted as dropped,
# and lines arrive once the group is joined.
#
# timeout: 300
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

log=$PWD/udplog.out

# listener: udplog in h2 on port 6666.
listener() {
	: >"$log"
	ip netns exec h2 udplog 6666 >>"$log" 2>&1 &
	wait_for 10 udp_bound h2 6666 || fail "udplog did not start"
}

# arrived TEXT: the listener printed a line from h1 holding TEXT.
# shellcheck disable=SC2317 # called through wait_for
arrived() { grep -q "^10\.92\.0\.1: .*$1" "$log"; }

# kmsg TEXT: a kernel log line at warning level (the console prints it).
kmsg() { echo "<4>tools-netconsole: $*" >/dev/kmsg; }

# hosts WHO MODE: h1's interface stays here, h2 gets sib1's.
hosts() {
	a=$(wait_iface ib_ipoib sib0 1)
	b=$(wait_iface ib_ipoib sib1 1)
	echo "$2" >"/sys/class/net/$a/mode"
	echo "$2" >"/sys/class/net/$b/mode"
	ip addr add 10.92.0.1/24 dev "$a"
	ip link set "$a" up
	ib_host h2 "$b" 10.92.0.2/24
	wait_for 20 grep -qx 1 "/sys/class/net/$a/carrier" || fail "$a got no carrier"
	wait_carrier h2 "$b"
	listener
	assert ping -c 2 -i 0.2 -W 2 10.92.0.2
}

unhost() {
	rmmod netconsole 2>/dev/null || true
	ip addr flush dev "$a"
	ip link set "$a" down
	ip netns del h2
	pkill_udplog
}

pkill_udplog() {
	local p
	for p in $(pidof udplog); do kill "$p"; done
}

# netconsole_on IFACE: netconsole logging to h2 through IFACE.
netconsole_on() {
	echo "modprobe netconsole netconsole=6665@10.92.0.1/$1,6666@10.92.0.2/"
	modprobe netconsole "netconsole=6665@10.92.0.1/$1,6666@10.92.0.2/"
	dmesg | grep -q "netconsole: network logging started" ||
		{ dmesg | tail -n 20; fail "netconsole did not start"; }
}

# lost WHAT: what h2 got, where the interface and the fabric dropped, the
# neighbours netpoll looked up; fail.
lost() {
	cat "$log"
	echo "$a's drops: $(ethtool -S "$a" | awk '$1 ~ /drop/ && $2 > 0' | tr -s ' \n' ' ')"
	sib_counters sib0 1
	sib_counters sib1 1
	# netpoll sends to the neighbour's address handle, else drops.
	ip neigh show dev "$a"
	cat "/sys/kernel/debug/ib_ipoib/$a/neighs" 2>/dev/null || true
	fail "$1"
}

# ours_story MODE: lines arrive, one at a time and under TCP.
ours_story() {
	local mode=$1 i sink_pid send_pid
	step "ours, $mode: netconsole on $a"
	hosts ours "$mode"
	netconsole_on "$a"
	kmsg "hello from ours in $mode mode"
	wait_for 10 arrived "hello from ours in $mode mode" ||
		lost "the line did not arrive at h2"
	grep "tools-netconsole" "$log"

	step "ours, $mode: 20 lines while TCP fills the interface"
	ip netns exec h2 tcpstream sink 5299 >sink.out 2>&1 &
	sink_pid=$!
	wait_for 10 iperf_listening h2 5299 || fail "the TCP sink in h2 did not listen"
	tcpstream send 10.92.0.2 5299 >send.out 2>&1 &
	send_pid=$!
	wait_for 10 stream_up || fail "the TCP stream did not connect"
	for i in $(seq 20); do
		kmsg "under load $mode $i"
		sleep 0.1
	done
	# The stream ends once the lines are written; every byte must be there.
	kill "$send_pid"
	wait "$send_pid" || { cat send.out sink.out; fail "the TCP stream broke"; }
	wait "$sink_pid" || { cat send.out sink.out; fail "the TCP sink failed"; }
	echo "TCP: $(cat send.out), $(cat sink.out)"
	assert_eq "$(sed -n 's/^received //p' sink.out)" "$(sed -n 's/^sent //p' send.out)" "TCP bytes received"
	assert_ge "$(sed -n 's/^received //p' sink.out)" 1000000 "TCP bytes received"
	for i in $(seq 20); do
		wait_for 10 arrived "under load $mode $i\$" || {
			lost "line $i did not arrive"
		}
	done
	echo "all 20 lines arrived: $(grep -c "under load $mode" "$log") lines at h2"
	echo "$a's drops so far: $(ethtool -S "$a" | awk '$1 ~ /^tx_drop/ && $2 > 0' | tr -s ' \n' ' ')"
	unhost
}

# shellcheck disable=SC2317 # called through wait_for
stream_up() { ss -Htn state established 'dport = :5299' | grep -q .; }

fabric_up devices=2 ports=1

step "the in-tree driver (witness)"
intree_up
hosts intree datagram
echo "tools-netconsole: a socket's datagram" >/dev/udp/10.92.0.2/6666
wait_for 10 arrived "a socket's datagram" || fail "the listener did not get h1's datagram"
netconsole_on "$a"
kmsg "hello from the in-tree driver"
# netpoll sends the line as it is logged; a socket's datagram sent after
# it comes by the same path, so once that one is there, so is the line if
# it could come at all.
echo "tools-netconsole: a socket's datagram after the line" >/dev/udp/10.92.0.2/6666
wait_for 10 arrived "a socket's datagram after the line" || fail "the listener did not get h1's second datagram"
if arrived "hello from the in-tree driver"; then
	echo "in-tree: the netconsole line arrived"
else
	echo "in-tree: the netconsole line did not arrive (expected: see the header)"
fi
unhost
rmmod ib_ipoib

step "our driver"
ours_up
ours_story datagram
ours_story connected

step "ours: netconsole before carrier"
a=$(wait_iface ib_ipoib sib0 1)
b=$(wait_iface ib_ipoib sib1 1)
echo datagram >"/sys/class/net/$a/mode"
ib_host h2 "$b" 10.92.0.2/24
wait_carrier h2 "$b"
listener
echo 1 >"$SIB/mad_drop_every"
ip addr add 10.92.0.1/24 dev "$a"
ip link set "$a" up
netconsole_on "$a"
dmesg | grep -E 'netpoll|netconsole' | tail -n 5
d0=$(netdev_stat "$a" tx_dropped)
kmsg "before carrier"
[ "$(cat "/sys/class/net/$a/carrier")" = 0 ] || fail "carrier without the broadcast group"
assert_ge "$(($(netdev_stat "$a" tx_dropped) - d0))" 1 "lines counted as dropped before carrier"
echo "tx_dropped: $d0 -> $(netdev_stat "$a" tx_dropped);" \
	"$(ethtool -S "$a" | awk '$1 ~ /^tx_drop/ && $2 > 0' | tr -s ' \n' ' ')"
echo 0 >"$SIB/mad_drop_every"
wait_for 30 grep -qx 1 "/sys/class/net/$a/carrier" || fail "$a got no carrier"
# The first unicast needs the stack to resolve h2; until then the line
# goes to the broadcast group.
assert ping -c 1 -W 2 10.92.0.2
kmsg "after carrier"
wait_for 10 arrived "after carrier" || { cat "$log"; fail "no line after carrier"; }
grep "tools-netconsole" "$log"
pass
