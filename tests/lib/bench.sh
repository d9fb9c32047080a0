# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Measurements for the benchmark cases (tests/bench/cases/): each prints
# result lines that tests/bench/report turns into the table,
#
#   BENCH METRIC WHO ROUND VALUE       WHO: ours, intree or ref; VALUE or n/a
#   BENCH-INFO WHO SETTINGS...         what WHO's driver runs with
#
# They never fail a case: a measurement that cannot be made says n/a.
# Source after common.sh and ib.sh.

# Rounds and seconds per run: bench.rounds= and bench.secs= on the kernel
# command line (tests/bench/run --rounds/--secs), else 5 and 3 as there.
BENCH_ROUNDS=$(sed -n 's/.*bench\.rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
BENCH_SECS=$(sed -n 's/.*bench\.secs=\([0-9]*\).*/\1/p' /proc/cmdline)
BENCH_SECS=${BENCH_SECS:-3}
# Round trips per request/response run: seconds of it, as a TCP run.
BENCH_RR=10000
# Module parameters for the in-tree driver: bench.intree=a=1,b=2 on the
# command line (tests/bench/run --intree-params "a=1 b=2"), else none.
read -r -a BENCH_INTREE <<<"$(sed -n 's/.*bench\.intree=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')"
# Module parameters for ours: bench.ours=a=1,b=2 (tests/bench/run sets the
# in-tree driver's ring sizes there unless --own-rings), else none.
read -r -a BENCH_OURS <<<"$(sed -n 's/.*bench\.ours=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')"
# Profiles: bench.profile=1 (tests/bench/run --profile).
BENCH_PROFILE=$(sed -n 's/.*bench\.profile=\([0-9]*\).*/\1/p' /proc/cmdline)
bench_port=5300

result() { echo "BENCH $1 $2 $3 ${4:-n/a}"; }

# field LINE NAME: the number after " NAME=" in a tool's LINE of results.
field() { echo "$1" | sed -n "s/.* $2=\([0-9.]*\).*/\1/p"; }

# na WHO ROUND METRIC...: WHO has no figure for these this round.
na() {
	local who=$1 r=$2 m
	shift 2
	for m in "$@"; do
		result "$m" "$who" "$r" ""
	done
}

# bench_info WHO [PARAMETERS...]: the ring sizes WHO's driver runs with,
# as it reports them in sysfs, and the parameters it was loaded with, for
# the report to print under the table.
bench_info() {
	local who=$1 mod=ipoib_alt p line=
	shift
	[ "$who" = ours ] || mod=ib_ipoib
	for p in send_queue_size recv_queue_size; do
		line="$line $p=$(cat "/sys/module/$mod/parameters/$p" 2>/dev/null || echo '?')"
	done
	echo "BENCH-INFO $who$line (loaded with: ${*:-no parameters})"
}

# bench_intree_up: the in-tree driver with the bench's parameters (none by
# default: its own defaults); bench_alt_up [PARAMETERS...]: ours with the
# bench's parameters, then these (the later of two wins).
bench_intree_up() {
	intree_up ${BENCH_INTREE[@]+"${BENCH_INTREE[@]}"}
	bench_info intree ${BENCH_INTREE[@]+"${BENCH_INTREE[@]}"}
}
bench_alt_up() {
	alt_up ${BENCH_OURS[@]+"${BENCH_OURS[@]}"} "$@"
	bench_info ours ${BENCH_OURS[@]+"${BENCH_OURS[@]}"} "$@"
}

# order ROUND A B: A B on odd rounds, B A on even ones, so that a drift in
# the VM's speed does not always favour the same driver.
order() { if [ $(($1 % 2)) = 1 ]; then echo "$2 $3"; else echo "$3 $2"; fi; }

# cpu_busy: jiffies (USER_HZ, 100/s on x86) all CPUs spent not idle.
cpu_busy() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

# fabric_drops: UD packets sib dropped for want of a receive buffer, all
# ports (only one pair is busy at a time); 0 without sib.
fabric_drops() {
	cat "$SIB"/sib*/port*/counters 2>/dev/null |
		awk '$1 == "drop_no_buffer" { s += $2 } END { print s + 0 }'
}

# retransmits NS: TCP segments NS has retransmitted.
retransmits() {
	# shellcheck disable=SC2016 # awk's $1, not the shell's
	ip netns exec "$1" awk '$1 == "Tcp:" && n++ { print $13 }' /proc/net/snmp
}

# profiled METRIC WHO ROUND CMD...: CMD; when profiles are asked for, in
# round 1 it runs under "perf record -a -g" (the whole VM, kernel call
# chains; cpu-clock, as TCG has no PMU) and the top of "perf report" goes
# to stderr between "PROFILE METRIC WHO begin" and "... end" lines, which
# tests/bench/run saves as build/bench/profiles/METRIC-WHO.txt.  The
# figure of a profiled run is taken under perf: read profiles from a run
# of their own.
profiled() {
	local metric=$1 who=$2 r=$3 data pid ret=0
	shift 3
	if [ "${BENCH_PROFILE:-0}" != 1 ] || [ "$r" != 1 ]; then
		"$@"
		return
	fi
	data=/tmp/perf-$metric-$who.data
	rm -f "$data"
	perf record -a -g -N -q -F 499 -o "$data" >/dev/null 2>&1 &
	pid=$!
	# The header is written once every CPU is being sampled.
	wait_for 20 test -s "$data" || echo "profiled: perf record did not start" >&2
	"$@" || ret=$?
	kill -INT "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	{
		echo "PROFILE $metric $who begin"
		echo "## by symbol, self time, whole VM (perf report --no-children --sort dso,sym)"
		perf report -i "$data" --stdio --no-children --sort dso,sym -g none \
			--percent-limit 0.5 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 50
		echo "## call chains into the top symbols (perf report --no-children -g caller)"
		perf report -i "$data" --stdio --no-children --sort sym \
			-g caller,2,callee --percent-limit 3 2>/dev/null |
			grep -v '^#' | grep -v '^$' | head -n 150
		echo "PROFILE $metric $who end"
	} >&2
	rm -f "$data"
	return "$ret"
}

