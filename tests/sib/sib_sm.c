// SPDX-License-Identifier: GPL-2.0
/*
 * The built-in subnet manager: hands out LIDs, brings ports up and down,
 * holds the P_Key tables and tells the ports' owners through ib_core
 * events.  Under sm=external it does none of that: ports come up in INIT
 * without a LID (sib_link.c) and wait for the external SM.
 */
#include "sib.h"

void sib_port_event(struct sib_port *port, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &port->sdev->ibdev,
		.element.port_num = port->port_num,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

/*
 * Under sib_fabric.lock: may port take the block of 2^lmc LIDs from lid?
 * 0 if so, -EINVAL outside the SM's range (below the switches' LIDs at
 * its top) or unaligned, -EADDRINUSE when another port has it.  by_lid
 * holds base LIDs only: sib_port_by_lid() masks the path bits.
 */
int sib_sm_lid_check(const struct sib_port *port, u16 lid)
{
	u16 top = SIB_SWITCH_TOP_LID + 1 - sib_fabric.nswitches;
	u16 span = sib_lmc_span(sib_lmc);
	struct sib_port *owner;

	lockdep_assert_held(&sib_fabric.lock);
	if (lid < SIB_FIRST_LID || lid > top + 1 - span ||
	    sib_lid_path_bits(lid, sib_lmc))
		return -EINVAL;
	owner = rcu_dereference_protected(sib_fabric.by_lid[lid],
					  lockdep_is_held(&sib_fabric.lock));
	return owner && owner != port ? -EADDRINUSE : 0;
}

/* Under sib_fabric.lock: the first free block, 0 when none is. */
static u16 free_lid(void)
{
	u16 span = sib_lmc_span(sib_lmc), lid;

	for (lid = ALIGN(SIB_FIRST_LID, span); lid <= SIB_MAX_LID; lid += span)
		if (!sib_sm_lid_check(NULL, lid))
			return lid;
	return 0;
}

static void add_partitions(struct sib_port *port)
{
	int i;

	if (sib_sm_external)
		return;		/* the external SM's SA makes its groups */
	for (i = 0; i < SIB_PKEY_TABLE_LEN; i++) {
		u16 pkey = READ_ONCE(port->pkeys[i]);

		if (sib_pkey_valid(pkey))
			sib_sa_add_partition(pkey);
	}
}

/*
 * The link comes up (enabled again if the SM had disabled it) and the SM
 * takes the port through INIT and ARMED to ACTIVE at once.
 */
void sib_sm_port_up(struct sib_port *port)
{
	unsigned long flags;
	bool changed;

	if (sib_sm_external) {
		sib_link_plug(port, true);	/* INIT, for the SM */
		return;
	}
	spin_lock_irqsave(&sib_fabric.lock, flags);
	changed = port->state != IB_PORT_ACTIVE;
	WRITE_ONCE(port->mgmt.disabled, false);
	WRITE_ONCE(port->state, IB_PORT_ACTIVE);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	if (changed)
		sib_port_event(port, IB_EVENT_PORT_ACTIVE);
}

static void port_down(struct sib_port *port, bool event)
{
	unsigned long flags;
	bool changed;

	if (sib_sm_external) {
		sib_link_plug(port, false);
		return;
	}
	spin_lock_irqsave(&sib_fabric.lock, flags);
	changed = port->state != IB_PORT_DOWN;
	WRITE_ONCE(port->state, IB_PORT_DOWN);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	if (!changed)
		return;
	sib_count(port, SIB_CNT_LINK_DOWNED, 1);
	/* The SM sweeps the dead port out of every multicast group. */
	sib_sa_port_gone(port);
	if (event)
		sib_port_event(port, IB_EVENT_PORT_ERR);
}

void sib_sm_port_down(struct sib_port *port)
{
	port_down(port, true);
}

/* An HCA that died raises no event: its consumers hear DEVICE_FATAL. */
void sib_sm_port_dead(struct sib_port *port)
{
	port_down(port, false);
}

int sib_sm_add_device(struct sib_dev *sdev)
{
	unsigned long flags;
	u32 p;

	for (p = 1; p <= sdev->nports; p++) {
		struct sib_port *port = sib_port(sdev, p);
		u16 lid;

		spin_lock_irqsave(&sib_fabric.lock, flags);
		rcu_assign_pointer(sib_fabric.by_index[port->fabric_index],
				   port);
		if (sib_sm_external) {
			/* Powered up and linked: INIT, no LID yet. */
			spin_unlock_irqrestore(&sib_fabric.lock, flags);
			sib_link_plug(port, true);
			continue;
		}
		lid = free_lid();
		if (lid) {
			WRITE_ONCE(port->lmc, sib_lmc);
			WRITE_ONCE(port->lid, lid);
			rcu_assign_pointer(sib_fabric.by_lid[lid], port);
		}
		spin_unlock_irqrestore(&sib_fabric.lock, flags);
		if (!lid)
			return -ENOSPC;
		add_partitions(port);
		sib_sm_port_up(port);
	}
	return 0;
}

void sib_sm_remove_device(struct sib_dev *sdev)
{
	unsigned long flags;
	u32 p;

	for (p = 1; p <= sdev->nports; p++) {
		struct sib_port *port = sib_port(sdev, p);

		spin_lock_irqsave(&sib_fabric.lock, flags);
		WRITE_ONCE(port->state, IB_PORT_DOWN);
		port->plugged = false;
		if (sib_sm_external)
			sib_switch_port_state_locked(sib_port_switch(port),
						     port->sw_port,
						     IB_PORT_DOWN);
		else if (port->lid)
			RCU_INIT_POINTER(sib_fabric.by_lid[port->lid], NULL);
		RCU_INIT_POINTER(sib_fabric.by_index[port->fabric_index], NULL);
		spin_unlock_irqrestore(&sib_fabric.lock, flags);
		sib_sa_port_gone(port);
	}
	synchronize_rcu();
}

/* Replace a port's P_Key table; zero entries are empty slots. */
int sib_sm_set_pkeys(struct sib_port *port, const u16 *pkeys, u32 n)
{
	unsigned long flags;
	u32 i;

	if (n > SIB_PKEY_TABLE_LEN)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (pkeys[i] && !sib_pkey_valid(pkeys[i]))
			return -EINVAL;

	spin_lock_irqsave(&sib_fabric.lock, flags);
	for (i = 0; i < SIB_PKEY_TABLE_LEN; i++)
		WRITE_ONCE(port->pkeys[i], i < n ? pkeys[i] : 0);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);

	add_partitions(port);
	sib_port_event(port, IB_EVENT_PKEY_CHANGE);
	return 0;
}

