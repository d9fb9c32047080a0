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
# The subnet manager fabric_up gives the cases: builtin (sib's own) or
# opensm (tests/vm/run --sm opensm sets it).
SIB_SM=${SIB_SM:-builtin}

# fabric_up [sib parameters...]: load the fabric and wait for every port to
# be ACTIVE.  Under SIB_SM=opensm, sib runs with sm=external and OpenSM,
# started on sib0 port 1, does what the built-in SM would do with these
# parameters (fabric_partitions; lmc= is OpenSM's lmc option, not sib's;
# with gids=N OpenSM restores the built-in SM's alias GUIDs from an SA
# database file, alias_guid_db, and sets them through GUIDInfo).
# "sibtest.break=ud" (or mad, rc) on the kernel command line breaks it on
# purpose, to show that the cases notice.
fabric_up() {
	local knob arg gids=1 sibargs=() sets=()
	if [ "$SIB_SM" = opensm ]; then
		for arg in "$@"; do
			case $arg in
			lmc=*) sets+=(--set "lmc ${arg#lmc=}") ;;
			gids=*) gids=${arg#gids=}; sibargs+=("$arg") ;;
			*) sibargs+=("$arg") ;;
			esac
		done
		modprobe sib sm=external "${sibargs[@]}"
		if [ "$gids" -gt 1 ]; then
			alias_guid_db "$gids" >alias-guids.db
			sets+=(--set "sa_db_file $PWD/alias-guids.db")
		fi
		echo "$@" >fabric-parameters
		fabric_partitions "$@" >fabric-partitions.conf
		opensm_up "${sets[@]}" fabric-partitions.conf
	else
		modprobe sib "$@"
	fi
	# How the fabric executes sends, when not at its default (async=1,
	# no delay): set on the kernel command line (tests/vm/run --append,
	# --fabric) for every case; say so in the case's log.
	local p=/sys/module/sib/parameters
	[ "$(cat $p/async) $(cat $p/async_delay_us) $(cat $p/async_jitter_us)" = "Y 0 0" ] ||
		echo "fabric_up: sib async=$(cat $p/async), async_delay_us=$(cat $p/async_delay_us), async_jitter_us=$(cat $p/async_jitter_us)"
	for knob in $(sed -n 's/.*sibtest\.break=\([a-z,]*\).*/\1/p' /proc/cmdline | tr , ' '); do
		echo "fabric_up: breaking the fabric on purpose: ${knob}_drop_every=1"
		echo 1 >"$SIB/${knob}_drop_every"
	done
	wait_for 10 all_ports_active || fail "ports did not become ACTIVE"
}

# fabric_partitions [sib parameters...]: the partitions.conf that has
# OpenSM do what the built-in SM does with these parameters: every P_Key
# of pkeys= a partition of every port (full or limited as its top bit
# says), each with its IPoIB broadcast group at the group MTU (group_mtu=,
# else mtu=, else 2048) and the links' rate (100 Gb/s).
fabric_partitions() {
	local arg pkeys=0xffff mtu=2048 group_mtu=0 k code member
	for arg in "$@"; do
		case $arg in
		pkeys=*) pkeys=${arg#pkeys=} ;;
		mtu=*) mtu=${arg#mtu=} ;;
		group_mtu=*) group_mtu=${arg#group_mtu=} ;;
		esac
	done
	[ "$group_mtu" = 0 ] || [ "$group_mtu" -ge "$mtu" ] || mtu=$group_mtu
	code=$(mtu_code "$mtu")
	for k in ${pkeys//,/ }; do
		member=full
		[ $((k & 0x8000)) -ne 0 ] || member=limited
		if [ $((k & 0x7fff)) = $((0x7fff)) ]; then
			printf 'Default=0x7fff, ipoib, mtu=%s, rate=16: ALL=%s;\n' "$code" "$member"
		else
			printf 'p%04x=0x%04x, ipoib, mtu=%s, rate=16: ALL=%s;\n' \
				$((k & 0x7fff)) $((k & 0x7fff)) "$code" "$member"
		fi
	done
}

# mtu_code BYTES: the IB MTU code (256: 1 ... 4096: 5).
mtu_code() {
	case $1 in
	256) echo 1 ;; 512) echo 2 ;; 1024) echo 3 ;; 2048) echo 4 ;; 4096) echo 5 ;;
	*) echo "mtu_code: not an IB MTU: $1" >&2; return 1 ;;
	esac
}