# tcp_run SRV ADDR CLI STREAMS [CPU_CLIENT,CPU_SERVER]: iperf3 from CLI to
# a server in SRV, its two ends pinned to those CPUs if given; prints
# "MBIT_PER_S CPU_SECONDS_PER_GB" (received bytes, CPU time of the whole VM:
# both ends run in it), or nothing when iperf3 failed.
tcp_run() {
	local srv=$1 addr=$2 cli=$3 n=$4 pin=${5:-} json b0 b1 d0 t0 port=$((bench_port += 1))
	iperf_server "$srv" -B "$addr" -p "$port" || return 0
	d0=$(fabric_drops) t0=$(retransmits "$cli")
	b0=$(cpu_busy)
	json=$(ip netns exec "$cli" timeout $((BENCH_SECS + 20)) \
		iperf3 -c "$addr" -p "$port" -J -t "$BENCH_SECS" -P "$n" ${pin:+-A "$pin"} 2>&1) ||
		{ echo "tcp_run: iperf3 to $addr failed: $(echo "$json" | grep error)" >&2; return 0; }
	b1=$(cpu_busy)
	echo "tcp_run: $n streams to $addr: $(($(fabric_drops) - d0)) packets the fabric" \
		"found no receive buffer for, $(($(retransmits "$cli") - t0)) TCP retransmits" >&2
	echo "$json" | awk -F'[:,]' -v busy=$((b1 - b0)) '
		/"sum_received"/ { inr = 1 }
		inr && /"bytes"/ { gsub(/[ \t]/, "", $2); bytes = $2 }
		inr && /"bits_per_second"/ {
			gsub(/[ \t]/, "", $2)
			if (bytes > 0)
				printf "%.1f %.2f\n", $2 / 1e6, busy / 100 / (bytes / 1e9)
			exit
		}'
}

