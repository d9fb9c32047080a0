// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/<module>/<interface>/ with
 *
 *   mcg     multicast groups: MGID, MLID, Q_Key, MTU, rate, kind, state
 *   paths   unicast paths: DGID, DLID, SL, rate, MTU, state, neighbours
 *   neighs  link addresses: flags:QPN:GID, AH, queued packets, idle time
 *   cm      connected mode: settings, then one line per connection: peer,
 *           QPNs, RC/UC, MTU, age, idle time, state, who initiated it
 *   cm_peers  connected mode's peer table: one line per peer: address,
 *           whether both lookups find it, form learned and its age,
 *           backoff, connections, the state of the one we send on
 *   sendonly_idle_s  (read-write) seconds a send-only group may go unused
 *           before it is left, checked every 10 s (default 60)
 *
 * one line per entry under a header, for grep and awk, readable while
 * traffic runs.  The folder keeps the name the interface had when it was
 * made: a rename does not follow it, and a name taken meanwhile gets
 * "-<QPN>" added.  Nothing here is ABI.  On kernels that inject faults,
 * fail_alloc/ sits beside the interfaces' folders (ipoib_fault.c).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "ipoib_cm.h"
#include "ipoib_debugfs.h"
#include "ipoib_waitq.h"

static struct dentry *ipoib_debugfs_root;

static int mtu_bytes(u8 mtu)
{
	return max(ib_mtu_enum_to_int(mtu), 0);
}

static int rate_mbps(u8 rate)
{
	return max(ib_rate_to_mbps(rate), 0);
}

static const char *mcast_kind(const struct ipoib_dev *priv,
			      const struct ipoib_mcast *mcast)
{
	if (mcast == priv->broadcast)
		return "broadcast";
	return mcast->sendonly ? "sendonly" : "full";
}

static const char *mcast_state(const struct ipoib_mcast *mcast)
{
	if (mcast->dead)
		return "leaving";
	if (mcast->ready)
		return "joined";
	if (mcast->busy)
		return "joining";
	return "waiting";
}

/* The record is the SA's only once joined. */
static void show_mcast(struct seq_file *m, const struct ipoib_dev *priv,
		       const struct ipoib_mcast *mcast)
{
	const struct ib_sa_mcmember_rec *rec = &mcast->rec;
	bool joined = mcast->ready;

	lockdep_assert_held(&priv->lock);
	seq_printf(m, "%pI6 0x%04x 0x%08x %5d %6d %-9s %-7s %-3s %u\n",
		   mcast->mgid.raw, joined ? be16_to_cpu(rec->mlid) : 0,
		   joined ? be32_to_cpu(rec->qkey) : 0,
		   joined ? mtu_bytes(rec->mtu) : 0,
		   joined ? rate_mbps(rec->rate) : 0,
		   mcast_kind(priv, mcast), mcast_state(mcast),
		   mcast->qp_attached ? "yes" : "no",
		   ipoib_waitq_len(&mcast->queue));
}

