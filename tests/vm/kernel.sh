# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The one place that decides which kernel the VM boots and builds against.
# Sourced by tests/vm/run and tests/vm/mkinitramfs.
#
# resolve_kernel [DIR] sets:
#   KERNEL_DIR  a kernel dir: DIR/vmlinuz and DIR/lib/modules/KVER/
#               (default: Debian's stock kernel, fetched by fetch-kernel)
#   KVER        the version under DIR/lib/modules/
#   KDIR        the tree to build modules against: DIR/lib/modules/KVER/build
#               when the kernel dir has one (a kernel built from source),
#               else /usr/src/linux-headers-KVER

resolve_kernel() {
	local vm_dir dir mods
	vm_dir=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
	if [ -n "${1:-}" ]; then
		dir=$(readlink -f "$1")
	else
		dir=$("$vm_dir/fetch-kernel") || return 1
	fi
	mods=("$dir"/lib/modules/*/)
	if [ ! -f "$dir/vmlinuz" ] || [ ${#mods[@]} -ne 1 ] || [ ! -d "${mods[0]}" ]; then
		echo "kernel dir $dir: needs vmlinuz and exactly one lib/modules/<ver>/" >&2
		return 1
	fi
	KERNEL_DIR=$dir
	KVER=$(basename "${mods[0]}")
	if [ -d "$dir/lib/modules/$KVER/build" ]; then
		KDIR=$(readlink -f "$dir/lib/modules/$KVER/build")
	else
		KDIR=/usr/src/linux-headers-$KVER
	fi
	export KERNEL_DIR KVER KDIR
}