# bench_tcp TAG WHO ROUND SRV ADDR CLI: TCP with 1 and 4 streams; results
# tcp1_TAG, tcp4_TAG and, for one stream, cpu_TAG.
bench_tcp() {
	local tag=$1 who=$2 r=$3 out
	[ "$4" != - ] || { na "$2" "$3" "tcp1_$tag" "cpu_$tag" "tcp4_$tag"; return; }
	out=$(profiled "tcp1_$tag" "$who" "$r" tcp_run "$4" "$5" "$6" 1)
	result "tcp1_$tag" "$who" "$r" "${out% *}"
	result "cpu_$tag" "$who" "$r" "${out#* }"
	out=$(profiled "tcp4_$tag" "$who" "$r" tcp_run "$4" "$5" "$6" 4)
	result "tcp4_$tag" "$who" "$r" "${out% *}"
}

# on_two_queues CLI CALLER KEY WHO ROUND CMD...: ours' sender in CLI with
# two send queues (ethtool -L tx 2; XPS maps CPU n to queue n) while CMD
# prints the figure for KEY, then back to one; n/a when it takes no
# second queue.
on_two_queues() {
	local cli=$1 caller=$2 key=$3 who=$4 r=$5 ifc
	shift 5
	ifc=$(ip netns exec "$cli" ls /sys/class/net | grep -vx lo)
	if ! ip netns exec "$cli" ethtool -L "$ifc" tx 2; then
		echo "$caller: $ifc takes no second TX queue" >&2
		na "$who" "$r" "$key"
		return
	fi
	result "$key" "$who" "$r" "$("$@")"
	ip netns exec "$cli" ethtool -L "$ifc" tx 1 ||
		echo "$caller: $ifc stays at two TX queues" >&2
}

# rate_of CMD...: the first of the two figures CMD prints (rate, CPU).
rate_of() {
	local out
	out=$("$@")
	echo "${out% *}"
}

# bench_tcp_tss TAG WHO ROUND SRV ADDR CLI: ours with two send queues, 4
# TCP streams again: result tcp4q2_TAG.  The in-tree driver has one TX
# queue: n/a.
bench_tcp_tss() {
	local tag=$1 who=$2 r=$3
	if [ "$who" != ours ] || [ "$4" = - ]; then
		na "$who" "$r" "tcp4q2_$tag"
		return
	fi
	on_two_queues "$6" bench_tcp_tss "tcp4q2_$tag" "$who" "$r" \
		rate_of profiled "tcp4q2_$tag" "$who" "$r" tcp_run "$4" "$5" "$6" 4
}

# bench_tcp_irq TAG WHO ROUND SRV ADDR CLI: one TCP stream again with the
# fabric raising completion events as interrupts on the CQ's vector CPU
# (sib cq_irq=1), as an HCA does, instead of in the sender's context.
# Inline, the receiver's poll runs on the sending CPU; this shows whether
# a ratio depends on that.  Unpinned, where the scheduler put iperf3's
# ends against the CQs' CPUs moved a round by more than the gap between
# the drivers, so the ends are pinned to different CPUs, one way
# (tcp1i_TAG, cpui_TAG: client on CPU 0) then the other (tcp1j_TAG,
# cpuj_TAG).  The mode the fabric was in is put back after.
bench_tcp_irq() {
	local tag=$1 who=$2 r=$3 out param=/sys/module/sib/parameters/cq_irq was run
	[ "$4" != - ] || { na "$2" "$3" "tcp1i_$tag" "cpui_$tag" "tcp1j_$tag" "cpuj_$tag"; return; }
	was=$(cat "$param")
	echo 1 >"$param"
	# KEY_LETTER:CPU_CLIENT,CPU_SERVER
	for run in i:0,1 j:1,0; do
		out=$(tcp_run "$4" "$5" "$6" 1 "${run#*:}")
		result "tcp1${run%:*}_$tag" "$who" "$r" "${out% *}"
		result "cpu${run%:*}_$tag" "$who" "$r" "${out#* }"
	done
	echo "$was" >"$param"
}

