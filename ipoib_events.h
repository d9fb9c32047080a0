/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipoib_events.c's functions for the driver's other files: port events and
 * the flushes they call for.
 */
#ifndef IPOIB_EVENTS_H
#define IPOIB_EVENTS_H

#include "ipoib.h"

/* ipoib_events.c */
void ipoib_tx_recover(struct work_struct *work);
void ipoib_hw_recover(struct work_struct *work);
void ipoib_event(struct ib_event_handler *handler, struct ib_event *event);
void ipoib_flush_light(struct work_struct *work);
void ipoib_flush_normal(struct work_struct *work);
void ipoib_flush_heavy(struct work_struct *work);

#endif /* IPOIB_EVENTS_H */
