#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: this case must FAIL (an assertion fails), with its
# output shown. Run by hand: tests/vm/run --no-build tests/vm/selftest/*.sh
# expect: FAIL exit status 1
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"

echo "about to fail on purpose"
assert_eq "$((1 + 1))" 3 "one plus one"