# bench_udp TAG WHO ROUND SRV ADDR CLI: 64-byte datagrams as fast as the
# sender can, counted by the receiving program (udp64_TAG, packets/s).
bench_udp() {
	local tag=$1 who=$2 r=$3 srv=$4 addr=$5 cli=$6 pid pps
	[ "$4" != - ] || { na "$2" "$3" "udp64_$tag"; return; }
	ip netns exec "$srv" udpbench sink 9000 >sink.out &
	pid=$!
	sleep 0.3
	profiled "udp64_$tag" "$who" "$r" \
		ip netns exec "$cli" udpbench blast "$addr" 9000 "$BENCH_SECS" 64 >&2 || true
	# The sink stops after a second without packets.
	if ! wait_for 10 eval "! kill -0 $pid"; then
		kill "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	cat sink.out >&2
	pps=$(sed -n 's/.* pps=\([0-9]*\).*/\1/p' sink.out)
	[ "${pps:-0}" -gt 0 ] || pps=
	result "udp64_$tag" "$who" "$r" "$pps"
}

# blast_pinned ADDR CLI: 64-byte datagrams for BENCH_SECS from two
# senders in CLI, one pinned to each CPU, to ports 9010 and 9011 of ADDR.
blast_pinned() {
	local i pids=()
	for i in 0 1; do
		ip netns exec "$2" taskset -c "$i" \
			udpbench blast "$1" $((9010 + i)) "$BENCH_SECS" 64 >&2 &
		pids+=($!)
	done
	wait "${pids[@]}" || true
}

# udp_pinned SRV ADDR CLI METRIC WHO ROUND: blast_pinned to a sink for
# each sender in SRV; prints the sum of the sinks' rates (packets/s).
udp_pinned() {
	local i pids=() pps sum=0
	for i in 0 1; do
		ip netns exec "$1" udpbench sink $((9010 + i)) >"sink.$i.out" &
		pids+=($!)
	done
	for i in 0 1; do
		wait_for 10 udp_bound "$1" $((9010 + i)) || echo "udp_pinned: sink $i did not bind" >&2
	done
	profiled "$4" "$5" "$6" blast_pinned "$2" "$3"
	for i in 0 1; do
		# A sink stops after a second without packets.
		wait_for 10 eval "! kill -0 ${pids[$i]}" || kill "${pids[$i]}" 2>/dev/null || true
		wait "${pids[$i]}" 2>/dev/null || true
		cat "sink.$i.out" >&2
		pps=$(field "$(cat "sink.$i.out")" pps)
		[ "${pps:-0}" -gt 0 ] || return 0
		sum=$((sum + pps))
	done
	echo "$sum"
}

# bench_udp_tss TAG WHO ROUND SRV ADDR CLI: 64-byte datagrams from a
# sender pinned to each CPU, each to its own sink, received rates summed
# (udp2_TAG); then, ours only, the same over two send queues (udp2q2_TAG).
# The in-tree driver has one TX queue: n/a.
bench_udp_tss() {
	local tag=$1 who=$2 r=$3
	[ "$4" != - ] || { na "$2" "$3" "udp2_$tag" "udp2q2_$tag"; return; }
	result "udp2_$tag" "$who" "$r" "$(udp_pinned "$4" "$5" "$6" "udp2_$tag" "$who" "$r")"
	if [ "$who" != ours ]; then
		na "$who" "$r" "udp2q2_$tag"
		return
	fi
	on_two_queues "$6" bench_udp_tss "udp2q2_$tag" "$who" "$r" \
		udp_pinned "$4" "$5" "$6" "udp2q2_$tag" "$who" "$r"
}

