#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: a restrack report with no known in-tree report before
# it is a leak of ours, or of the fabric's: the case FAILS.
# expect: FAIL WARNING: CPU: 0 PID: 1 at harness-self-test rdma_restrack_clean
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"

echo "------------[ cut here ]------------" >/dev/kmsg
echo "WARNING: CPU: 0 PID: 1 at harness-self-test rdma_restrack_clean+0x0/0x0 [self_test]" >/dev/kmsg
echo "Call Trace:" >/dev/kmsg
echo "---[ end trace 0000000000000000 ]---" >/dev/kmsg
pass
