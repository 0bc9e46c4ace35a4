#!/bin/sh
# Proves: touching a runtime header rebuilds exactly what includes it.
#
# In a copy of the sources (its own build/, so the tree's build and the
# tests running on it are left alone):
#  - `make -j2 build-tests` from clean builds everything the tests run,
#    and a second make finds nothing to do;
#  - for each include/*.h, runtime/*/*.h and patcher/tune.h: touch it,
#    make, and what make rebuilt must be
#    exactly the expected set: every compile whose sources include the
#    header, directly or through other headers, and every archive and
#    link that takes one of those outputs, and so on down (make -n for
#    all but one header: see below);
#  - the tool runs no runtime start-up (REPSTOS_DEBUG=1 repstos --help
#    prints no report, its binary has no constructor of the runtime's),
#    while a program with sites still does.
#
# The expected set is not read from the .d files the build writes (those
# are what is tested): the commands of the clean build give each output's
# sources, include directories and inputs, and the sources' #include
# lines are followed by hand, resolved as the compiler does (the
# including file's folder for "", then each -I), within the tree.
. "$(dirname "$0")/../lib.sh"

# The outer make's flags (-j, its jobserver) are not this build's.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL GNUMAKEFLAGS
scratch
src=$W/src
mkdir -p "$src" || exit 1

# The sources as they are now, committed or not (but not what .gitignore
# ignores: build/ and the outputs).
if ! git -C "$top" ls-files -co --exclude-standard >"$W/files" 2>/dev/null; then
	skip "no git to list the sources with"
fi
while IFS= read -r f; do
	[ -e "$top/$f" ] && echo "$f"
done <"$W/files" | (cd "$top" && xargs cp --parents -t "$src") ||
	{ fail "cannot copy the sources"; finish; }
cd "$src" || exit 1

# commands < MAKE-LOG: the compiler, ar and objcopy commands make ran,
# one a line (continuations joined) as "OUT KIND VALUE" lines: KIND is in
# (an input file), src (a source), idir, ldir or lib.  objcopy's are IN
# OUT after its options (the runtime's startup.o, runtime/runtime.mk).
commands() {
	awk '
	{ line = line $0 }
	/\\$/ { sub(/\\$/, "", line); next }
	{ cmd = line; line = ""
	  n = split(cmd, t, /[ \t]+/)
	  i = t[1] == "" ? 2 : 1
	  if (t[i] == "ar") {
		for (j = i + 3; j <= n; j++) print t[i + 2], "in", t[j]
		next
	  }
	  if (t[i] ~ /(^|\/)objcopy$/) {
		k = 0
		for (j = i + 1; j <= n; j++) if (t[j] !~ /^[-@]/ && t[j] != "") f[++k] = t[j]
		if (k == 2) print f[2], "in", f[1]
		next
	  }
	  if (t[i] !~ /(^|\/)(gcc|g\+\+|cc|c\+\+|clang|clang-[0-9]+|clang\+\+|clang\+\+-[0-9]+)$/) next
	  out = ""
	  for (j = i + 1; j <= n; j++) if (t[j] == "-o") out = t[j + 1]
	  if (out == "") next
	  for (j = i + 1; j <= n; j++) {
		a = t[j]
		if (a == "-o") { j++; continue }
		if (a ~ /^-I./) print out, "idir", substr(a, 3)
		else if (a ~ /^-L./) print out, "ldir", substr(a, 3)
		else if (a ~ /^-l./) print out, "lib", substr(a, 3)
		else if (a ~ /^-fplugin=/) print out, "in", substr(a, 10)
		else if (a ~ /\.(c|S|cc|cpp)$/ && a !~ /^-/) print out, "src", a
		else if (a !~ /^-/ && a != "") print out, "in", a
	  }
	}'
}

# outputs < MAKE-LOG: what the commands made, sorted.
outputs() { commands | awk '{ print $1 }' | sort -u; }

