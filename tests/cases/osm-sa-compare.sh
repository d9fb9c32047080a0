#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The built-in SA checked against OpenSM's: the same fabric (two HCAs,
# 4096-byte ports, the default partition), the same drivers on it (ours
# on sib0, the in-tree one on sib1, IPv4 and IPv6 up), and the same
# saquery questions from sib0 port 1, under each SM in turn:
# ClassPortInfo; PathRecords (the table, Gets by GIDs both ways, by GIDs
# and P_Key, and a P_Key the ports do not share); MCMemberRecords (the
# table, and each group the drivers joined by its MGID).  The answers
# must agree field by field.  OpenSM runs with subnet_timeout 14: packet
# lifetimes are an SM's policy, and 14 is the built-in SM's.  What may
# differ, and why:
#   - LIDs and MLIDs are each SM's to choose: a LID is compared by whose
#     port it is, an MLID by being one.
#   - CapabilityMask and CapabilityMask2: OpenSM offers more (Notice,
#     MultiPath, ...).  Ours must claim nothing OpenSM does not, and both
#     must claim UD multicast and send-only full members (IPoIB's).
#   - The Scope of a group a join created: OpenSM keeps the joiner's,
#     which neither driver sends (0); ours reports the MGID's own scope.
#     Broadcast groups, which both SMs create, are compared whole.
#
# timeout: 400
set -eu
# shellcheck source=SCRIPTDIR/../lib/common.sh
. "$TESTS_LIB/common.sh"
# shellcheck source=SCRIPTDIR/../lib/ib.sh
. "$TESTS_LIB/ib.sh"

FROM=(-C sib0 -P 1)
FABRIC=(devices=2 ports=1 mtu=4096)
BCAST=ff12:401b:ffff::ffff:ffff
# The groups both drivers join with these addresses: broadcast, IPv4
# all-hosts, IPv6 all-nodes and the solicited-node groups of fd40::1,
# fd40::2 and the two link-local addresses (from the port GUIDs).
MGIDS=("$BCAST" ff12:401b:ffff::1 ff12:601b:ffff::1
	ff12:601b:ffff::1:ff00:1 ff12:601b:ffff::1:ff00:2
	ff12:601b:ffff::1:ff00:101 ff12:601b:ffff::1:ff00:201)
SA_CAP_UD_MULTICAST=$((1 << 9))
SA_CAP2_SENDONLY_FULL=$((1 << 12))

gid_of() { cat "/sys/class/infiniband/$1/ports/1/gids/0"; }
lid_of() { echo $(($(cat "/sys/class/infiniband/$1/ports/1/lid"))); }
# The switch's management port (port 0), one hop away by directed route.
switch_lid() { smpquery "${FROM[@]}" portinfo -D 0,1 0 | sed -n 's/^Lid:\.*//p'; }
SW_GID=fe80:0000:0000:0000:5eb1:b0ff:0000:0001