# bench_rnr TAG WHO ROUND SRV ADDR CLI: RNR NAKs the server's HCA sent in
# a one-second burst of 4 TCP streams to interfaces just brought down and
# up (rnr_TAG), so that each driver starts from what it posts at up: ours
# a shared receive pool of 64 buffers that grows on the SRQ limit event
# (ipoib_cm_pool.c), the in-tree driver recv_queue_size at once.  An RNR
# NAK stalls the sender for the RNR timer the responder gave.
bench_rnr() {
	local tag=$1 who=$2 r=$3 srv=$4 addr=$5 cli=$6 n0 out port=$((bench_port += 1)) h
	[ "$4" != - ] || { na "$2" "$3" "rnr_$tag"; return; }
	for h in "$cli ${IFACE[$cli]}" "$srv ${IFACE[$srv]}"; do
		ip -n "${h% *}" link set "${h#* }" down
	done
	for h in "$cli ${IFACE[$cli]}" "$srv ${IFACE[$srv]}"; do
		ip -n "${h% *}" link set "${h#* }" up
		wait_carrier "${h% *}" "${h#* }"
	done
	# The connection comes back with the first packets, before the count.
	ip netns exec "$cli" ping -c 2 -i 0.2 -W 2 "$addr" >/dev/null ||
		echo "bench_rnr: $who: the ping after up failed" >&2
	iperf_server "$srv" -B "$addr" -p "$port" || { na "$who" "$r" "rnr_$tag"; return; }
	n0=$(sib_counter "${IBDEV[$srv]}" 1 rnr_naks)
	out=$(ip netns exec "$cli" timeout 30 iperf3 -c "$addr" -p "$port" -t 1 -P 4 2>&1) ||
		{ echo "bench_rnr: iperf3 to $addr failed: $out" >&2; na "$who" "$r" "rnr_$tag"; return; }
	result "rnr_$tag" "$who" "$r" "$(($(sib_counter "${IBDEV[$srv]}" 1 rnr_naks) - n0))"
	[ "$who" != ours ] ||
		echo "bench_rnr: ours' pool after the burst:" \
			"$(ip netns exec "$srv" ethtool -S "${IFACE[$srv]}" | grep -E 'cm_rx_pool_(buffers|grows)' | tr -s ' \n' ' ')" >&2
}

# bench_rr TAG WHO ROUND SRV ADDR CLI: UDP ping-pong, one 64-byte request
# at a time, BENCH_RR of them (seconds, as a TCP run, not a tenth of one);
# lat50_TAG and lat99_TAG in microseconds, and lat1k_TAG, the median of the
# first 1,000 alone, the bench's run length until 77f674a.
bench_rr() {
	local tag=$1 who=$2 r=$3 srv=$4 addr=$5 cli=$6 pid out
	[ "$4" != - ] || { na "$2" "$3" "lat50_$tag" "lat99_$tag" "lat1k_$tag"; return; }
	ip netns exec "$srv" udpbench echo 9001 &
	pid=$!
	sleep 0.3
	out=$(profiled "lat_$tag" "$who" "$r" \
		ip netns exec "$cli" timeout 60 udpbench rr "$addr" 9001 "$BENCH_RR" 64) || out=
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	echo "$out" >&2
	result "lat50_$tag" "$who" "$r" "$(field "$out" median_us)"
	result "lat99_$tag" "$who" "$r" "$(field "$out" p99_us)"
	result "lat1k_$tag" "$who" "$r" "$(field "$out" first_median_us)"
}

# bench_rr_both TAG ROUND: request/response on both drivers' hosts at once
# (pairrr): BENCH_RR round trips on each, one on ours, one on the in-tree
# driver's, and so on, so that both see the same moments of a VM whose
# speed drifts by a third from run to run: measured one after the other,
# that drift passes for a gap between the drivers ("Request/response, both
# drivers at once" in tests/bench/README.md).  lat50b_TAG and lat99b_TAG
# per driver, in microseconds; whose sockets come first flips each round.
bench_rr_both() {
	local tag=$1 r=$2 a b pid out who
	if [[ " $BENCH_WHO " != *" ours "* || " $BENCH_WHO " != *" intree "* ]]; then
		for who in ours intree; do
			na "$who" "$r" "lat50b_$tag" "lat99b_$tag"
		done
		return
	fi
	read -r a b <<<"$(order "$r" ours intree)"
	pairrr echo "${SRV[$a]}" "${SRV[$b]}" 9002 &
	pid=$!
	wait_for 10 udp_bound "${SRV[$a]}" 9002 && wait_for 10 udp_bound "${SRV[$b]}" 9002 ||
		echo "bench_rr_both: the echo is not listening" >&2
	out=$(timeout 120 pairrr rr "${CLI[$a]}" "${ADDR[$a]}" "${CLI[$b]}" "${ADDR[$b]}" \
		9002 "$BENCH_RR" 64) || out=
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	echo "both ($a first): $out" >&2
	result "lat50b_$tag" "$a" "$r" "$(field "$out" a_median_us)"
	result "lat50b_$tag" "$b" "$r" "$(field "$out" b_median_us)"
	result "lat99b_$tag" "$a" "$r" "$(field "$out" a_p99_us)"
	result "lat99b_$tag" "$b" "$r" "$(field "$out" b_p99_us)"
}

