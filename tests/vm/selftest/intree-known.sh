#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: the in-tree driver's known unload race (tests/README.md,
# "The in-tree driver's own bugs") is shown, not held against the case: a
# report of it, and the restrack report of the CQ it leaked, written through
# /dev/kmsg as the kernel writes them, leave the case a PASS.
# expect: PASS
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"

# report FUNCTION: a kernel warning report raised in FUNCTION.
report() {
	echo "------------[ cut here ]------------" >/dev/kmsg
	echo "WARNING: CPU: 0 PID: 1 at harness-self-test $1+0x0/0x0 [self_test]" >/dev/kmsg
	echo "Call Trace:" >/dev/kmsg
	echo "---[ end trace 0000000000000000 ]---" >/dev/kmsg
}
report ipoib_transport_dev_cleanup
report rdma_restrack_clean
pass
