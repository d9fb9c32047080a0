/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a switch's two halves share: sib_switch.c carries SMPs, keeps the
 * links' states and the forwarding tables and counts; sib_switch_sma.c
 * answers the SMPs addressed to the switch.
 */
#ifndef SIB_SWITCH_H
#define SIB_SWITCH_H

#include <rdma/ib_smi.h>
#include "sib.h"

#define SW_NO_PORT		0xff	/* LFT: not routed */
#define SW_CLASS_VERSION	1

enum ib_port_state sib_switch_port_state(struct sib_switch *sw, u32 port_num);
u8 sib_switch_builtin_lft(const struct sib_switch *sw, u16 lid);
u32 sib_switch_builtin_mft(const struct sib_switch *sw, unsigned long forward);
u16 sib_switch_sma(struct sib_switch *sw, const struct ib_smp *in,
		   struct ib_smp *out, u32 in_port);
void sib_switch_sma_init(struct sib_switch *sw);
void sib_switch_isl_update_locked(struct sib_switch *sw, u32 port_num,
				  bool retrain);

#endif /* SIB_SWITCH_H */