# nvme_read_run DISK: sequential 1 MiB reads with O_DIRECT from /dev/DISK
# for BENCH_SECS, 32 MiB per dd, wrapping at the end of the device; prints
# MB/s (10^6 bytes), or nothing when a read failed.
nvme_read_run() {
	local disk=$1 mib=0 off=0 size t0 t
	size=$(($(cat "/sys/class/block/$disk/size") / 2048 - 32))
	t0=$EPOCHREALTIME
	while :; do
		dd if="/dev/$disk" of=/dev/null bs=1M count=32 skip="$off" \
			iflag=direct status=none || return 0
		mib=$((mib + 32))
		off=$(((off + 32) % size))
		t=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
		awk -v t="$t" -v s="$BENCH_SECS" 'BEGIN { exit !(t >= s) }' && break
	done
	echo "nvme_read_run: $mib MiB from /dev/$disk in $t s" >&2
	awk -v m="$mib" -v t="$t" 'BEGIN { printf "%.1f\n", m * 1.048576 / t }'
}

# bench_nvme_read WHO ROUND DISK: NVMe over Fabrics, sequential 1 MiB
# reads from the namespace DISK the host connected to with WHO's driver
# loaded (tests/bench/cases/nvmeof.sh); nvme_seq in MB/s.
bench_nvme_read() {
	local who=$1 r=$2 out
	[ -n "$3" ] || { na "$who" "$r" nvme_seq; return; }
	out=$(profiled nvme_seq "$who" "$r" nvme_read_run "$3")
	result nvme_seq "$who" "$r" "$out"
}

# mem_kib: kernel memory in use, KiB: what is neither free nor page cache
# (caches dropped first), and the slab's share of it ("TOTAL SLAB").  Empty
# slabs are given back first, or whoever is measured second would reuse
# the first one's freed objects and look cheaper.  Pages freed onto the
# per-CPU lists (/proc/zoneinfo's counts, 4 KiB pages) are free too,
# though MemFree leaves them out: they come and go by a megabyte or more
# and would swamp a connection's share.  What the last step left to free
# later (a namespace deleted, RCU callbacks) must be gone first: readings
# are taken until two in a row agree within 32 KiB (at most 10).
mem_kib() {
	local prev='' cur
	for _ in $(seq 10); do
		cur=$(mem_kib_once)
		if [ -n "$prev" ] && [ $((${cur% *} - ${prev% *})) -le 32 ] &&
			[ $((${prev% *} - ${cur% *})) -le 32 ]; then
			break
		fi
		prev=$cur
	done
	echo "$cur"
}

mem_kib_once() {
	local f pcp
	sync
	echo 3 >/proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f" 2>/dev/null || true
	done
	sleep 1
	pcp=$(awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo)
	awk -v pcp="$pcp" '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 }
	     /^Buffers:/ { b = $2 } /^Cached:/ { c = $2 }
	     /^Slab:/ { s = $2 }
	     END { print t - f - pcp - b - c, s }' /proc/meminfo
}

