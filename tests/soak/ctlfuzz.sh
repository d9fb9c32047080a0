#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Campaign: control-plane fuzzing.  Every request is refused with an errno
# or applied, and the interface still carries traffic after it:
#
#   params   our module loaded with 1-3 random parameters (sizes, policies,
#            timeouts, in range and not): refused, or it loads and pings
#   sysfs    random writes to mode, umcast, create_child, delete_child
#            and mtu of h1's interface, under TCP; h1 pings h2 after each
#   netlink  random RTM_NEWLINK requests of kind ipoib on h1's interface
#            (tests/tools/ipoib-nlfuzz.c: attribute types, sizes and
#            values), batches of 100, under TCP; a ping after each batch
#   ethtool  random -G, -C and -K settings on h1, under TCP; a ping after
#            each
#
#   h1: ib (sib0) 10.18.0.1  ===  h2: ib (sib1) 10.18.0.2
#
# One SOAK line per part.  soak.scale=N on the kernel command line: N x 5
# loads, N x 20 sysfs writes, N x 2 netlink batches and N x 20 ethtool
# commands (make soak: 50, 200, 2,000 requests, 200).
#
# timeout: 3600
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"
# shellcheck source=SCRIPTDIR/../lib/soak.sh
. "$TESTS_LIB/soak.sh"

LOADS=$(soak_knob loads $((5 * SOAK_SCALE)))
WRITES=$(soak_knob writes $((20 * SOAK_SCALE)))
BATCHES=$(soak_knob batches $((2 * SOAK_SCALE)))
COMMANDS=$(soak_knob commands $((20 * SOAK_SCALE)))
RANDOM=4393

# pick WORD...: one of the words, at random.
pick() {
	local w=("$@")
	echo "${w[RANDOM % ${#w[@]}]}"
}

hosts_up() {
	two_hosts ib_ipoib 10.18.0
}

hosts_down() {
	rmmod ib_ipoib
	ip netns del h1
	ip netns del h2
}

# shellcheck disable=SC2317 # called through wait_for
h1_pings() { ip netns exec h1 ping -c 1 -W 1 10.18.0.2 >/dev/null; }

# attempt NAME CMD...: run CMD, count it applied or refused, then count the
# attempt recovered once h1 pings h2 (within 60 s).
attempt() {
	local name=$1 t0
	shift
	if "$@" >/tmp/ctl.out 2>&1; then
		applied=$((applied + 1))
	else
		refused=$((refused + 1))
		echo "$name: refused: $(head -c 160 /tmp/ctl.out | tr '\n' ' ')"
	fi
	t0=$(soak_now)
	soak_recover "$name" "$t0" h1 10.18.0.2
}

fabric_up devices=2 ports=1 pkeys=0xffff,0x8001,0x8002

# param_word: one module parameter with a value, in range or not.
param_word() {
	case $((RANDOM % 8)) in
	0) echo "send_queue_size=$(pick 0 1 2 63 64 100 256 8192 16384 4294967296 -1 x)" ;;
	1) echo "recv_queue_size=$(pick 0 1 2 63 64 100 512 8192 16384 4294967296 -1 x)" ;;
	2) echo "cm_policy=$(pick compatible rfc auto bogus '')" ;;
	3) echo "cm_service_id=$(pick linux rfc 0x1000 junk '')" ;;
	4) echo "cm_uc=$(pick 0 1 yes no 2 x)" ;;
	5) echo "cm_idle_timeout=$(pick 0 1 60 86400 4294967295 4294967296 -1)" ;;
	6) echo "cm_max_conn_nosrq=$(pick 0 1 2 64 100000 -1)" ;;
	*) echo "debug_level=$(pick 0 1 -1 99)" ;;
	esac
}