# analyse < COMMANDS: "OUT FILE" for every tree file a compile of OUT
# reads (its sources and every header they reach), to $W/reads; "OUT IN"
# for every input file of a command, to $W/takes.
analyse() {
	awk -v reads="$W/reads" -v takes="$W/takes" '
	function exists(p,   x, r) {
		if (p ~ /^\//) return 0		# outside the tree: not followed
		r = (getline x < p); close(p)
		return r >= 0
	}
	function norm(p,   n, a, o, k, i) {
		n = split(p, a, "/"); k = 0
		for (i = 1; i <= n; i++) {
			if (a[i] == "." || a[i] == "") continue
			if (a[i] == ".." && k > 0 && o[k] != "..") { k--; continue }
			o[++k] = a[i]
		}
		p = o[1]; for (i = 2; i <= k; i++) p = p "/" o[i]
		return p
	}
	function dir(p) { return p ~ /\// ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "." }
	$2 == "src" { srcs[$1] = srcs[$1] " " $3; outs[$1] = 1 }
	$2 == "idir" { idirs[$1] = idirs[$1] " " $3 }
	$2 == "ldir" { ldirs[$1] = ldirs[$1] " " $3 }
	$2 == "lib" { libs[$1] = libs[$1] " " $3 }
	$2 == "in" { if (exists($3)) print $1, norm($3) > takes }
	END {
		for (o in ldirs) {
			nl = split(libs[o], l, " "); nd = split(ldirs[o], dd, " ")
			for (i = 1; i <= nl; i++) for (j = 1; j <= nd; j++) {
				p = dd[j] "/lib" l[i] ".so"
				if (exists(p)) print o, norm(p) > takes
			}
		}
		for (o in outs) {
			delete seen; nq = 0
			ns = split(srcs[o], s, " ")
			for (i = 1; i <= ns; i++) { q[++nq] = norm(s[i]); seen[q[nq]] = 1 }
			ni = split(idirs[o], inc, " ")
			asm = srcs[o] ~ /\.S( |$)/
			for (h = 1; h <= nq; h++) {
				f = q[h]; print o, f > reads
				# The one condition followed: __ASSEMBLER__ (headers
				# shared with assembler keep their C apart); any
				# other #if counts both ways, as if taken.
				depth = 0; off = 0
				while ((getline ln < f) > 0) {
					if (ln ~ /^[ \t]*#[ \t]*if/) {
						depth++
						asmif[depth] = ln ~ /__ASSEMBLER__/ && ln ~ /^[ \t]*#[ \t]*if(n?def|[ \t]+!?[ \t]*defined)/
						skip[depth] = asmif[depth] && ((ln ~ /ifndef|!/) == asm)
						continue
					}
					if (ln ~ /^[ \t]*#[ \t]*else/ && depth && asmif[depth]) {
						skip[depth] = !skip[depth]; continue
					}
					if (ln ~ /^[ \t]*#[ \t]*endif/) { if (depth) depth--; continue }
					if (ln !~ /^[ \t]*#[ \t]*include[ \t]*["<]/) continue
					for (k = 1; k <= depth && !skip[k]; k++) ;
					if (k <= depth) continue
					quoted = ln ~ /include[ \t]*"/
					name = ln; sub(/^[^"<]*["<]/, "", name); sub(/[">].*$/, "", name)
					cand = ""
					if (quoted && exists(dir(f) "/" name)) cand = dir(f) "/" name
					for (j = 1; cand == "" && j <= ni; j++)
						if (exists(inc[j] "/" name)) cand = inc[j] "/" name
					if (cand == "") continue	# a system header
					cand = norm(cand)
					if (!(cand in seen)) { seen[cand] = 1; q[++nq] = cand }
				}
				close(f)
			}
		}
	}'
}

# expected HEADER: what a make after touching HEADER must rebuild: the
# outputs that read it, and everything that takes those, to the end.
expected() {
	awk -v h="$1" '
	FILENAME == ARGV[1] { if ($2 == h) hit[$1] = 1; next }
	{ takes[NR] = $1 " " $2 }
	END {
		do {
			more = 0
			for (k in takes) {
				split(takes[k], e, " ")
				if ((e[2] in hit) && !(e[1] in hit)) { hit[e[1]] = 1; more = 1 }
			}
		} while (more)
		for (o in hit) print o
	}' "$W/reads" "$W/takes" | sort -u
}

# ---- from clean, two jobs ------------------------------------------------
if ! nice make -j2 build-tests >"$W/clean.log" 2>&1; then
	fail "make -j2 build-tests from clean:"
	tail -n 20 "$W/clean.log" | sed 's/^/    /'
	finish
fi
ok "make -j2 build-tests from clean: $(outputs <"$W/clean.log" | wc -l) outputs"
make -q build-tests && ok "then make has nothing left to do" ||
	fail "after make -j2 from clean, make would still do: $(make -n build-tests | head -n 5)"

commands <"$W/clean.log" | analyse
[ -s "$W/reads" ] && [ -s "$W/takes" ] ||
	{ fail "no compile commands found in the clean build's log"; finish; }

# ---- each runtime header -------------------------------------------------
# Sub-second file times (ext4, tmpfs) tell a header touched now from the
# objects built a moment ago; with whole seconds, wait one out first.
case $(stat -c %y runtime/librepstos.a) in
*.000000000*) tick="sleep 1" ;;
*) tick=: ;;
esac
# One header is rebuilt for real (tune.h, which the tool's main.o once
# missed); for the others `make -n` says what make would run, from the
# same .d files and times, at a fraction of the time (repstos_site.h
# alone rebuilds nearly everything).
for h in include/*.h runtime/*/*.h patcher/tune.h; do
	want=$(expected "$h")
	$tick
	touch "$h"
	case $h in
	patcher/tune.h) how="make" ;;
	*) how="make -n" ;;
	esac
	if ! nice $how -j2 build-tests >"$W/touch.log" 2>&1; then
		fail "touch $h; $how: failed"
		tail -n 10 "$W/touch.log" | sed 's/^/    /'
		continue
	fi
	got=$(outputs <"$W/touch.log")
	# Older than every output again: the next header's round sees only
	# its own.
	touch -d @0 "$h"
	if [ "$got" = "$want" ]; then
		ok "touch $h; $how: $(echo "$want" | grep -c .) outputs, those that read it or take one that does"
	else
		fail "touch $h; $how: what make ran (<) is not what reads it (>):"
		echo "$got" >"$W/got"
		echo "$want" >"$W/want"
		diff "$W/got" "$W/want" | grep '^[<>]' | head -n 20 | sed 's/^/    /'
	fi
done

# ---- the tool runs no start-up of the runtime's --------------------------
REPSTOS_DEBUG=1 patcher/repstos --help >"$W/help.out" 2>"$W/help.err"
if [ -s "$W/help.err" ] || [ ! -s "$W/help.out" ]; then
	fail "REPSTOS_DEBUG=1 repstos --help: said on stderr: $(head -n 3 "$W/help.err")"
else
	ok "REPSTOS_DEBUG=1 repstos --help prints no runtime report"
fi
nm patcher/repstos | grep -qw repstos_init &&
	fail "the tool has the runtime's constructor (repstos_init)" ||
	ok "the tool has no runtime constructor"
# ... and a module with sites still pulls the start-up in.
REPSTOS_DEBUG=1 build/tests/runtime/sites quick 2>&1 >/dev/null |
	grep -q '^repstos: .* sites: ' &&
	ok "a program with sites still runs the start-up" ||
	fail "a program with sites runs no start-up (REPSTOS_DEBUG=1 says nothing)"
finish
