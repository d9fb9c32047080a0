// SPDX-License-Identifier: GPL-2.0
/*
 * The links between the HCA ports and their switches, under sm=external (the
 * built-in SM brings ports up and down itself, sib_sm.c): a link is up
 * while its cable is in (the debugfs state file, the device being there)
 * and neither end is disabled.  A link that comes up leaves both ends in
 * INIT, for the SM to arm and activate; one that goes down takes both
 * ends DOWN.  Each end's logical state is its own from then on (IBA 7.2).
 */
#include "sib.h"

/*
 * Under sib_fabric.lock: bring port's link to what it can be now; with
 * retrain, a link that is up goes down first (a Down set at either end).
 * Returns true when the HCA's end went down: the caller then raises the
 * events of sib_link_lost(), outside the lock.
 */
bool sib_link_update_locked(struct sib_port *port, bool retrain)
{
	struct sib_switch *sw = sib_port_switch(port);
	u32 sw_port = port->sw_port;
	struct sib_sw_port *sp = &sw->port[sw_port];
	bool can = port->plugged && !port->mgmt.disabled && !sp->disabled;
	bool dropped = false;

	lockdep_assert_held(&sib_fabric.lock);
	if (WARN_ON_ONCE(!sib_sm_external))
		return false;
	if (port->state != IB_PORT_DOWN && (retrain || !can)) {
		WRITE_ONCE(port->state, IB_PORT_DOWN);
		sib_switch_port_state_locked(sw, sw_port, IB_PORT_DOWN);
		dropped = true;
	}
	if (can && port->state == IB_PORT_DOWN) {
		WRITE_ONCE(port->state, IB_PORT_INIT);
		sib_switch_port_state_locked(sw, sw_port, IB_PORT_INIT);
	}
	return dropped;
}

/* What a port that lost its link tells its owners (either SM). */
void sib_link_lost(struct sib_port *port)
{
	sib_count(port, SIB_CNT_LINK_DOWNED, 1);
	sib_sm_sa_sync(port, SIB_SA_SYNC_GONE);
	sib_port_event(port, IB_EVENT_PORT_ERR);
}

/* The cable is put in or pulled out (debugfs, a device coming or going). */
void sib_link_plug(struct sib_port *port, bool plugged)
{
	unsigned long flags;
	bool dropped;

	spin_lock_irqsave(&sib_fabric.lock, flags);
	port->plugged = plugged;
	if (plugged)
		WRITE_ONCE(port->mgmt.disabled, false);
	dropped = sib_link_update_locked(port, false);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	if (dropped)
		sib_link_lost(port);
}
