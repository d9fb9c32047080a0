/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: memcpy, memset. */
#include <string.h>
