/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: masks and field access, without build-time checks. */
#ifndef SHIM_LINUX_BITFIELD_H
#define SHIM_LINUX_BITFIELD_H

#define BIT(n)			(1UL << (n))
#define GENMASK(h, l)		((~0UL << (l)) & (~0UL >> (63 - (h))))
#define FIELD_GET(mask, reg)	(((reg) & (mask)) >> __builtin_ctzl(mask))
#define FIELD_PREP(mask, val)	\
	(((unsigned long)(val) << __builtin_ctzl(mask)) & (mask))

#endif
