/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the switch's two halves share: sib_switch.c carries SMPs, keeps
 * the links' states and the forwarding tables and counts; sib_switch_sma.c
 * answers the SMPs addressed to the switch.
 */
#ifndef SIB_SWITCH_H
#define SIB_SWITCH_H

#include <rdma/ib_smi.h>
#include "sib.h"

#define SW_NO_PORT		0xff	/* LFT: not routed */
#define SW_CLASS_VERSION	1

static struct sib_switch *const sw = &sib_fabric.sw;

struct sib_port *sib_switch_hca(u32 port_num);
enum ib_port_state sib_switch_port_state(u32 port_num);
u16 sib_switch_sma(const struct ib_smp *in, struct ib_smp *out, u32 in_port);
void sib_switch_sma_init(void);

#endif /* SIB_SWITCH_H */
