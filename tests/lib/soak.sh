# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the soak campaigns (tests/soak/*.sh): a TCP stream that runs
# across the whole campaign, timing, and the SOAK line each campaign ends
# with, which tests/soak/run gathers into the table:
#
#   SOAK NAME attempts=N recovered=N recover_median_s=X recover_worst_s=X
#        tcp_sent=BYTES tcp_received=BYTES tcp_whole=yes|no verbs_back=yes|no
#        [injected=N]
#
# A campaign fails (and so does make soak) when any attempt did not recover,
# the stream ended early, or the verbs objects did not come back; the
# harness fails it too on any kernel report.

SOAK_SCALE=$(sed -n 's/.*soak\.scale=\([0-9]*\).*/\1/p' /proc/cmdline)
SOAK_SCALE=${SOAK_SCALE:-1}
soak_failed=0
soak_times=()

# soak_now / soak_since T0: a clock in milliseconds, and seconds since T0.
soak_now() { local us=${EPOCHREALTIME/./}; echo $((us / 1000)); }
soak_since() { awk -v d=$(($(soak_now) - $1)) 'BEGIN { printf "%.2f", d / 1000 }'; }

# soak_knob NAME DEFAULT: soak.NAME= of the kernel command line, or DEFAULT.
soak_knob() {
	local v
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^soak\.$1=\([0-9]*\)$/\1/p")
	echo "${v:-$2}"
}

# soak_baseline: note the verbs objects in use now, to compare with later.
soak_baseline() { soak_v0=$(soak_verbs); }

# soak_verbs: the QPs, CQs, PDs and MRs in use on every fabric device.
soak_verbs() { cat "$SIB"/sib*/resources | awk '$1 ~ /^(qps|cqs|pds|mrs)$/ { n[$1] += $2 } END { for (k in n) printf "%s=%d ", k, n[k] }' | tr ' ' '\n' | sort | tr '\n' ' '; }
# shellcheck disable=SC2317 # called through wait_for
soak_verbs_are() { [ "$(soak_verbs)" = "$1" ]; }

# soak_tcp_start SRV ADDR CLI: one TCP stream (tests/tools/tcpstream.c)
# from CLI to ADDR, port 5299, until soak_tcp_stop.
soak_tcp_start() {
	ip netns exec "$1" tcpstream sink 5299 >/tmp/soak-sink.log 2>&1 &
	soak_sink_pid=$!
	wait_for 10 iperf_listening "$1" 5299 || fail "the stream's sink in $1 did not start"
	ip netns exec "$3" tcpstream send "$2" 5299 >/tmp/soak-send.log 2>&1 &
	soak_send_pid=$! soak_send_ns=$3
	wait_for 30 soak_tcp_up "$3" || fail "the stream from $3 to $2 did not connect"
}

# shellcheck disable=SC2317 # called through wait_for
soak_tcp_up() { ip netns exec "$1" ss -Htn state established 'dport = :5299' | grep -q .; }

# soak_tcp_stop: end the stream; sets soak_tcp_sent and soak_tcp_received
# (bytes written, and read at the other end), and soak_tcp_whole (no: the
# stream broke before it was stopped).
soak_tcp_stop() {
	local t0 tcp
	soak_tcp_whole=yes
	# A campaign of faults leaves TCP backed off (rto, backoff): the tail
	# waits for its next retransmission.
	tcp=$(ip netns exec "$soak_send_ns" ss -Htni 'dport = :5299' | grep -o -E '(rto|backoff):[0-9.]+' | tr '\n' ' ')
	kill -0 "$soak_send_pid" 2>/dev/null || soak_tcp_whole=no
	# The sender ends the stream and waits until the sink has read it
	# all: a retransmission comes at the latest TCP_RTO_MAX (120 s) after
	# the last.
	t0=$(soak_now)
	kill "$soak_send_pid" 2>/dev/null || true
	wait_for 150 eval "! kill -0 $soak_send_pid" || kill -9 "$soak_send_pid" 2>/dev/null || true
	wait "$soak_send_pid" || soak_tcp_whole=no
	wait_for 10 eval "! kill -0 $soak_sink_pid" || kill "$soak_sink_pid" 2>/dev/null || true
	echo "   stream stopped (${tcp:-no socket}), its tail in $(soak_since "$t0") s"
	wait "$soak_sink_pid" || soak_tcp_whole=no
	soak_tcp_sent=$(awk '$1 == "sent" { print $2 }' /tmp/soak-send.log)
	soak_tcp_received=$(awk '$1 == "received" { print $2 }' /tmp/soak-sink.log)
	[ "$soak_tcp_whole" = yes ] || cat /tmp/soak-send.log /tmp/soak-sink.log
}

# soak_recover_when WHAT T0 CHECK...: after a fault that began at T0
# (soak_now), wait up to 60 s for CHECK to succeed; count the attempt and
# its time.
soak_recover_when() {
	local what=$1 t0=$2
	shift 2
	soak_attempts=$((${soak_attempts:-0} + 1))
	if wait_for 60 "$@"; then
		soak_recovered=$((${soak_recovered:-0} + 1))
		soak_times+=("$(soak_since "$t0")")
	else
		echo "$what: not recovered within 60 s ($*)"
	fi
}

# soak_recover WHAT T0 NS ADDR: the same, recovered once NS pings ADDR.
soak_recover() { soak_recover_when "$1" "$2" ip netns exec "$3" ping -c 1 -W 1 "$4"; }

# soak_report NAME [KEY=VALUE...]: the SOAK line of the attempts
# soak_recover counted since the last report, and of the last stream, with
# the campaign's own figures after them; verbs_back compares with
# soak_baseline, waiting up to 60 s.
soak_report() {
	local name=$1 attempts=${soak_attempts:-0} recovered=${soak_recovered:-0} stats verbs=yes
	shift
	stats=$(printf '%s\n' "${soak_times[@]}" | sort -n | awk 'NF { t[n++] = $1 } END {
		if (!n) { print "- -"; exit }
		printf "%s %s\n", (n % 2 ? t[int(n / 2)] : (t[n / 2 - 1] + t[n / 2]) / 2), t[n - 1] }')
	wait_for 60 soak_verbs_are "$soak_v0" || verbs=no
	echo "SOAK $name attempts=$attempts recovered=$recovered" \
		"recover_median_s=${stats% *} recover_worst_s=${stats#* }" \
		"tcp_sent=${soak_tcp_sent:-0} tcp_received=${soak_tcp_received:-0}" \
		"tcp_whole=${soak_tcp_whole:-no} verbs_back=$verbs" "$@"
	if [ "$recovered" != "$attempts" ] || [ "${soak_tcp_whole:-no}" != yes ] ||
		[ "${soak_tcp_received:-0}" = 0 ] ||
		[ "${soak_tcp_received:-0}" != "${soak_tcp_sent:-0}" ] || [ "$verbs" != yes ]; then
		soak_failed=1
	fi
	soak_attempts=0 soak_recovered=0 soak_times=()
}

# soak_end: pass or fail the campaign as its SOAK lines say.
soak_end() {
	[ "$soak_failed" = 0 ] || fail "a SOAK line above shows a loss"
	pass
}