/* Give a port a new LID the fabric routes: 1 when it changed, or -errno. */
int sib_sm_move_lid(struct sib_port *port, u16 lid)
{
	int ret;

	lockdep_assert_held(&sib_fabric.lock);
	if (sib_sm_external) {
		/* Where it is reached is the external SM's LFT's business. */
		if (!lid || lid > SIB_LID_UCAST_TOP)
			return -EINVAL;
		if (lid == port->lid)
			return 0;
		WRITE_ONCE(port->lid, lid);
		return 1;
	}
	if (lid == port->lid)
		return 0;
	ret = sib_sm_lid_check(port, lid);
	if (ret)
		return ret;
	RCU_INIT_POINTER(sib_fabric.by_lid[port->lid], NULL);
	WRITE_ONCE(port->lid, lid);
	rcu_assign_pointer(sib_fabric.by_lid[lid], port);
	return 1;
}

int sib_sm_set_lid(struct sib_port *port, u16 lid)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&sib_fabric.lock, flags);
	ret = sib_sm_move_lid(port, lid);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	if (ret > 0)
		sib_port_event(port, IB_EVENT_LID_CHANGE);
	return min(ret, 0);
}

/* A new link MTU means a retrained link: the port bounces. */
int sib_sm_set_mtu(struct sib_port *port, enum ib_mtu mtu)
{
	bool was_up = READ_ONCE(port->state) == IB_PORT_ACTIVE;

	if (mtu < IB_MTU_256 || mtu > IB_MTU_4096)
		return -EINVAL;
	if (was_up)
		sib_sm_port_down(port);
	WRITE_ONCE(port->active_mtu, mtu);
	if (was_up)
		sib_sm_port_up(port);
	return 0;
}

/*
 * Ask for SA bookkeeping from a context that may not sleep (an SMP's
 * SubnSet): the SA's work does it, in order with the MADs it answers.
 */
void sib_sm_sa_sync(struct sib_port *port, unsigned int what)
{
	set_bit(what, &port->sa_sync);
	queue_work(sib_fabric.wq, &port->sa_sync_work);
}

void sib_sm_sa_sync_work(struct work_struct *work)
{
	struct sib_port *port = container_of(work, struct sib_port,
					     sa_sync_work);

	if (test_and_clear_bit(SIB_SA_SYNC_GONE, &port->sa_sync))
		sib_sa_port_gone(port);
	if (test_and_clear_bit(SIB_SA_SYNC_PARTITIONS, &port->sa_sync))
		add_partitions(port);
}

/* "Client reregister" to one port: its memberships are forgotten. */
void sib_sm_reregister_port(struct sib_port *port)
{
	sib_sa_port_gone(port);
	sib_port_event(port, IB_EVENT_CLIENT_REREGISTER);
}

/* A restarted SM: every membership is gone, every port must rejoin. */
void sib_sm_restart(void)
{
	u32 d, p;

	sib_sa_reregister();
	for (d = 0; d < sib_fabric.ndevs; d++) {
		struct sib_dev *sdev = sib_fabric.devs[d];

		for (p = 1; p <= sdev->nports; p++) {
			struct sib_port *port = sib_port(sdev, p);

			if (READ_ONCE(port->state) == IB_PORT_ACTIVE)
				sib_port_event(port, IB_EVENT_CLIENT_REREGISTER);
		}
	}
}
