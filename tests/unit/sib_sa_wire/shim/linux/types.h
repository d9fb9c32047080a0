/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in: the kernel's fixed-width types. */
#ifndef SHIM_LINUX_TYPES_H
#define SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;

#endif
