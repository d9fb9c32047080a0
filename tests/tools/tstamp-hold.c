// SPDX-License-Identifier: GPL-2.0
/*
 * Hold one socket with SO_TIMESTAMP on, and sleep until killed:
 *
 *   tstamp-hold
 *
 * The test VM's init starts it once.  While any socket asks for receive
 * timestamps the kernel keeps its netstamp static key on, so the pings
 * the cases run (iputils ping asks for timestamps) no longer switch it on
 * and off.  Each switch patches kernel text under the other vCPU's feet,
 * and QEMU's TCG has been seen to run a stale int3 left by that patching:
 * "Oops: int3" in netif_receive_skb_list_internal, a panic that no driver
 * can cause or prevent.
 */
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void)
{
	int one = 1;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof(one))) {
		perror("tstamp-hold");
		return 1;
	}
	for (;;)
		pause();
}