# normalize: saquery's records on stdin, one line each ("Type | key=value
# | ..."), sorted, with LIDs named, MLIDs and the Scope of joined groups
# as said above, and only the expected groups.
normalize() {
	awk -v lids="$(lid_of sib0)=sib0 $(lid_of sib1)=sib1 $(switch_lid)=switch" \
	    -v gids="$(gid_of sib0) $(gid_of sib1) $SW_GID" \
	    -v groups="${MGIDS[*]}" -v bcast="$BCAST" '
	BEGIN {
		n = split(lids, l, " ")
		for (i = 1; i <= n; i++) { split(l[i], kv, "="); lid[kv[1]] = kv[2] }
		n = split(gids, g, " ")
		for (i = 1; i <= n; i++) hca[g[i]] = 1
		n = split(groups, g, " ")
		for (i = 1; i <= n; i++) want[g[i]] = 1
	}
	# full: a GID as saquery prints it (::) in the form of sysfs.
	function hex4(x) {
		while (length(x) < 4)
			x = "0" x
		return tolower(x)
	}
	function full(a,   at, head, tail, nh, nt, hp, tp, i, out) {
		at = index(a, "::")
		head = at ? substr(a, 1, at - 1) : a
		tail = at ? substr(a, at + 2) : ""
		nh = head == "" ? 0 : split(head, hp, ":")
		nt = tail == "" ? 0 : split(tail, tp, ":")
		out = ""
		for (i = 1; i <= nh; i++)
			out = out ":" hex4(hp[i])
		for (i = nh + nt; i < 8; i++)
			out = out ":0000"
		for (i = 1; i <= nt; i++)
			out = out ":" hex4(tp[i])
		return substr(out, 2)
	}
	function flush(   i, out) {
		if (type == "")
			return
		if (type ~ /^PathRecord/ &&
		    !(full(f["sgid"]) in hca && full(f["dgid"]) in hca))
			skipped++
		else if (type ~ /^MCMember/ && !(mgid in want))
			skipped++
		else {
			out = type
			for (i = 1; i <= nk; i++)
				out = out " | " k[i] "=" f[k[i]]
			print out
		}
		type = ""
	}
	# num: a decimal or 0x-hex field as a number (busybox awk).
	function num(v,   i, r) {
		if (v !~ /^0x/)
			return v + 0
		v = tolower(substr(v, 3))
		r = 0
		for (i = 1; i <= length(v); i++)
			r = r * 16 + index("0123456789abcdef", substr(v, i, 1)) - 1
		return r
	}
	function named(v) {
		v = num(v)
		return v in lid ? lid[v] : "LID " v
	}
	/(dump|ClassPortInfo):$/ {
		flush()
		type = $0
		sub(/^[ \t]+/, "", type)
		nk = 0; mgid = ""; delete f
		next
	}
	type != "" && /\.\.\./ {
		line = $0
		sub(/^[ \t]+/, "", line)
		key = line; sub(/\.\.+.*/, "", key)
		val = line; sub(/^[^.]*\.\.+/, "", val)
		if (key ~ /^(dlid|slid)$/)
			val = named(val)
		if (tolower(key) == "mlid" && num(val) >= 49152)
			val = "(a multicast LID)"
		if (key == "MGID")
			mgid = val
		if (key == "Scope" && mgid != bcast)
			val = "(not compared)"
		k[++nk] = key
		f[key] = val
	}
	END {
		flush()
		if (skipped)
			printf "(%d records of other ports or groups not compared)\n", skipped >"/dev/stderr"
	}' | sort
}

# ask SM: put the answers of saquery under SM's name in ./SM/.
ask() {
	local dir=$1 g0 g1 m
	g0=$(gid_of sib0)
	g1=$(gid_of sib1)
	mkdir -p "$dir"
	saquery "${FROM[@]}" -c >"$dir/cpi.raw"
	saquery "${FROM[@]}" -p | normalize >"$dir/path-table"
	saquery "${FROM[@]}" --sgid-to-dgid "$g0-$g1" | normalize >"$dir/path-0-1"
	saquery "${FROM[@]}" --sgid-to-dgid "$g1-$g0" | normalize >"$dir/path-1-0"
	saquery "${FROM[@]}" PR --sgid "$g0" --dgid "$g1" --pkey 0xffff |
		normalize >"$dir/path-pkey"
	{ saquery "${FROM[@]}" PR --sgid "$g0" --dgid "$g1" --pkey 0x8005 2>&1 || true; } |
		normalize >"$dir/path-foreign-pkey"
	saquery "${FROM[@]}" -g | normalize >"$dir/group-table"
	for m in "${MGIDS[@]}"; do
		saquery "${FROM[@]}" MCMR --mgid "$m" | normalize
	done >"$dir/group-gets"
	# The capability masks are checked apart, the rest field by field.
	sed -n 's/^[[:space:]]*Capability mask\.\.*//p' "$dir/cpi.raw" >"$dir/cap"
	sed -n 's/^[[:space:]]*Capability mask 2\.*//p' "$dir/cpi.raw" >"$dir/cap2"
	grep -v 'Capability mask' "$dir/cpi.raw" | normalize >"$dir/cpi"
}