# veth_pair NS1 ADDR1 NS2 ADDR2: the netdev-stack reference, two namespaces
# joined by a veth pair.
veth_pair() {
	ns_add "$1"
	ns_add "$3"
	ip link add bv1 type veth peer name bv2
	move_to_ns bv1 "$1"
	move_to_ns bv2 "$3"
	ip -n "$1" addr add "$2/24" dev bv1
	ip -n "$3" addr add "$4/24" dev bv2
	ip -n "$1" link set bv1 up
	ip -n "$3" link set bv2 up
}

# bench_hosts: on a fabric of four HCAs, ours (ipoib_alt) between hosts o1
# (sib0) and o2 (sib1), the in-tree driver between i1 (sib2) and i2 (sib3).
# Sets SRV, ADDR and CLI by WHO (ours, intree): the client's namespace sends
# to the server's address.  MODE (datagram, connected) and MTU may be given;
# a driver that refuses them is left out of BENCH_WHO (its lines read n/a).
declare -A SRV ADDR CLI IFACE IBDEV
BENCH_WHO=
bench_hosts() {
	local mode=${1:-} mtu=${2:-} who drv d1 d2 net a b ok
	bench_alt_up
	bench_intree_up
	for who in ours intree; do
		if [ "$who" = ours ]; then
			drv=ipoib_alt d1=sib0 d2=sib1 net=10.61.0
		else
			drv=ib_ipoib d1=sib2 d2=sib3 net=10.62.0
		fi
		a=$(wait_iface "$drv" "$d1" 1)
		b=$(wait_iface "$drv" "$d2" 1)
		ok=1
		if [ -n "$mode" ]; then
			echo "$mode" >"/sys/class/net/$a/mode" && echo "$mode" >"/sys/class/net/$b/mode" || ok=
		fi
		if [ -n "$mtu" ] && [ -n "$ok" ]; then
			ip link set "$a" mtu "$mtu" && ip link set "$b" mtu "$mtu" || ok=
		fi
		ib_host "${who:0:1}1" "$a" "$net.1/24"
		ib_host "${who:0:1}2" "$b" "$net.2/24"
		wait_carrier "${who:0:1}1" "$a"
		wait_carrier "${who:0:1}2" "$b"
		echo "$who: $a ($d1) - $b ($d2): mode $(ip netns exec "${who:0:1}1" cat "/sys/class/net/$a/mode")," \
			"MTU $(ip netns exec "${who:0:1}1" cat "/sys/class/net/$a/mtu")"
		if [ -z "$ok" ]; then
			echo "$who: refuses mode '$mode' or MTU $mtu: its lines read n/a"
			continue
		fi
		SRV[$who]=${who:0:1}2 ADDR[$who]=$net.2 CLI[$who]=${who:0:1}1
		IFACE[${who:0:1}1]=$a IFACE[${who:0:1}2]=$b IBDEV[${who:0:1}1]=$d1 IBDEV[${who:0:1}2]=$d2
		BENCH_WHO="$BENCH_WHO $who"
		# The first packets resolve paths; keep that out of the figures.
		ip netns exec "${who:0:1}1" ping -c 2 -i 0.2 -W 2 "$net.2" >/dev/null ||
			echo "$who: warm-up ping failed" >&2
	done
}

# bench_each ROUND TAG FUNCTION...: each FUNCTION TAG WHO ROUND SRV ADDR
# CLI in turn for one driver, then all of them for the other, in the
# round's order; n/a for a driver left out by bench_hosts.  One driver's
# runs stay together so that each measurement follows the same run of its
# own driver: right after the other driver's TCP, request/response runs
# were up to half again slower (tests/bench/README.md, "The order of the
# runs").
bench_each() {
	local r=$1 tag=$2 who fn hosts
	shift 2
	for who in $(order "$r" ours intree); do
		hosts=(- - -)
		[[ " $BENCH_WHO " != *" $who "* ]] ||
			hosts=("${SRV[$who]}" "${ADDR[$who]}" "${CLI[$who]}")
		for fn in "$@"; do
			"$fn" "$tag" "$who" "$r" "${hosts[@]}"
		done
	done
}
