#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test: exits 0 but must FAIL, because a line that looks like a
# kernel warning appears in the kernel log while it runs. (Nothing harmless
# makes Debian's kernel WARN, so the line is written through /dev/kmsg.)
# expect: FAIL WARNING: harness self-test
set -eu
# shellcheck source=SCRIPTDIR/../../lib/common.sh
. "$TESTS_LIB/common.sh"

echo "WARNING: harness self-test, not a real kernel warning" >/dev/kmsg
pass
