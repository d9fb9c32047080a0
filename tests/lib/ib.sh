# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for InfiniBand cases: the software fabric (sib) and the IPoIB
# drivers on it.  Source after common.sh.
#
# Drivers, by the name `ethtool -i` reports:
#   ib_ipoib    Debian's in-tree driver (intree_up), or ours (ours_up) --
#               never both at once, they share the module name
#   ipoib_alt   ours, built under another name to run beside the in-tree one

SIB=/sys/kernel/debug/sib
# Plain or compressed (.ko.xz): Debian compresses its 6.12 modules.
INTREE_KO=$(find "/lib/modules/$(uname -r)/kernel/drivers/infiniband/ulp/ipoib" -name 'ib_ipoib.ko*' 2>/dev/null | head -n 1)

# fabric_up [sib parameters...]: load the fabric and wait for every port to
# be ACTIVE.  "sibtest.break=ud" (or mad, rc) on the kernel command line
# breaks it on purpose, to show that the cases notice.
fabric_up() {
	local knob
	modprobe sib "$@"
	for knob in $(sed -n 's/.*sibtest\.break=\([a-z,]*\).*/\1/p' /proc/cmdline | tr , ' '); do
		echo "fabric_up: breaking the fabric on purpose: ${knob}_drop_every=1"
		echo 1 >"$SIB/${knob}_drop_every"
	done
	wait_for 10 all_ports_active || fail "ports did not become ACTIVE"
}

all_ports_active() {
	local s
	for s in /sys/class/infiniband/*/ports/*/state; do
		grep -q ACTIVE "$s" || return 1
	done
}

# intree_up [parameters...]: Debian's own ib_ipoib, unmodified.
intree_up() {
	modprobe ib_cm
	insmod "$INTREE_KO" "$@"
}

# ours_up [parameters...]: our driver as ib_ipoib.
ours_up() { modprobe ib_ipoib "$@"; }

# alt_up [parameters...]: our driver as ipoib_alt, beside the in-tree one.
alt_up() { modprobe ipoib_alt "$@"; }

# interop_up: ours (ipoib_alt) on sib0 and the in-tree driver on sib1 of a
# two-HCA fabric; sets ours and theirs to their interfaces.
interop_up() {
	fabric_up devices=2 ports=1
	alt_up
	intree_up
	# shellcheck disable=SC2034 # read by the case
	ours=$(wait_iface ipoib_alt sib0 1)
	# shellcheck disable=SC2034 # read by the case
	theirs=$(wait_iface ib_ipoib sib1 1)
	echo "ours: $ours on sib0, in-tree: $theirs on sib1"
}

# ipoib_iface DRIVER IBDEV PORT: the main interface DRIVER made on that port.
ipoib_iface() {
	local drv=$1 gid n addr
	gid=$(tr -d ':\n' <"/sys/class/infiniband/$2/ports/$3/gids/0") || return 1
	for n in /sys/class/net/*; do
		[ "$(cat "$n/type")" = 32 ] || continue
		addr=$(tr -d ':\n' <"$n/address")
		[ "${addr:8}" = "$gid" ] || continue
		[ "$(cat "$n/iflink")" = "$(cat "$n/ifindex")" ] || continue
		ethtool -i "${n##*/}" 2>/dev/null | grep -qx "driver: $drv" || continue
		echo "${n##*/}"
		return 0
	done
	echo "ipoib_iface: no $drv interface on $2 port $3" >&2
	return 1
}

# wait_iface DRIVER IBDEV PORT: as ipoib_iface, waiting for it to appear.
wait_iface() {
	local end=$((SECONDS + 10 * ${TIMEOUT_SCALE:-1}))
	until ipoib_iface "$@" 2>/dev/null; do
		[ "$SECONDS" -lt "$end" ] || { ipoib_iface "$@"; return 1; }
		sleep 0.2
	done
}