static int mcg_show(struct seq_file *m, void *v)
{
	struct ipoib_dev *priv = m->private;
	struct ipoib_mcast *mcast;

	seq_puts(m, "MGID                                    MLID   Q_Key        MTU   Mb/s kind      state   att queued\n");
	spin_lock_bh(&priv->lock);
	list_for_each_entry(mcast, &priv->mcast_list, list)
		show_mcast(m, priv, mcast);
	spin_unlock_bh(&priv->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mcg);

static void show_path(struct seq_file *m, struct ipoib_path *path)
{
	struct sa_path_rec *rec = &path->rec;
	const struct ipoib_neigh *neigh;
	unsigned int n = 0;
	const char *state;

	list_for_each_entry(neigh, &path->neighs, owner_link)
		n++;
	if (path->query)
		state = "querying";
	else if (path->valid)
		state = "valid";
	else
		state = "invalid";

	/* An invalid path shows its last record, if it ever had one. */
	seq_printf(m, "%pI6 0x%04x %2u %6d %5d %-8s %u\n", path->dgid.raw,
		   be32_to_cpu(sa_path_get_dlid(rec)), rec->sl,
		   rate_mbps(rec->rate), mtu_bytes(rec->mtu), state, n);
}

static int paths_show(struct seq_file *m, void *v)
{
	struct ipoib_dev *priv = m->private;
	struct ipoib_path *path;
	int bkt;

	seq_puts(m, "DGID                                    DLID   SL   Mb/s   MTU state    neighs\n");
	spin_lock_bh(&priv->lock);
	hash_for_each(priv->paths, bkt, path, hash_link)
		show_path(m, path);
	spin_unlock_bh(&priv->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(paths);

/* Under RCU: neighbours are freed after a grace period. */
static void show_neigh(struct seq_file *m, struct ipoib_neigh *neigh)
{
	const u8 *a = neigh->daddr;
	unsigned long idle = jiffies - READ_ONCE(neigh->last_used);

	seq_printf(m, "%02x:%06x:%pI6 %-3s %6u %lu\n", ipoib_addr_flags(a),
		   ipoib_addr_qpn(a), ipoib_addr_gid(a),
		   rcu_access_pointer(neigh->ah) ? "yes" : "no",
		   ipoib_waitq_len(&neigh->queue), idle / HZ);
}

/*
 * The table may be resized under the walk (-EAGAIN): the walk goes on,
 * and an entry may then show twice or not at all.
 */
static int neighs_show(struct seq_file *m, void *v)
{
	struct ipoib_dev *priv = m->private;
	struct rhashtable_iter iter;
	struct ipoib_neigh *neigh;

	seq_puts(m, "address (flags:QPN:GID)                            AH  queued idle_s\n");
	rhashtable_walk_enter(&priv->neighs, &iter);
	rhashtable_walk_start(&iter);
	while ((neigh = rhashtable_walk_next(&iter)) != NULL) {
		if (IS_ERR(neigh)) {
			if (PTR_ERR(neigh) == -EAGAIN)
				continue;
			break;
		}
		if (!READ_ONCE(neigh->dead))
			show_neigh(m, neigh);
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(neighs);

static int cm_show(struct seq_file *m, void *v)
{
	ipoib_cm_debugfs_show(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cm);

static int cm_peers_show(struct seq_file *m, void *v)
{
	ipoib_cm_peers_show(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cm_peers);

/* The interface's name, or with its QPN added if that name is taken. */
static struct dentry *make_dir(struct ipoib_dev *priv)
{
	char name[IFNAMSIZ + sizeof("-ffffffff")];
	struct dentry *old;

	strscpy(name, priv->dev->name, sizeof(name));
	old = debugfs_lookup(name, ipoib_debugfs_root);
	if (old) {
		dput(old);
		snprintf(name, sizeof(name), "%s-%06x", priv->dev->name,
			 priv->qpn);
	}
	return debugfs_create_dir(name, ipoib_debugfs_root);
}

void ipoib_debugfs_add(struct ipoib_dev *priv)
{
	struct dentry *dir;

	if (IS_ERR_OR_NULL(ipoib_debugfs_root))
		return;
	dir = make_dir(priv);
	if (IS_ERR(dir)) {
		netdev_info(priv->dev, "no debugfs folder: %ld\n", PTR_ERR(dir));
		return;
	}
	debugfs_create_file("mcg", 0444, dir, priv, &mcg_fops);
	debugfs_create_file("paths", 0444, dir, priv, &paths_fops);
	debugfs_create_file("neighs", 0444, dir, priv, &neighs_fops);
	debugfs_create_file("cm", 0444, dir, priv, &cm_fops);
	debugfs_create_file("cm_peers", 0444, dir, priv, &cm_peers_fops);
	debugfs_create_u32("sendonly_idle_s", 0600, dir, &priv->sendonly_idle_s);
	priv->debugfs = dir;
}

/* Waits for readers in progress: priv stays valid until this returns. */
void ipoib_debugfs_remove(struct ipoib_dev *priv)
{
	debugfs_remove(priv->debugfs);
	priv->debugfs = NULL;
}

/* Without debugfs (disabled, or not built in) the driver just has none. */
void ipoib_debugfs_init(void)
{
	ipoib_debugfs_root = debugfs_create_dir(DRV_NAME, NULL);
	if (IS_ERR(ipoib_debugfs_root))
		ipoib_debugfs_root = NULL;
	else
		ipoib_fault_init(ipoib_debugfs_root);
}

void ipoib_debugfs_exit(void)
{
	ipoib_fault_exit();
	debugfs_remove(ipoib_debugfs_root);
	ipoib_debugfs_root = NULL;
}