step "params: $LOADS loads with random module parameters"
loads=0 loaded=0 refusals=0 loads_ok=0
for i in $(seq "$LOADS"); do
	words=()
	for _ in $(seq $((RANDOM % 3 + 1))); do
		words+=("$(param_word)")
	done
	loads=$((loads + 1))
	if modprobe ib_ipoib "${words[@]}" 2>/tmp/ctl.out; then
		loaded=$((loaded + 1))
		echo "load $i: ${words[*]}: loaded"
		hosts_up
		if wait_for 30 h1_pings; then
			loads_ok=$((loads_ok + 1))
		else
			echo "load $i: loaded with ${words[*]} but h1 cannot ping h2"
		fi
		hosts_down
	else
		refusals=$((refusals + 1))
		echo "load $i: ${words[*]}: refused: $(dmesg | tail -n 1)"
		if ip -o link | grep -q link/infiniband; then
			echo "load $i: a refused load left an interface"
		else
			loads_ok=$((loads_ok + 1))
		fi
	fi
done
echo "SOAK ctlfuzz-params attempts=$loads recovered=$loads_ok recover_median_s=- recover_worst_s=-" \
	"tcp_sent=- tcp_received=- tcp_whole=- verbs_back=-"
echo "   params: $loads loads, $loaded loaded, $refusals refused"
[ "$loads_ok" = "$loads" ] || soak_failed=1

ours_up
hosts_up
soak_baseline

step "sysfs: $WRITES random writes on h1 under TCP"
files=(mode umcast create_child delete_child mtu)
# sysfs_value FILE: a value meant for FILE half of the time, any the rest.
sysfs_value() {
	local any=(connected datagram conn "" 0 1 2 -1 0x8001 0x8002 0x7fff 0xffff 0x10000 65520
		2044 68 99999999999 junk)
	if [ $((RANDOM % 2)) = 0 ]; then
		pick "${any[@]}"
		return
	fi
	case $1 in
	mode) pick connected datagram ;;
	umcast) pick 0 1 ;;
	create_child | delete_child) pick 0x8001 0x8002 0x8003 0x0001 0x7fff 0xffff 0x10000 ;;
	*) pick 65520 65521 4092 2044 1280 576 68 67 ;;
	esac
}
applied=0 refused=0
soak_tcp_start h2 10.18.0.2 h1
for i in $(seq "$WRITES"); do
	f=$(pick "${files[@]}")
	v=$(sysfs_value "$f")
	attempt "write $i: $f <- '$v'" ip netns exec h1 sh -c "echo '$v' >/sys/class/net/$a/$f"
done
# Back to a sane set-up before the stream ends: an MTU of 68 leaves TCP
# no segment size it may send.
for c in $(ip -n h1 -o link | sed -n "s/^[0-9]*: \($a\.[^@:]*\).*/\1/p"); do
	ip -n h1 link del "$c"
done
ip -n h1 link set "$a" type ipoib mode datagram
ip -n h1 link set "$a" mtu 2044
wait_carrier h1 "$a"
soak_tcp_stop
echo "   sysfs: $WRITES writes, $applied applied, $refused refused"
soak_report ctlfuzz-sysfs

step "netlink: $BATCHES batches of 100 random requests on h1 under TCP"
applied=0 refused=0
soak_tcp_start h2 10.18.0.2 h1
for i in $(seq "$BATCHES"); do
	attempt "batch $i" ip netns exec h1 ipoib-nlfuzz ipoib "$a" 100 "$i"
	sed 's/^/   netlink: /' /tmp/ctl.out
done
soak_tcp_stop
soak_report ctlfuzz-netlink

step "ethtool: $COMMANDS random settings on h1 under TCP"
applied=0 refused=0
soak_tcp_start h2 10.18.0.2 h1
for i in $(seq "$COMMANDS"); do
	case $((RANDOM % 3)) in
	0) args="-G $a $(pick rx tx) $(pick 0 16 64 100 256 1024 8192 16384 100000)" ;;
	1) args="-C $a $(pick rx-usecs rx-frames tx-usecs tx-frames) $(pick 0 1 3 64 1000 100000)" ;;
	*) args="-K $a $(pick tso gso gro rx tx sg) $(pick on off)" ;;
	esac
	# shellcheck disable=SC2086 # args is a list of words
	attempt "ethtool $i: $args" ip netns exec h1 ethtool $args
done
soak_tcp_stop
ip netns exec h1 ethtool -G "$a" rx 512 tx 256 || true
echo "   ethtool: $COMMANDS commands, $applied applied, $refused refused"
soak_report ctlfuzz-ethtool
soak_end
