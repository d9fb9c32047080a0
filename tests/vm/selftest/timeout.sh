#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: must FAIL on its own 5 s timeout, the guest staying up;
# leaves a background process and a namespace behind for the reset to clean.
#
# timeout: 5
# expect: FAIL timed out
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"

ns_add leftover
sleep 1000 &
echo "sleeping past the timeout"
sleep 1000