# port_guid IBDEV PORT: the port's GUID (0x...), from its GID.
port_guid() {
	printf '0x%s\n' "$(cut -d: -f5-8 "/sys/class/infiniband/$1/ports/$2/gids/0" | tr -d :)"
}

# alias_guid GUID K: alias GUID K of the port with that GUID, as the
# built-in SM assigns them (sib gids=): K in bits 39:32.
alias_guid() { printf '0x%016x\n' $(($1 | ($2 << 32))); }

# guid_gid GUID: the GID of that GUID, as sysfs prints it.
guid_gid() {
	local h
	h=$(printf '%016x' $(($1)))
	echo "fe80:0000:0000:0000:${h:0:4}:${h:4:4}:${h:8:4}:${h:12:4}"
}

# alias_guid_db N: an OpenSM SA database (its sa_db_file) that gives
# every port alias GUIDs 1..N-1 as the built-in SM's, which OpenSM sets
# through GUIDInfo on its first sweep.
alias_guid_db() {
	local p dev port guid k line
	for p in /sys/class/infiniband/*/ports/*; do
		dev=${p#/sys/class/infiniband/}
		dev=${dev%%/*}
		port=${p##*/}
		guid=$(port_guid "$dev" "$port")
		line="GUIDInfo Record: base_guid=$guid lid=0x0000 block_num=0x0 guid0=$guid"
		for k in 1 2 3 4 5 6 7; do
			if [ "$k" -lt "$1" ]; then
				line+=" guid$k=$(alias_guid "$guid" "$k")"
			else
				line+=" guid$k=0x0000000000000000"
			fi
		done
		echo "$line"
	done
}

