#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: must FAIL, its output naming the command that failed
# under "set -e".
# expect: FAIL exit status 1
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"

ip link set dev no-such-device up
echo "not reached"
