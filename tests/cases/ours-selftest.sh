#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The driver's in-module self-tests (selftest=1): ring arithmetic across
# the counters' wrap, backoff, the connected-mode policy's choices and a
# sample of the wire rules, as this kernel's build of the driver runs
# them.  They pass, the module loads and then works; without the
# parameter they do not run.
#
# timeout: 120
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

fabric_up devices=2 ports=1

step "selftest=1: every check passes and the module loads"
kernel_log_mark "selftest=1"
ours_up selftest=1
log=$(dmesg | sed -n '/test: selftest=1/,$p')
echo "$log" | grep -E 'self-test' || true
echo "$log" | grep -q 'self-test failed' && fail "a self-test failed"
n=$(echo "$log" | sed -n 's/.*ib_ipoib: self-tests: \([0-9]*\) passed.*/\1/p')
[ -n "$n" ] || fail "no self-test report in the kernel log"
assert_ge "$n" 30 "self-tests run"
assert_eq "$(cat /sys/module/ib_ipoib/parameters/selftest)" Y "selftest parameter"
two_hosts ib_ipoib 10.19.0
assert on h1 ping -c 2 -i 0.2 -W 2 10.19.0.2
rmmod ib_ipoib
ip netns del h1
ip netns del h2

step "without the parameter, no self-tests"
kernel_log_mark "no selftest"
ours_up
if dmesg | sed -n '/test: no selftest/,$p' | grep -q 'self-tests:'; then
	fail "self-tests ran without selftest=1"
fi
pass
