// SPDX-License-Identifier: GPL-2.0
/*
 * SR-IOV virtual functions, as far as a PF's IPoIB interface manages them
 * (`ip link set ib0 vf N node_guid G port_guid G state enable`): each port
 * has SIB_VFS_PER_PORT VFs that store their node and port GUIDs and link
 * state and report them back.  No VF device exists and none carries
 * traffic, so their counters stay zero.  debugfs sibN/vfs lists them.
 */
#include <linux/debugfs.h>
#include <linux/if_link.h>
#include <linux/seq_file.h>
#include "sib.h"

#define SIB_VFS_PER_PORT	4

struct sib_vf {
	u64 node_guid;
	u64 port_guid;
	int link_state;		/* IFLA_VF_LINK_STATE_* */
};

static struct sib_vf sib_vfs[SIB_MAX_DEVICES][SIB_MAX_PORTS][SIB_VFS_PER_PORT];
static DEFINE_SPINLOCK(sib_vf_lock);

static struct sib_vf *vf_of(struct ib_device *ibdev, int vf, u32 port)
{
	struct sib_dev *sdev = to_sdev(ibdev);

	if (vf < 0 || vf >= SIB_VFS_PER_PORT || port < 1 || port > sdev->nports)
		return NULL;
	return &sib_vfs[sdev->index][port - 1][vf];
}

static int sib_set_vf_link_state(struct ib_device *ibdev, int vf, u32 port,
				 int state)
{
	struct sib_vf *v = vf_of(ibdev, vf, port);

	if (!v)
		return -EINVAL;
	if (state != IFLA_VF_LINK_STATE_AUTO &&
	    state != IFLA_VF_LINK_STATE_ENABLE &&
	    state != IFLA_VF_LINK_STATE_DISABLE)
		return -EINVAL;
	spin_lock(&sib_vf_lock);
	v->link_state = state;
	spin_unlock(&sib_vf_lock);
	return 0;
}

static int sib_get_vf_config(struct ib_device *ibdev, int vf, u32 port,
			     struct ifla_vf_info *ivf)
{
	struct sib_vf *v = vf_of(ibdev, vf, port);

	if (!v)
		return -EINVAL;
	spin_lock(&sib_vf_lock);
	ivf->linkstate = v->link_state;
	spin_unlock(&sib_vf_lock);
	return 0;
}

static int sib_get_vf_stats(struct ib_device *ibdev, int vf, u32 port,
			    struct ifla_vf_stats *stats)
{
	if (!vf_of(ibdev, vf, port))
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	return 0;
}

static int sib_get_vf_guid(struct ib_device *ibdev, int vf, u32 port,
			   struct ifla_vf_guid *node_guid,
			   struct ifla_vf_guid *port_guid)
{
	struct sib_vf *v = vf_of(ibdev, vf, port);

	if (!v)
		return -EINVAL;
	spin_lock(&sib_vf_lock);
	node_guid->guid = v->node_guid;
	port_guid->guid = v->port_guid;
	spin_unlock(&sib_vf_lock);
	return 0;
}

static int sib_set_vf_guid(struct ib_device *ibdev, int vf, u32 port,
			   u64 guid, int type)
{
	struct sib_vf *v = vf_of(ibdev, vf, port);

	if (!v)
		return -EINVAL;
	spin_lock(&sib_vf_lock);
	if (type == IFLA_VF_IB_NODE_GUID)
		v->node_guid = guid;
	else if (type == IFLA_VF_IB_PORT_GUID)
		v->port_guid = guid;
	spin_unlock(&sib_vf_lock);
	return type == IFLA_VF_IB_NODE_GUID || type == IFLA_VF_IB_PORT_GUID ?
	       0 : -EINVAL;
}

static const struct ib_device_ops sib_vf_ops = {
	.get_vf_config = sib_get_vf_config,
	.get_vf_guid = sib_get_vf_guid,
	.get_vf_stats = sib_get_vf_stats,
	.set_vf_guid = sib_set_vf_guid,
	.set_vf_link_state = sib_set_vf_link_state,
};

/* A new device's VFs start blank, link state auto. */
void sib_vf_init(struct sib_dev *sdev)
{
	spin_lock(&sib_vf_lock);
	memset(sib_vfs[sdev->index], 0, sizeof(sib_vfs[sdev->index]));
	spin_unlock(&sib_vf_lock);
	ib_set_device_ops(&sdev->ibdev, &sib_vf_ops);
}

static const char *const link_state_names[] = {
	[IFLA_VF_LINK_STATE_AUTO] = "auto",
	[IFLA_VF_LINK_STATE_ENABLE] = "enable",
	[IFLA_VF_LINK_STATE_DISABLE] = "disable",
};

/* "port P vf N node_guid G port_guid G state S", one line per VF. */
static int vfs_show(struct seq_file *m, void *unused)
{
	struct sib_dev *sdev = m->private;
	struct sib_vf copy;
	u32 p;
	int vf;

	for (p = 0; p < sdev->nports; p++) {
		for (vf = 0; vf < SIB_VFS_PER_PORT; vf++) {
			spin_lock(&sib_vf_lock);
			copy = sib_vfs[sdev->index][p][vf];
			spin_unlock(&sib_vf_lock);
			seq_printf(m, "port %u vf %d node_guid %016llx port_guid %016llx state %s\n",
				   p + 1, vf, copy.node_guid, copy.port_guid,
				   link_state_names[copy.link_state]);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vfs);

void sib_vf_debugfs(struct sib_dev *sdev, struct dentry *dir)
{
	debugfs_create_file("vfs", 0444, dir, sdev, &vfs_fops);
}
