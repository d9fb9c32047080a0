# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the rdma_cm cases: the rdmaprobe test module (its control
# file, tests/rdmaprobe/rdmaprobe_main.c, says what each command does).
# Source after common.sh and ib.sh.

RP_CTL=/sys/kernel/debug/rdmaprobe/ctl

# rp_up: rdma_cm and the probe, with an empty log.
rp_up() {
	modprobe rdma_cm
	modprobe rdmaprobe
}

# rp NS COMMAND: one probe command, written from namespace NS (the probe
# acts in its writer's namespace; "-" is the initial one), after the log
# was emptied; the log it left goes to RP_OUT and, indented, to stdout.
# Returns the command's status (the write's errno shows in its message).
# "ip netns exec" mounts a sysfs of the namespace over /sys: debugfs is
# mounted again inside, in that command's own mount namespace.
rp() {
	local ns=$1 cmd=$2 st=0
	# shellcheck disable=SC2016 # expanded by the inner sh
	local write='echo "$1" >/sys/kernel/debug/rdmaprobe/ctl'
	echo clear >"$RP_CTL"
	echo "[$ns] rdmaprobe: $cmd"
	if [ "$ns" = - ]; then
		sh -c "$write" sh "$cmd" || st=$?
	else
		ip netns exec "$ns" sh -c "mount -t debugfs debugfs /sys/kernel/debug && $write" \
			sh "$cmd" || st=$?
	fi
	RP_OUT=$(cat "$RP_CTL")
	# The log; of the state lines after it only the count.
	grep -Ev '^(listen|conn) ' <<<"$RP_OUT" | indent
	echo "    ($(rp_count '^listen ') listens, $(rp_count '^conn ') connections up)"
	return "$st"
}

# indent: stdin, each line behind "    | ".
indent() {
	local line
	while IFS= read -r line; do echo "    | $line"; done
}

# rp_ok NS COMMAND: rp, failing the case unless the command succeeds.
rp_ok() { rp "$@" || fail "rdmaprobe in $1: '$2' failed (status $?)"; }

# rp_refused NS COMMAND: rp, failing the case if the command succeeds.
rp_refused() {
	if rp "$@"; then
		fail "rdmaprobe in $1: '$2' succeeded"
	fi
	return 0
}

# rp_has PATTERN: the last command's log has a line matching PATTERN
# (grep -E), else the case fails.
rp_has() { grep -Eq -- "$1" <<<"$RP_OUT" || fail "the probe's log has no line matching '$1'"; }

# rp_lacks PATTERN: no line of the last command's log matches.
rp_lacks() { ! grep -Eq -- "$1" <<<"$RP_OUT" || fail "the probe's log has a line matching '$1'"; }

# rp_count PATTERN: how many lines of the last command's log match.
rp_count() { grep -Ec -- "$1" <<<"$RP_OUT" || true; }

# netns_id NS: the namespace's inode number, as the probe's log names it.
netns_id() { ip netns exec "$1" readlink /proc/self/ns/net | tr -dc 0-9; }

# rp_exchanged NS DEV: the last connect reached a listener, in namespace NS,
# whose request rdma_cm matched to net_device DEV; both sides received
# their message with the bytes and CRC-32 they expected; the connection
# ended cleanly (the request, the device and the figures are in the log
# shown above).  The listener's ESTABLISHED is not required: its QP
# carries data from the REP on, and ib_cm may handle the client's DREQ
# before the RTU (each MAD is a work item of a per-CPU queue), after
# which the RTU is dropped and no ESTABLISHED comes (the debug kernel
# once showed a listener with DISCONNECTED and no ESTABLISHED).
rp_exchanged() {
	rp_has "CONNECT_REQUEST status 0"
	rp_has "net_device $2 \\(netns $(netns_id "$1")\\): srv#"
	rp_has "^cli#[0-9]+ ESTABLISHED status 0"
	assert_eq "$(rp_count 'received seq [0-9]+: [0-9]+ bytes crc32 0x[0-9a-f]+, matches')" 2 \
		"messages received and compared (one each way)"
	rp_lacks DIFFERS
}

# rp_cli_nr: the number of the connection the last connect made.
rp_cli_nr() { sed -n 's/^cli#\([0-9]*\) connect to .*/\1/p' <<<"$RP_OUT" | head -n 1; }

# verbs IBDEV: the fabric's count of the device's QPs, CQs, SRQs, PDs and
# MRs in use (address handles and multicast attachments come and go with
# neighbours, so they are left out).
verbs() {
	awk '$1 ~ /^(qps|cqs|srqs|pds|mrs)$/ { printf "%s=%s ", $1, $2 }' "$SIB/$1/resources"
}

# shellcheck disable=SC2317 # called by wait_for
verbs_are() { [ "$(verbs "$1")" = "$2" ]; }

# driver_of NS IFACE: what ethtool -i says drives the interface.
driver_of() {
	ip netns exec "$1" ethtool -i "$2" | awk '/^(driver|version):/ { printf "%s ", $0 }'
	echo
}

# responder_mark: remember the RDMA counters of sib0 port 1, where h1's
# peer reads and writes (the responder).
responder_mark() {
	RESP_RD0=$(sib_counter sib0 1 rdma_read_bytes)
	RESP_WR0=$(sib_counter sib0 1 rdma_write_bytes)
	RESP_INV0=$(sib_counter sib0 1 remote_invalidates)
}

# responder_moved READ_MIN WRITE_MIN INV_MIN: since responder_mark, at
# least that much RDMA READ and WRITE (bytes) and remote invalidations
# answered at sib0 port 1, and no R_Key violation.
responder_moved() {
	local rd wr inv
	rd=$(($(sib_counter sib0 1 rdma_read_bytes) - RESP_RD0))
	wr=$(($(sib_counter sib0 1 rdma_write_bytes) - RESP_WR0))
	inv=$(($(sib_counter sib0 1 remote_invalidates) - RESP_INV0))
	echo "sib0 port 1, the responder: RDMA READ $rd bytes (h1's writes), RDMA WRITE $wr bytes (h1's reads), $inv regions invalidated by SEND_WITH_INV"
	assert_ge "$rd" "$1" "bytes the peer read from h1"
	assert_ge "$wr" "$2" "bytes the peer wrote to h1"
	assert_ge "$inv" "$3" "remote invalidations"
	assert_eq "$(sib_counter sib0 1 rkey_violations)" 0 "R_Key violations"
}
