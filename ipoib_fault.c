// SPDX-License-Identifier: GPL-2.0
/*
 * The fault attribute behind ipoib_fault.h's wrappers, built only on
 * kernels with CONFIG_FAULT_INJECTION_DEBUG_FS.  In the module's debugfs
 * folder:
 *
 *   fail_alloc/        the kernel's fault_attr knobs (probability is 0 at
 *                      load: nothing fails until it is set)
 *   fail_alloc/sites   one line per call site the driver has reached:
 *                      what it calls, calls, failures injected, where
 *
 * Documentation/fault-injection/fault-injection.rst has the knobs.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/hash.h>
#include <linux/seq_file.h>
#include "ipoib_fault.h"

#define IPOIB_FAULT_SITE_BITS	8	/* the driver has about 40 */

static DECLARE_FAULT_ATTR(fail_alloc);
static struct dentry *fail_dir;

struct fault_site {
	unsigned long ip;		/* return address in the caller */
	const char *what;
	atomic_long_t calls;
	atomic_long_t failed;
};

static struct fault_site sites[1 << IPOIB_FAULT_SITE_BITS];
static atomic_long_t sites_untracked;	/* the table was full */

/* Found or claimed without a lock: calls come from any context. */
static struct fault_site *site_of(unsigned long ip, const char *what)
{
	unsigned int i = hash_long(ip, IPOIB_FAULT_SITE_BITS), n;

	for (n = 0; n < ARRAY_SIZE(sites); n++) {
		struct fault_site *s = &sites[(i + n) % ARRAY_SIZE(sites)];
		unsigned long cur = READ_ONCE(s->ip);

		if (!cur) {
			cur = cmpxchg(&s->ip, 0, ip);
			if (!cur) {
				/* Pairs with sites_show(): ip before what. */
				smp_store_release(&s->what, what);
			}
		}
		if (!cur || cur == ip)
			return s;
	}
	atomic_long_inc(&sites_untracked);
	return NULL;
}

/*
 * Should this allocation fail?  Called by every wrapper, inlined into the
 * driver's function: the return address names the call site.
 */
bool ipoib_fault_alloc(const char *what, size_t size)
{
	struct fault_site *s = site_of(_RET_IP_, what);
	bool fail = should_fail(&fail_alloc, min_t(size_t, size, INT_MAX));

	if (s) {
		atomic_long_inc(&s->calls);
		if (fail)
			atomic_long_inc(&s->failed);
	}
	return fail;
}

static int sites_show(struct seq_file *m, void *v)
{
	unsigned int i;

	seq_puts(m, "call                       calls   failed site\n");
	for (i = 0; i < ARRAY_SIZE(sites); i++) {
		struct fault_site *s = &sites[i];
		/* A site being claimed shows once it names its call. */
		const char *what = smp_load_acquire(&s->what);

		if (!what)
			continue;
		seq_printf(m, "%-24s %8ld %8ld %pS\n", what,
			   atomic_long_read(&s->calls),
			   atomic_long_read(&s->failed), (void *)s->ip);
	}
	if (atomic_long_read(&sites_untracked))
		seq_printf(m, "# %ld calls from sites beyond the table\n",
			   atomic_long_read(&sites_untracked));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sites);

void ipoib_fault_init(struct dentry *root)
{
	struct dentry *dir;

	dir = fault_create_debugfs_attr("fail_alloc", root, &fail_alloc);
	if (IS_ERR(dir))
		return;
	debugfs_create_file("sites", 0444, dir, NULL, &sites_fops);
	fail_dir = dir;
}

void ipoib_fault_exit(void)
{
	debugfs_remove(fail_dir);
	fail_dir = NULL;
	/* fault_create_debugfs_attr() holds the folder for its messages. */
	dput(fail_alloc.dname);
	fail_alloc.dname = NULL;
}
