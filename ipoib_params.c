// SPDX-License-Identifier: GPL-2.0
/*
 * The module's parameters and its SA client: read by every layer, so
 * they live at the bottom.  ipoib_main.c checks the parameters at load
 * and registers the client.
 */
#include <linux/module.h>
#include "ipoib.h"

unsigned int ipoib_sendq_size = 256;
module_param_named(send_queue_size, ipoib_sendq_size, uint, 0444);
MODULE_PARM_DESC(send_queue_size,
		 "Send ring entries per interface, 64-8192, rounded up to a power of two (default 256)");

unsigned int ipoib_recvq_size = 512;
module_param_named(recv_queue_size, ipoib_recvq_size, uint, 0444);
MODULE_PARM_DESC(recv_queue_size,
		 "Receive ring entries per interface, 64-8192, rounded up to a power of two (default 512)");

unsigned int ipoib_send_queues = 1;
module_param_named(send_queues, ipoib_send_queues, uint, 0444);
MODULE_PARM_DESC(send_queues,
		 "TX queues an interface starts with, each with a UD send QP of its own, 1-8, at most one per CPU; more than 1 needs an HCA that takes IB_QP_CREATE_SOURCE_QPN (default 1)");

int ipoib_debug_level;
module_param_named(debug_level, ipoib_debug_level, int, 0644);
MODULE_PARM_DESC(debug_level, "Debug messages (dynamic debug) when > 0");

int ipoib_mcast_debug_level;
module_param_named(mcast_debug_level, ipoib_mcast_debug_level, int, 0644);
MODULE_PARM_DESC(mcast_debug_level,
		 "Multicast debug messages (dynamic debug) when > 0");

struct ib_sa_client ipoib_sa_client;
