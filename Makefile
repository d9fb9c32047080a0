# SPDX-License-Identifier: GPL-2.0
#
# Top-level Makefile: builds the IPoIB driver and the test modules out of
# tree against Debian's kernel headers, and runs the test suites.
#
#   make                 build every module for $(KVER)
#   make check           lint, unit tests and the VM suite; ends "N passed, N failed"
#   make check-6.12      builds, DKMS and the VM suite on Debian 12's 6.12 kernel
#   make check-rt        the same on its PREEMPT_RT flavour (not in CI)
#   make check-harsh     the VM suite on the harsh fabric (CI: a subset)
#   make demo            two hosts on the software fabric, our driver at work
#   make install         ib_ipoib into /lib/modules/$(KVER)/updates, over the in-tree one
#   make dkms-install    the same through DKMS, rebuilt for every new kernel
#   make check-debug     VM cases on the debug kernel (KASAN, lockdep, kmemleak)
#   make bench           ours against the in-tree driver, side by side
#   make soak            fault campaigns and fuzzing at full counts (not in make check)
#
# KVER defaults to the version Debian's linux-image-amd64 points at; KDIR to
# its headers. MODNAME renames our driver (module, rtnl kind, debugfs dir).

top := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

KVER ?= $(shell $(top)/tests/vm/kver)
KDIR ?= /usr/src/linux-headers-$(KVER)
BUILD ?= $(top)/build/$(KVER)
KO_DIR ?= $(BUILD)/ko

# Each module is built in a directory of its own under $(BUILD), made of
# symlinks to the sources, so that one tree yields several variants: our
# driver as ib_ipoib, and as ipoib_alt to run beside the in-tree one.
TEST_MODULES := sib cmprobe rdmaprobe sibperf
ALT_NAME := ipoib_alt
VARIANTS ?= ipoib $(ALT_NAME) $(TEST_MODULES)

.PHONY: all modules vm-modules clean check check-6.12 check-rt check-harsh unit lint vm demo \
	debug-kernel check-debug bench soak \
	$(addprefix mod-,$(VARIANTS))

all: modules

modules: $(addprefix mod-,$(VARIANTS))
	@mkdir -p $(KO_DIR)
	@for d in $(VARIANTS); do cp $(BUILD)/$$d/*.ko $(KO_DIR)/; done

# Symlink source directories (the module's, then any other) into a build
# directory, with the API probes every Kbuild includes, and run Kbuild there.
define build_module
	@mkdir -p $(BUILD)/$(1)
	@for f in $(foreach d,$(2),$(d)/*.c $(d)/*.h $(d)/Kbuild) $(top)/Kbuild.compat; do \
		[ -e "$$f" ] && ln -sf "$$f" $(BUILD)/$(1)/; done; true
	+$(MAKE) -C $(KDIR) M=$(BUILD)/$(1) $(3) modules
endef

# Test modules that need it share a compat header and probes (tests/compat/).
mod-sib:
	$(call build_module,sib,$(top)/tests/sib $(top)/tests/compat,)

mod-cmprobe:
	$(call build_module,cmprobe,$(top)/tests/cmprobe $(top)/tests/compat,)

mod-rdmaprobe:
	$(call build_module,rdmaprobe,$(top)/tests/rdmaprobe $(top)/tests/compat,)

mod-sibperf:
	$(call build_module,sibperf,$(top)/tests/sibperf,)

mod-ipoib:
	$(call build_module,ipoib,$(top),)

mod-$(ALT_NAME):
	$(call build_module,$(ALT_NAME),$(top),MODNAME=$(ALT_NAME))

vm-modules: modules

# The two commands a newcomer needs (see README.md).
check:
	$(top)/tests/check

# The other kernels we build and test on (tests/vm/kver names them); CASES
# narrows the VM cases.
check-6.12:
	$(top)/tests/check --kernel-version 6.12 $(CASES)

check-rt:
	$(top)/tests/check --kernel-version 6.12-rt $(CASES)

# The cases under Debian's OpenSM instead of the built-in SM (--sm opensm);
# CASES narrows them (default: every bed-, ours-, interop- and cm- case).
OSM_CASES = $(wildcard $(addprefix $(top)/tests/cases/,bed-*.sh ours-*.sh interop-*.sh cm-*.sh))
check-opensm:
	$(top)/tests/vm/run --sm opensm $(or $(CASES),$(OSM_CASES))

# Every case on the harsh fabric (tests/vm/fabric-harsh: asynchronous
# execution, completion interrupts, bounce buffers, a slow SA); CASES
# narrows them.
check-harsh:
	$(top)/tests/vm/run --fabric harsh $(or $(CASES),$(top)/tests/cases/*.sh)

demo:
	$(top)/tests/demo/run

# Ours against the in-tree driver; reported, never a test (tests/bench/).
# The headline at equal rings (the in-tree driver's defaults), then ours at
# its own defaults in the cases that rings change.
RING_CASES = $(addprefix $(top)/tests/bench/cases/,connected.sh datagram.sh datagram4k.sh memory.sh)
bench:
	$(top)/tests/bench/run
	$(top)/tests/bench/run --own-rings --rounds 3 $(RING_CASES)

# Campaigns that repeat faults and fuzz the wire (tests/soak/run).
soak:
	$(top)/tests/soak/run

lint:
	$(top)/tests/lint/run $(KVER)

unit:
	$(MAKE) -C $(top)/tests/unit check

vm:
	$(top)/tests/vm/run $(top)/tests/cases/*.sh

# The debug-kernel tier (tests/debug-kernel/README.md): build the kernel
# when it is not cached, then run CASES (default: every case, and the
# allocation-failure campaign at one attempt per part) on it.
debug-kernel:
	$(top)/tests/debug-kernel/build

check-debug:
	$(top)/tests/vm/run --debug-kernel --append "soak.faults=1 soak.fault_hcas=1" \
		$(or $(CASES),$(top)/tests/cases/*.sh $(top)/tests/soak/allocfail.sh)

# modprobe looks in updates/ before kernel/: ours wins over the in-tree one.
# INSTALL_MOD_PATH=DIR installs under DIR instead of /.
DEPMOD_ROOT := $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH))
install: mod-ipoib
	$(MAKE) -C $(KDIR) M=$(BUILD)/ipoib INSTALL_MOD_DIR=updates modules_install
	depmod -a $(DEPMOD_ROOT) $(KVER)

uninstall:
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/updates/ib_ipoib.ko*
	depmod -a $(DEPMOD_ROOT) $(KVER)

# The driver's sources, as DKMS builds them, in DKMS_SRC.
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(top)/dkms.conf)
DKMS_SRC ?= /usr/src/ib_ipoib-$(DKMS_VERSION)
DKMS_FILES := dkms.conf Kbuild Kbuild.compat LICENSE $(notdir $(wildcard $(top)/*.c $(top)/*.h))

dkms-src:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cd $(top) && cp $(DKMS_FILES) $(DKMS_SRC)/

dkms-install: dkms-src
	-dkms remove -m ib_ipoib -v $(DKMS_VERSION) --all >/dev/null 2>&1
	dkms add -m ib_ipoib -v $(DKMS_VERSION)
	dkms install -m ib_ipoib -v $(DKMS_VERSION) -k $(KVER)

dkms-uninstall:
	dkms remove -m ib_ipoib -v $(DKMS_VERSION) --all
	rm -rf $(DKMS_SRC)

clean:
	rm -rf $(top)/build
	$(MAKE) -C $(top)/tests/unit clean