# two_hosts [--connected] DRIVER NET4 [NET6]: DRIVER's interfaces on sib0
# and sib1 as hosts h1 (NET4.1/24, NET6::1/64) and h2 (NET4.2, NET6::2),
# up with carrier; sets a and b to the interface names.  --connected puts
# both in connected mode at MTU 65520 first (the in-tree driver keeps its
# MTU on a mode change).
two_hosts() {
	local mode=datagram ifc
	[ "$1" != --connected ] || { mode=connected; shift; }
	a=$(wait_iface "$1" sib0 1)
	b=$(wait_iface "$1" sib1 1)
	if [ "$mode" = connected ]; then
		for ifc in "$a" "$b"; do
			echo connected >"/sys/class/net/$ifc/mode"
			ip link set "$ifc" mtu 65520
		done
	fi
	ib_host h1 "$a" "$2.1/24" ${3:+"$3::1/64"}
	ib_host h2 "$b" "$2.2/24" ${3:+"$3::2/64"}
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
}

# ib_host NS IFACE ADDR4/LEN [ADDR6/LEN]: a host owning IFACE, addressed, up.
ib_host() {
	local ns=$1 ifc=$2
	[ -e "/run/netns/$ns" ] || ns_add "$ns"
	move_to_ns "$ifc" "$ns"
	ip -n "$ns" addr add "$3" dev "$ifc"
	[ -z "${4:-}" ] || ip -n "$ns" addr add "$4" dev "$ifc" nodad
	ip -n "$ns" link set "$ifc" up
}

# wait_carrier NS IFACE: the interface has joined its broadcast group.
wait_carrier() {
	wait_for 20 carrier_is_on "$1" "$2" ||
		fail "$2 in $1 got no carrier (broadcast group not joined?)"
}

carrier_is_on() {
	[ "$(ip netns exec "$1" cat "/sys/class/net/$2/carrier" 2>/dev/null)" = 1 ]
}

# sib_counter IBDEV PORT NAME: a counter of the fabric's port.
sib_counter() {
	awk -v n="$3" '$1 == n { print $2 }' "$SIB/$1/port$2/counters"
}

# sib_counters IBDEV PORT: all of them, for the log.
sib_counters() {
	echo "-- sib $1 port $2 counters"
	sed 's/^/   /' "$SIB/$1/port$2/counters"
}

# iperf_bytes NS_SERVER ADDR NS_CLIENT [iperf3 options...]: run iperf3
# against a one-shot server started here; print the bytes the server got
# (and, on stderr, the rate).
iperf_bytes() {
	local srv=$1 addr=$2 cli=$3 json
	shift 3
	iperf_server "$srv" -B "$addr" || fail "iperf3 server in $srv did not start"
	json=$(ip netns exec "$cli" iperf3 -c "$addr" -J "$@") ||
		{ echo "$json" >&2; fail "iperf3 to $addr failed"; }
	echo "$json" | awk -F'[:,]' '
		/"sum_received"/ { inr = 1 }
		inr && /"bytes"/ { gsub(/[ \t]/, "", $2); bytes = $2 }
		inr && /"bits_per_second"/ {
			gsub(/[ \t]/, "", $2)
			printf "iperf3: %s bytes, %.1f Mbit/s\n", bytes, $2 / 1e6 > "/dev/stderr"
			print bytes
			exit
		}'
}

# sib_stall IBDEV PORT 0|1: 1 stops the port handing out receive buffers to
# all but QP0/QP1 (RC senders get RNR NAKs, UD and UC is dropped as
# drop_no_buffer); 0 lets it receive again.
sib_stall() { echo "$3" >"$SIB/$1/port$2/rx_stall"; }

# sib_ipoib_count IBDEV PORT TRANSPORT CLASS: messages the port sent on
# TRANSPORT (ud rc uc) whose IPoIB payload is of CLASS (arp ipv4 ipv6 nd
# other).
sib_ipoib_count() {
	awk -v t="$3" -v c="$4" '$1 == t && $2 == c { print $3 }' "$SIB/$1/port$2/ipoib"
}
