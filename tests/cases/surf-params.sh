#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module parameters: modinfo describes each; out-of-range values make
# modprobe fail with a line in the kernel log saying why; good values read
# back in /sys/module/ib_ipoib/parameters and take effect (ethtool -g),
# and traffic flows.
#
#   h1: A 10.50.0.1 ---- software fabric ---- h2: B 10.50.0.2
#
# timeout: 180
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

P=/sys/module/ib_ipoib/parameters
loaded() { grep -q '^ib_ipoib ' /proc/modules; }

step "modinfo describes every parameter"
modinfo -F parm ib_ipoib
params=$(modinfo -F parm ib_ipoib | cut -d: -f1)
for p in send_queue_size recv_queue_size debug_level mcast_debug_level; do
	echo "$params" | grep -qx "$p" || fail "modinfo lists no parameter $p"
done
# Each "name:description (type)" line has words between the colon and the type.
modinfo -F parm ib_ipoib | while IFS= read -r line; do
	desc=${line#*:}
	desc=${desc% (*)}
	[ -n "${desc// /}" ] || fail "parameter without a description: $line"
done

fabric_up devices=2 ports=1

step "out-of-range and malformed values: modprobe fails, the log says why"
# bad PARAM=VALUE PATTERN: modprobe refuses it with EINVAL and logs PATTERN.
bad() {
	local err
	kernel_log_mark "modprobe ib_ipoib $1"
	if err=$(modprobe ib_ipoib "$1" 2>&1); then
		fail "modprobe ib_ipoib $1 succeeded"
	fi
	echo "modprobe ib_ipoib $1: $err"
	echo "$err" | grep -q "Invalid argument" || fail "$1: modprobe did not get EINVAL"
	loaded && fail "ib_ipoib loaded with $1"
	dmesg | sed -n "/test: modprobe ib_ipoib $1\$/,\$p" | tail -n +2 | tee log.txt
	grep -q "$2" log.txt || fail "$1: no kernel message matching '$2'"
}
bad send_queue_size=63 "send_queue_size=63 out of range 64-8192"
bad send_queue_size=8193 "send_queue_size=8193 out of range 64-8192"
bad recv_queue_size=0 "recv_queue_size=0 out of range 64-8192"
bad recv_queue_size=4294967295 "recv_queue_size=4294967295 out of range"
bad recv_queue_size=junk "invalid for parameter .recv_queue_size"
bad debug_level=x "invalid for parameter .debug_level"
if echo "$params" | grep -qx cm_policy; then
	bad cm_policy=bogus "cm_policy"
	bad cm_service_id=bogus "cm_service_id"
	bad cm_max_conn_nosrq=1025 "cm_max_conn_nosrq"
	bad cm_idle_timeout=86401 "cm_idle_timeout"
	bad cm_pool_quiet_ms=99 "cm_pool_quiet_ms=99 out of range 100-600000"
fi
[ ! -e /sys/class/net/ib0 ] || fail "an interface was left behind"

step "good values read back and take effect"
kernel_log_mark "good values"
ours_up send_queue_size=100 recv_queue_size=1024 debug_level=1
dmesg | grep "rounded up" || fail "no message about rounding send_queue_size up"
assert_eq "$(cat $P/send_queue_size)" 128 "send_queue_size, rounded up"
assert_eq "$(cat $P/recv_queue_size)" 1024 "recv_queue_size"
assert_eq "$(cat $P/debug_level)" 1 "debug_level"
assert_eq "$(cat $P/mcast_debug_level)" 0 "mcast_debug_level (default)"
if echo "$params" | grep -qx cm_policy; then
	assert_eq "$(cat $P/cm_policy)" auto "cm_policy (default)"
	assert_eq "$(cat $P/cm_service_id)" policy "cm_service_id (default: by the policy)"
fi
two_hosts ib_ipoib 10.50.0
on h1 ethtool -g "$a"
assert_eq "$(ip netns exec h1 ethtool -g "$a" | awk '/^RX:/ { n++; if (n == 2) print $2 }')" 1024 "RX ring from recv_queue_size"
assert_eq "$(ip netns exec h1 ethtool -g "$a" | awk '/^TX:/ { n++; if (n == 2) print $2 }')" 128 "TX ring from send_queue_size"
assert on h1 ping -c 3 -i 0.2 -W 2 10.50.0.2

step "debug levels change at run time; queue sizes do not"
echo 0 >$P/debug_level
echo 1 >$P/mcast_debug_level
assert_eq "$(cat $P/debug_level)" 0 "debug_level after writing 0"
assert_eq "$(cat $P/mcast_debug_level)" 1 "mcast_debug_level after writing 1"
if echo 256 2>/dev/null >$P/send_queue_size; then
	fail "send_queue_size is writable at run time"
fi
assert_eq "$(cat $P/send_queue_size)" 128 "send_queue_size after a refused write"
assert on h1 ping -c 3 -i 0.2 -W 2 10.50.0.2

if echo "$params" | grep -qx cm_policy; then
	step "connected-mode parameters read back and take effect"
	modprobe -r ib_ipoib
	ours_up cm_policy=rfc cm_service_id=rfc cm_uc=1 cm_idle_timeout=30 cm_max_conn_nosrq=8 cm_pool_quiet_ms=2000
	assert_eq "$(cat $P/cm_policy)" rfc "cm_policy"
	assert_eq "$(cat $P/cm_service_id)" rfc "cm_service_id"
	assert_eq "$(cat $P/cm_uc)" Y "cm_uc"
	assert_eq "$(cat $P/cm_idle_timeout)" 30 "cm_idle_timeout"
	assert_eq "$(cat $P/cm_max_conn_nosrq)" 8 "cm_max_conn_nosrq"
	assert_eq "$(cat $P/cm_pool_quiet_ms)" 2000 "cm_pool_quiet_ms"
	a=$(wait_iface ib_ipoib sib0 1)
	b=$(wait_iface ib_ipoib sib1 1)
	ib_host h1 "$a" 10.50.0.1/24
	ib_host h2 "$b" 10.50.0.2/24
	for h in "h1 $a" "h2 $b"; do
		# shellcheck disable=SC2086
		set -- $h
		on "$1" ip link set "$2" type ipoib mode connected
		on "$1" ip link set "$2" mtu 65520
	done
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
	assert on h1 ping -c 3 -i 0.2 -W 2 -s 60000 10.50.0.2
	cat "/sys/kernel/debug/ib_ipoib/$a/cm"
	grep -q "^# mode connected, policy rfc, RC+UC" "/sys/kernel/debug/ib_ipoib/$a/cm" ||
		fail "debugfs cm does not show the parameters in force"
	grep -qE " UC [0-9]+ " "/sys/kernel/debug/ib_ipoib/$a/cm" ||
		fail "no UC connection with cm_uc=1 on both ends"
fi
pass