# opensm_up [--on IBDEV PORT] [--name NAME] [--standby] [--set "KEY VALUE"]...
#           [PARTITIONS_FILE] [OPENSM_OPTION...]:
# start OpenSM (Debian's) bound to that port (default sib0 port 1), with
# a config pointing at PARTITIONS_FILE (default: OpenSM's own default
# partition) and holding each --set line (an opensm.conf option), its
# log, cache and dumps in ./opensm-NAME/ (default sm0),
# and wait until it is master and the subnet is up: its log says so,
# sminfo answers it as master and every port is ACTIVE.  With --standby,
# wait only until it has swept and stands by for the master.  Needs sib
# loaded with sm=external.
opensm_up() {
	local dev=sib0 port=1 name=sm0 standby='' conf='' dir sets=()
	while [ $# -gt 0 ]; do
		case $1 in
		--on) dev=$2 port=$3; shift 3 ;;
		--name) name=$2; shift 2 ;;
		--standby) standby=1; shift ;;
		--set) sets+=("$2"); shift 2 ;;
		*) break ;;
		esac
	done
	if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
		conf=$(readlink -f "$1")
		shift
	fi
	modprobe ib_umad
	dir=$PWD/opensm-$name
	mkdir -p "$dir/cache"
	opensm_down "$name"
	{
		echo "guid $(port_guid "$dev" "$port")"
		[ -z "$conf" ] || echo "partition_config_file $conf"
		echo "log_file $dir/opensm.log"
		echo "force_log_flush TRUE"
		echo "dump_files_dir $dir"
		[ ${#sets[@]} -eq 0 ] || printf '%s\n' "${sets[@]}"
	} >"$dir/opensm.conf"
	echo "$dev $port" >"$dir/port"
	: >"$dir/options"
	[ $# -eq 0 ] || printf '%s\n' "$@" >"$dir/options"
	echo "opensm_up: OpenSM $name on $dev port $port${conf:+, partitions ${conf##*/}}${sets[*]:+, set ${sets[*]}}${*:+, options $*}"
	osm_start "$name" "$standby"
}

# opensm_restart [NAME]: stop that OpenSM and start it again as it was: a
# new SM, that knows none of the old one's groups, takes the subnet over.
opensm_restart() {
	opensm_down "${1:-sm0}"
	osm_start "${1:-sm0}" ''
}

# osm_start NAME STANDBY: start OpenSM NAME as opensm_up set it up, and
# wait as it says.
osm_start() {
	local name=$1 dir=$PWD/opensm-$1 dev port guid from opts=()
	read -r dev port <"$dir/port"
	guid=$(port_guid "$dev" "$port")
	mapfile -t opts <"$dir/options"
	from=1
	[ ! -e "$dir/opensm.log" ] || from=$(($(wc -l <"$dir/opensm.log") + 1))
	OSM_CACHE_DIR=$dir/cache opensm -F "$dir/opensm.conf" "${opts[@]}" \
		</dev/null >>"$dir/stdout" 2>&1 &
	echo $! >"$dir/pid"
	if [ -n "$2" ]; then
		wait_for 30 osm_logged "$name" "$from" 'Entering STANDBY state' ||
			opensm_failed "$name" "did not stand by"
		return 0
	fi
	wait_for 30 osm_logged "$name" "$from" 'SUBNET UP' ||
		opensm_failed "$name" "brought no subnet up"
	wait_for 30 sm_is_master "$dev" "$port" "$guid" ||
		opensm_failed "$name" "is not the master sminfo finds"
	wait_for 30 all_ports_active ||
		opensm_failed "$name" "left ports not ACTIVE"
}

# osm_logged NAME LINE PATTERN: OpenSM NAME's log has PATTERN from LINE on.
osm_logged() { tail -n "+$2" "$PWD/opensm-$1/opensm.log" 2>/dev/null | grep -q "$3"; }

# sm_is_master IBDEV PORT GUID: sminfo, from that port, finds the SM of
# that port GUID master.
sm_is_master() {
	local g
	g=$(sminfo -C "$1" -P "$2" | sed -n 's/.* sm guid \(0x[0-9a-f]*\),.*SMINFO_MASTER.*/\1/p')
	[ -n "$g" ] && [ $((g)) = $(($3)) ]
}

# opensm_failed NAME WHY: show the end of its log and fail.
opensm_failed() {
	local dir=$PWD/opensm-$1
	echo "-- opensm $1: stdout" >&2
	tail -n 20 "$dir/stdout" >&2 || true
	echo "-- opensm $1: the end of opensm.log" >&2
	tail -n 40 "$dir/opensm.log" >&2 || true
	grep -H . /sys/class/infiniband/*/ports/*/state >&2 || true
	fail "OpenSM $1 $2"
}

# opensm_down [NAME]: stop that OpenSM (default sm0), if it runs.
opensm_down() {
	local pidfile=$PWD/opensm-${1:-sm0}/pid pid
	pid=$(cat "$pidfile" 2>/dev/null) || return 0
	rm -f "$pidfile"
	kill "$pid" 2>/dev/null || return 0
	wait_for 10 pid_gone "$pid" || kill -9 "$pid" 2>/dev/null || true
}

pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# The subnet manager's side of what cases do, whichever SM runs.

# sm_restart: the SM restarts and forgets every multicast group: the
# built-in one through debugfs, OpenSM started again (it then asks every
# port to reregister).
sm_restart() {
	if [ "$SIB_SM" = opensm ]; then
		opensm_restart
	else
		echo 1 >"$SIB/sm_restart"
	fi
}

# sm_set_pkeys LIST: the SM gives every port the P_Key table LIST (comma
# separated, in order): the built-in one through debugfs; OpenSM from
# fabric_up's partitions file, written again and read at the sweep a
# SIGHUP starts.  Back once every port has the table.
sm_set_pkeys() {
	local f k p sib_args
	if [ "$SIB_SM" = opensm ]; then
		read -ra sib_args <fabric-parameters
		fabric_partitions "${sib_args[@]}" "pkeys=$1" >fabric-partitions.conf
		kill -HUP "$(cat "$PWD/opensm-sm0/pid")"
	else
		for f in "$SIB"/sib*/port*/pkeys; do
			echo "$1" >"$f"
		done
	fi
	for p in /sys/class/infiniband/*/ports/*; do
		for k in ${1//,/ }; do
			wait_for 20 port_has_pkey "$p" "$k" ||
				fail "${p#/sys/class/infiniband/} did not get P_Key $k"
		done
	done
}

# sm_set_lid IBDEV PORT LID: the SM moves that port to LID: the built-in
# one through debugfs (only that port sees an event); OpenSM stopped,
# the port's line of its guid2lid cache changed, and started again (it
# gives a port the LID its cache names; starting, it also asks every port
# to reregister).  Back once the port has the LID.
sm_set_lid() {
	local cache
	if [ "$SIB_SM" = opensm ]; then
		cache=$PWD/opensm-sm0/cache/guid2lid
		opensm_down sm0
		[ -s "$cache" ] || fail "OpenSM left no guid2lid file in its cache"
		awk -v g="$(port_guid "$1" "$2")" -v lid="$3" '
			tolower($1) == tolower(g) { printf "%s 0x%04x 0x%04x\n", $1, lid, lid; next }
			{ print }' "$cache" >"$cache.new"
		mv "$cache.new" "$cache"
		osm_start sm0 ''
	else
		echo "$3" >"$SIB/$1/port$2/lid"
	fi
	wait_for 30 port_lid_is "$1" "$2" "$3" ||
		fail "$1 port $2: LID $(cat "/sys/class/infiniband/$1/ports/$2/lid"), not $3"
}

# port_lid_is IBDEV PORT LID: ib_core has the port at LID.
port_lid_is() { [ $(($(cat "/sys/class/infiniband/$1/ports/$2/lid"))) = $(($3)) ]; }

# port_has_pkey SYSFS_PORT PKEY: the port's table holds PKEY.
port_has_pkey() { grep -qix "$(printf '0x%04x' "$2")" "$1"/pkeys/*; }

# sa_has_group MGID: the SA (the built-in one or OpenSM's) knows the
# multicast group, asked from sib0 port 1 as a user would (saquery).
sa_has_group() {
	modprobe ib_umad
	saquery -C sib0 -P 1 -g --mgid "$1" | grep -q MGID
}

# sa_group_mtu MGID: the MTU (bytes) of that group, as the SA (the
# built-in one or OpenSM's) answers saquery from sib0 port 1.
sa_group_mtu() {
	local code
	modprobe ib_umad
	code=$(saquery -C sib0 -P 1 -g --mgid "$1" | sed -n 's/^[[:space:]]*Mtu\.*//p' | head -n 1)
	[ -n "$code" ] || return 1
	echo $((128 << (code & 0x3f)))
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

# bounce_buffers: every DMA mapping is a bounce buffer (swiotlb=force on
# the kernel command line, with or without a size: the harsh fabric).
bounce_buffers() { grep -qE '(^| )swiotlb=([0-9]+,)?force( |,|$)' /proc/cmdline; }

# dma_api_debug: the kernel checks every DMA mapping (CONFIG_DMA_API_DEBUG,
# the debug tier's kernel).
dma_api_debug() { [ -e /sys/kernel/debug/dma-api/error_count ]; }

# lid_of IBDEV: port 1's LID, in decimal.
lid_of() { echo $(($(cat "/sys/class/infiniband/$1/ports/1/lid"))); }

# umad_of IBDEV PORT: the umad device of that port.
umad_of() {
	local u
	for u in /sys/class/infiniband_mad/umad*; do
		[ "$(cat "$u/ibdev")" = "$1" ] && [ "$(cat "$u/port")" = "$2" ] &&
			{ echo "/dev/infiniband/${u##*/}"; return 0; }
	done
	return 1
}

# diag_field NAME: the value of the "NAME:.....value" line on stdin, as
# infiniband-diags print them (smpquery, perfquery, ibstat).
diag_field() { sed -n "s/^[[:space:]]*$1:[.[:space:]]*//p" | head -n 1; }

# has_page_pool: the kernel has page_pool, so our receive pages are
# recycled (without it, as in the debug tier's kernel, every page is new).
has_page_pool() { grep -q ' page_pool_create$' /proc/kallsyms; }

# alt_up [parameters...]: our driver as ipoib_alt, beside the in-tree one.
alt_up() { modprobe ipoib_alt "$@"; }

# interop_up [sib parameters...]: ours (ipoib_alt) on sib0 and the in-tree
# driver on sib1 of a two-HCA fabric; sets ours and theirs to their
# interfaces.
interop_up() {
	fabric_up devices=2 ports=1 "$@"
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

# two_hosts_connected: two_hosts' interfaces ($a in h1, $b in h2) down,
# into connected mode, up at MTU 65520, with carrier.
two_hosts_connected() {
	ip -n h1 link set "$a" down
	ip -n h2 link set "$b" down
	echo connected | ip netns exec h1 tee "/sys/class/net/$a/mode" >/dev/null
	echo connected | ip netns exec h2 tee "/sys/class/net/$b/mode" >/dev/null
	ip -n h1 link set "$a" mtu 65520 up
	ip -n h2 link set "$b" mtu 65520 up
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

# tcp_exact NS_SERVER ADDR NS_CLIENT MIB WHAT: one TCP stream of exactly
# MIB MiB from NS_CLIENT to ADDR in NS_SERVER (tests/tools/tcpstream.c);
# fails unless the server read every byte, each the one sent there.  A
# fixed amount, not a timed run: it checks delivery, not speed.
tcp_exact() {
	local srv=$1 addr=$2 cli=$3 bytes=$(($4 << 20)) what=$5 sink sent got t0
	ip netns exec "$srv" tcpstream sink 5298 >/tmp/tcp-exact.sink 2>&1 &
	sink=$!
	wait_for 10 iperf_listening "$srv" 5298 || fail "$what: the TCP sink in $srv did not listen"
	t0=${EPOCHREALTIME/./}
	sent=$(ip netns exec "$cli" timeout 300 tcpstream send "$addr" 5298 "$bytes" 2>&1) ||
		{ kill "$sink" 2>/dev/null; fail "$what: $sent"; }
	wait "$sink" || true
	got=$(cat /tmp/tcp-exact.sink)
	echo "$what: $sent, $got in $(((${EPOCHREALTIME/./} - t0) / 1000)) ms" >&2
	assert_eq "$got" "received $bytes" "$what"
}

# udp_in_order NS_SINK ADDR NS_BLAST SIZE:SIZE2: two seconds of numbered
# datagrams whose sizes take turns; fails unless at least 100 arrived and
# none after a later one.  Receive paths hand small packets up past GRO
# when it holds nothing: this is what says they never overtake.
udp_in_order() {
	local srv=$1 addr=$2 cli=$3 pid out
	ip netns exec "$srv" udpbench sink 9000 >/tmp/udp-order.out &
	pid=$!
	wait_for 10 udp_bound "$srv" 9000 || fail "udpbench sink in $srv did not start"
	ip netns exec "$cli" udpbench blast "$addr" 9000 2 "$4" >&2 ||
		fail "udpbench blast to $addr failed"
	wait "$pid" || fail "no datagram reached $addr"
	out=$(cat /tmp/udp-order.out)
	echo "$4 to $addr: $out" >&2
	assert_ge "$(sed -n 's/.* packets=\([0-9]*\).*/\1/p' <<<"$out")" 100 "datagrams $addr received"
	assert_eq "$(sed -n 's/.* reordered=\([0-9]*\).*/\1/p' <<<"$out")" 0 "datagrams $addr received out of order"
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
