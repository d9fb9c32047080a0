#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: must be reported SKIP, with its reason.
# expect: SKIP
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"

skip "nothing to test here"
