# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for test cases; a case starts with
#
#   set -eu
#   . "$TESTS_LIB/common.sh"
#
# A case passes when it exits 0 and the kernel logged nothing bad meanwhile;
# exit status 77 (skip) reports it skipped.
# The harness resets the VM after each case (processes, namespaces, links,
# modules), so a case need not clean up after itself.

# Under "set -e", name the command that ended the case (once: not again
# from within a command substitution).
if [[ $- == *e* ]]; then
	set -E
	_on_err() {
		[ "$BASH_SUBSHELL" -eq 0 ] || return 0
		case $3 in
		return*) echo "FAIL: $2 (exit $1)" >&2 ;; # a helper said why
		*) echo "FAIL: $2: $3 (exit $1)" >&2 ;;
		esac
	}
	trap '_on_err $? "${BASH_SOURCE[0]##*/}:$LINENO" "$BASH_COMMAND"' ERR
fi

# step MSG: print a heading, so the output reads like a session; the
# seconds since the case began show where its time goes.
step() { printf '\n== %s  [%ds]\n' "$*" "$SECONDS"; }

# pass / fail MSG / skip MSG: end the case (skip: exit status 77).
pass() { echo PASS; exit 0; }
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

# ns_add NAME: a network namespace with its loopback up.
ns_add() {
	ip netns add "$1"
	ip -n "$1" link set lo up
}

# on NAME CMD...: run CMD in namespace NAME, showing it first.
# ("in" would read better, but it is a reserved word of bash.)
on() {
	local ns=$1
	shift
	echo "[$ns] $*"
	ip netns exec "$ns" "$@"
}

# move_to_ns IFACE NS: move a network interface into a namespace.
move_to_ns() { ip link set dev "$1" netns "$2"; }

# assert CMD...: run CMD; fail, showing it, unless it succeeds.
assert() { "$@" || fail "assertion failed (exit $?): $*"; }

# assert_eq A B WHAT / assert_ge A B WHAT: compare (integers for _ge).
assert_eq() { [ "$1" = "$2" ] || fail "${3:-value}: expected '$2', got '$1'"; }
assert_ge() { [ "$1" -ge "$2" ] || fail "${3:-value}: expected >= $2, got $1"; }

# wait_for SECONDS CMD...: retry CMD every 0.1 s until it succeeds; when
# SECONDS (times TIMEOUT_SCALE: slow kernels) pass first, say so and return 1.
wait_for() {
	local end=$((SECONDS + $1 * ${TIMEOUT_SCALE:-1}))
	shift
	until "$@" >/dev/null 2>&1; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "wait_for: gave up waiting for: $*" >&2
			return 1
		fi
		sleep 0.1
	done
}

# iperf_server NS [iperf3 -s options...]: a one-shot iperf3 server in NS
# (-p PORT as for iperf3, default 5201), back once it listens: iperf3 -D
# returns before its daemon has bound the port.
iperf_server() {
	local ns=$1 port=5201 prev='' arg
	shift
	for arg in "$@"; do
		[ "$prev" != -p ] || port=$arg
		prev=$arg
	done
	ip netns exec "$ns" iperf3 -s -1 -D -I "/tmp/iperf3-$ns-$port.pid" "$@" >/dev/null ||
		return 1
	wait_for 10 iperf_listening "$ns" "$port"
}

# iperf_listening NS PORT: something in NS listens on TCP port PORT.
iperf_listening() { ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q .; }

# udp_bound NS PORT: a socket in NS is bound to UDP port PORT.
udp_bound() { ip netns exec "$1" ss -Hlun "sport = :$2" | grep -q .; }

# pinned_udp_windows N SIZE FROM "NS ADDR PORT"...: for the I-th target,
# `udpbench ack PORT` in NS, and from FROM a sender pinned to CPU I with
# N datagrams of SIZE bytes, 16 unanswered at most (none lost to a full
# ring: what does not arrive, the path lost).  Back once all are done;
# target I's sender printed /tmp/udpwin.I, its receiver /tmp/udpack.I.
pinned_udp_windows() {
	local n=$1 size=$2 from=$3 i t ns addr port pids=()
	shift 3
	i=0
	for t in "$@"; do
		read -r ns addr port <<<"$t"
		ip netns exec "$ns" udpbench ack "$port" >"/tmp/udpack.$i" 2>&1 &
		pids+=($!)
		wait_for 10 udp_bound "$ns" "$port" || fail "udpbench ack in $ns did not bind $port"
		i=$((i + 1))
	done
	i=0
	for t in "$@"; do
		read -r ns addr port <<<"$t"
		ip netns exec "$from" taskset -c "$i" udpbench window "$addr" "$port" \
			"$n" "$size" 16 >"/tmp/udpwin.$i" 2>&1 &
		pids+=($!)
		i=$((i + 1))
	done
	for t in "${pids[@]}"; do
		wait "$t" || true
	done
}

# iperf_server_stop NS [PORT]: end the server iperf_server started.
# A one-shot server may exit (and remove its pidfile) at any moment.
iperf_server_stop() {
	local pidfile="/tmp/iperf3-$1-${2:-5201}.pid" pid
	pid=$(cat "$pidfile" 2>/dev/null) || true
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	rm -f "$pidfile"
}

# kernel_log_mark MSG: write MSG into the kernel log, to find one's place in it.
kernel_log_mark() { echo "test: $*" >/dev/kmsg; }

# iface_of_port IBDEV PORT: print the IPoIB netdev (of this namespace) bound to
# port PORT of IB device IBDEV: the one whose hardware address holds the
# port's GID (and, among a parent and its children, the parent).
iface_of_port() {
	local gid n addr found=
	gid=$(tr -d ':\n' <"/sys/class/infiniband/$1/ports/$2/gids/0") || return 1
	for n in /sys/class/net/*; do
		[ "$(cat "$n/type")" = 32 ] || continue # ARPHRD_INFINIBAND
		addr=$(tr -d ':\n' <"$n/address")
		[ "${addr:8}" = "$gid" ] || continue
		found=${n##*/}
		# A child (pkey) interface names its parent in iflink.
		[ "$(cat "$n/iflink")" = "$(cat "$n/ifindex")" ] && break
	done
	[ -n "$found" ] || { echo "iface_of_port: no netdev for $1 port $2" >&2; return 1; }
	echo "$found"
}

# snmp_stat NS PROTO FIELD: a counter of NS's /proc/net/snmp, by name,
# e.g. snmp_stat h1 Icmp InEchoReps.
snmp_stat() {
	# shellcheck disable=SC2016 # awk's fields, not the shell's
	ip netns exec "$1" awk -v p="$2:" -v f="$3" '
		$1 == p && !n { for (i = 2; i <= NF; i++) col[$i] = i; n = 1; next }
		$1 == p { print $col[f] }' /proc/net/snmp
}

# netdev_stat IFACE COUNTER [NS]: print a counter of
# /sys/class/net/IFACE/statistics/, e.g. rx_bytes.
netdev_stat() {
	if [ -n "${3:-}" ]; then
		ip netns exec "$3" cat "/sys/class/net/$1/statistics/$2"
	else
		cat "/sys/class/net/$1/statistics/$2"
	fi
}
