/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: of the test modules' compat header, the unaligned helpers. */
#include <asm/unaligned.h>
