// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast: QP attachments (the HCA's filter) and the built-in SA's
 * members per MLID (set as ports join and leave), from which the
 * switches' MFTs follow.
 */
#include <linux/slab.h>
#include <linux/rculist.h>
#include "sib.h"

static bool mlid_ok(u16 mlid)
{
	return mlid >= SIB_MLID_BASE && mlid < SIB_MLID_BASE + SIB_MAX_MLIDS;
}

/* Under sib_fabric.lock: the group for mlid, installing *spare if absent. */
static struct sib_mcast_group *group_get(u16 mlid,
					 struct sib_mcast_group **spare)
{
	struct sib_mcast_group __rcu **slot =
		&sib_fabric.by_mlid[mlid - SIB_MLID_BASE];
	struct sib_mcast_group *grp;

	grp = rcu_dereference_protected(*slot,
					lockdep_is_held(&sib_fabric.lock));
	if (grp || !*spare)
		return grp;
	grp = *spare;
	*spare = NULL;
	grp->mlid = mlid;
	INIT_LIST_HEAD(&grp->attached);
	rcu_assign_pointer(*slot, grp);
	return grp;
}

int sib_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sib_qp *qp = to_sqp(ibqp);
	struct sib_mcast_group *grp, *spare;
	struct sib_mcast_attach *att, *old;
	unsigned long flags;

	if (qp->type != IB_QPT_UD || !mlid_ok(lid) || gid->raw[0] != 0xff)
		return -EINVAL;

	att = kzalloc(sizeof(*att), GFP_KERNEL);
	spare = kzalloc(sizeof(*spare), GFP_KERNEL);
	if (!att || !spare) {
		kfree(att);
		kfree(spare);
		return -ENOMEM;
	}
	att->qp = qp;
	att->mgid = *gid;
	att->mlid = lid;

	spin_lock_irqsave(&sib_fabric.lock, flags);
	list_for_each_entry(old, &qp->mcast_list, qp_link) {
		if (old->mlid == lid && !memcmp(&old->mgid, gid, sizeof(*gid))) {
			/* Attaching twice is harmless, as on hardware. */
			spin_unlock_irqrestore(&sib_fabric.lock, flags);
			kfree(att);
			kfree(spare);
			return 0;
		}
	}
	grp = group_get(lid, &spare);
	list_add_tail_rcu(&att->group_link, &grp->attached);
	list_add_tail(&att->qp_link, &qp->mcast_list);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);

	kfree(spare);
	atomic_inc(&qp->sdev->nr_mcast_attach);
	return 0;
}

static void detach_one(struct sib_mcast_attach *att)
{
	list_del_rcu(&att->group_link);
	list_del(&att->qp_link);
	atomic_dec(&att->qp->sdev->nr_mcast_attach);
	kfree_rcu(att, rcu);
}

int sib_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sib_qp *qp = to_sqp(ibqp);
	struct sib_mcast_attach *att;
	unsigned long flags;
	int ret = -EINVAL;

	spin_lock_irqsave(&sib_fabric.lock, flags);
	list_for_each_entry(att, &qp->mcast_list, qp_link) {
		if (att->mlid == lid &&
		    !memcmp(&att->mgid, gid, sizeof(*gid))) {
			detach_one(att);
			ret = 0;
			break;
		}
	}
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	return ret;
}

void sib_mcast_detach_all(struct sib_qp *qp)
{
	struct sib_mcast_attach *att, *next;
	unsigned long flags;

	spin_lock_irqsave(&sib_fabric.lock, flags);
	list_for_each_entry_safe(att, next, &qp->mcast_list, qp_link)
		detach_one(att);
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
}

/* Switch forwarding for mlid towards port.  May sleep. */
int sib_mft_set(u16 mlid, const struct sib_port *port, bool member)
{
	struct sib_mcast_group *grp, *spare = NULL;
	unsigned long flags;

	if (!mlid_ok(mlid))
		return -EINVAL;
	if (member) {
		spare = kzalloc(sizeof(*spare), GFP_KERNEL);
		if (!spare)
			return -ENOMEM;
	}
	spin_lock_irqsave(&sib_fabric.lock, flags);
	grp = group_get(mlid, &spare);
	if (grp) {
		unsigned long forward = grp->forward;

		if (member)
			forward |= BIT(port->fabric_index);
		else
			forward &= ~BIT(port->fabric_index);
		WRITE_ONCE(grp->forward, forward);
	}
	spin_unlock_irqrestore(&sib_fabric.lock, flags);
	kfree(spare);
	return 0;
}

/* Under rcu_read_lock(): the ports mlid's group forwards to, by fabric index. */
unsigned long sib_mft_members(u16 mlid)
{
	struct sib_mcast_group *grp;

	if (!mlid_ok(mlid))
		return 0;
	grp = rcu_dereference(sib_fabric.by_mlid[mlid - SIB_MLID_BASE]);
	return grp ? READ_ONCE(grp->forward) : 0;
}

/* At unload, after every QP is gone. */
void sib_fabric_free_groups(void)
{
	u32 i;

	for (i = 0; i < SIB_MAX_MLIDS; i++) {
		struct sib_mcast_group *grp =
			rcu_dereference_protected(sib_fabric.by_mlid[i], 1);

		if (!grp)
			continue;
		WARN_ON(!list_empty(&grp->attached));
		RCU_INIT_POINTER(sib_fabric.by_mlid[i], NULL);
		kfree(grp);
	}
}