# shellcheck disable=SC2317 # called through wait_for
groups_joined() {
	local table m
	table=$(saquery "${FROM[@]}" -g) || return 1
	for m in "${MGIDS[@]}"; do
		grep -q "MGID\.*$m\$" <<<"$table" || return 1
	done
}

# run SM: the fabric under SM, both drivers on it, the questions asked,
# and everything taken down again.
run() {
	step "$1: the fabric, both drivers, IPv4 and IPv6"
	if [ "$1" = builtin ]; then
		SIB_SM=builtin fabric_up "${FABRIC[@]}"
		modprobe ib_umad
	else
		modprobe sib sm=external "${FABRIC[@]}"
		fabric_partitions "${FABRIC[@]}" >partitions.conf
		opensm_up --set "subnet_timeout 14" partitions.conf
	fi
	alt_up
	intree_up
	a=$(wait_iface ipoib_alt sib0 1)
	b=$(wait_iface ib_ipoib sib1 1)
	ib_host h1 "$a" 10.40.0.1/24 fd40::1/64
	ib_host h2 "$b" 10.40.0.2/24 fd40::2/64
	wait_carrier h1 "$a"
	wait_carrier h2 "$b"
	assert on h1 ping -c 2 -i 0.2 -W 2 10.40.0.2
	wait_for 30 groups_joined || fail "$1: the drivers' groups are not all in the SA"

	step "$1: saquery's answers"
	ask "$1"
	head -n 100 "$1"/cpi "$1"/path-* "$1"/group-*
	echo "CapabilityMask $(cat "$1/cap"), CapabilityMask2 $(cat "$1/cap2")"

	ip netns del h1
	ip netns del h2
	rmmod ipoib_alt ib_ipoib
	[ "$1" = builtin ] || opensm_down
	rmmod ib_umad sib
}

run builtin
run opensm

step "the built-in SA's answers against OpenSM's"
differ=''
for q in cpi path-table path-0-1 path-1-0 path-pkey path-foreign-pkey group-table group-gets; do
	if diff -u "opensm/$q" "builtin/$q"; then
		echo "$q: the same ($(grep -c '|' "builtin/$q") records)"
	else
		differ+=" $q"
	fi
done
[ -z "$differ" ] || fail "the built-in SA answers differently from OpenSM:$differ"
assert_ge "$(grep -c '|' builtin/path-table)" 9 "paths compared (3 end ports)"
assert_ge "$(grep -c '|' builtin/group-gets)" "${#MGIDS[@]}" "groups compared"

ours=$(($(cat builtin/cap))) osm=$(($(cat opensm/cap)))
ours2=$(($(cat builtin/cap2))) osm2=$(($(cat opensm/cap2)))
printf 'CapabilityMask: ours 0x%04x, OpenSM 0x%04x; CapabilityMask2: ours 0x%x, OpenSM 0x%x\n' \
	"$ours" "$osm" "$ours2" "$osm2"
assert_eq $((ours & ~osm)) 0 "CapabilityMask bits only the built-in SA claims"
assert_eq $((ours2 & ~osm2)) 0 "CapabilityMask2 bits only the built-in SA claims"
for m in "$ours" "$osm"; do
	assert_eq $((m & SA_CAP_UD_MULTICAST)) "$SA_CAP_UD_MULTICAST" "UD multicast claimed"
done
for m in "$ours2" "$osm2"; do
	assert_eq $((m & SA_CAP2_SENDONLY_FULL)) "$SA_CAP2_SENDONLY_FULL" "send-only full members claimed"
done
pass
