#!/bin/sh
# Proves: `dpkg-buildpackage -b` of repstos itself yields packages that work, lintian-clean.
#
# In a copy of the sources (dpkg-buildpackage writes its .debs into the
# parent directory: the copy's parent is a temporary directory, never the
# tree's), `dpkg-buildpackage -b -uc -us`, then:
#   - the three packages are there, each with exactly its files, and
#     `dpkg -x` unpacks them into a temporary root (nothing is installed
#     on this machine);
#   - the plugin is in GCC's plugin directory ($(gcc -print-file-name=plugin)
#     under that root) and its package depends on exactly the gcc-N it was
#     built with; the installed repstos-cc and repstos.pc name that plugin
#     and the multiarch archive;
#   - the unpacked tool runs (`repstos --help`);
#   - a small program is compiled with the unpacked plugin, found by name
#     as GCC finds an installed one (-iplugindir=DIR -fplugin=repstos),
#     with a hand-written site from the unpacked <repstos.h>, linked with
#     the unpacked archive: it has sites, the unpacked `repstos check`
#     passes it, and it runs correctly; the same through the unpacked
#     repstos-cc with its paths moved under the root;
#   - lintian reports no error on the .changes (the .debs and .buildinfo).
. "$(dirname "$0")/lib.sh"
serialize debian

for t in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian; do
	command -v "${t%%:*}" >/dev/null ||
		{ fail "no ${t%%:*} (Debian package ${t#*:}; make deps installs it)"; finish; }
done
[ -f debian/rules ] || { fail "no debian/rules"; finish; }

# The copy, the packages, the unpacked root and the logs, outside the
# tree: the copy's parent, which dpkg-buildpackage writes, is $W.
scratch -o
S=$W/repstos R=$W/root
mkdir -p "$S" "$R" || exit 1

# The sources as they are now, committed or not, without what .gitignore
# ignores (build/ and the outputs).
git ls-files -co --exclude-standard >"$W/files" 2>/dev/null ||
	skip "no git to list the sources with"
while IFS= read -r f; do
	[ -e "$f" ] && echo "$f"
done <"$W/files" | xargs cp --parents -t "$S" || { fail "cannot copy the sources"; finish; }

t=$(now)
if ! (cd "$S" && dpkg-buildpackage -b -uc -us) >"$W/build.log" 2>&1; then
	fail "dpkg-buildpackage -b -uc -us:"; tail -n 15 "$W/build.log" | sed 's/^/    /'
	finish
fi
ok "dpkg-buildpackage -b -uc -us: $(($(now) - t)) s"

# ---- the packages and their files ----------------------------------------
PD=$(gcc -print-file-name=plugin)	# /usr/lib/gcc/<triplet>/<N>/plugin
MA=$(gcc -print-multiarch)
V=$(dpkg-parsechangelog -l "$S/debian/changelog" -S Version)
deb() { echo "$W/${1}_${V}_amd64.deb"; }
expect_files() {	# PACKAGE FILE...: exactly these files (and docs)
	p=$1; shift
	[ -f "$(deb "$p")" ] || { fail "no package $p ($(deb "$p"))"; return; }
	got=$(dpkg-deb -c "$(deb "$p")" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' |
		grep -v "^/usr/share/doc/$p/" | sort)
	want=$(printf '%s\n' "$@" | sort)
	[ "$got" = "$want" ] && ok "$p: $(echo $@)" ||
		fail "$p holds $(echo $got), not $(echo $want)"
	dpkg -x "$(deb "$p")" "$R" || fail "dpkg -x $(deb "$p")"
}
expect_files repstos /usr/bin/repstos /usr/bin/repstos-cc /usr/bin/repstos-c++ \
	/usr/share/man/man1/repstos.1.gz /usr/share/man/man1/repstos-cc.1.gz \
	/usr/share/man/man1/repstos-c++.1.gz
expect_files repstos-gcc-plugin "$PD/repstos.so"
expect_files librepstos0 "/usr/lib/$MA/librepstos.so.0" \
	/usr/share/lintian/overrides/librepstos0
expect_files librepstos-dev /usr/include/repstos.h /usr/include/repstos_site.h \
	"/usr/lib/$MA/librepstos.a" "/usr/lib/$MA/librepstos-full.a" \
	"/usr/lib/$MA/pkgconfig/repstos.pc" \
	"/usr/lib/$MA/librepstos_nonshared.a" "/usr/lib/$MA/librepstos-shared.so" \
	"/usr/lib/$MA/pkgconfig/repstos-shared.pc" \
	/usr/share/man/man7/repstos.7.gz

gccpkg=gcc-$(gcc -dumpversion | cut -d. -f1)
gccver=$(dpkg-query -W -f='${Version}' "$gccpkg" 2>/dev/null)
dep=$(dpkg-deb -f "$(deb repstos-gcc-plugin)" Depends 2>/dev/null)
case ", $dep," in
*", $gccpkg (= $gccver),"*) ok "repstos-gcc-plugin depends on $gccpkg (= $gccver), the GCC it was built for" ;;
*) fail "repstos-gcc-plugin depends on '$dep', not on $gccpkg (= $gccver)" ;;
esac

# What the installed files name: the installed paths, not the build's.
for f in usr/bin/repstos-cc "usr/lib/$MA/pkgconfig/repstos.pc"; do
	[ -f "$R/$f" ] || continue
	grep -q "$PD/repstos.so" "$R/$f" && grep -q "/usr/lib/$MA" "$R/$f" ||
		fail "/$f does not name $PD/repstos.so and /usr/lib/$MA"
	grep -q -e "$S" -e "@[A-Z]*@" "$R/$f" && fail "/$f names the build tree or keeps an @WORD@"
done

# ---- the unpacked files at work --------------------------------------------
RB=$R/usr/bin/repstos
TOOL=$RB
if "$RB" --help >"$W/help.out" 2>&1 && grep -qi usage "$W/help.out"; then
	ok "unpacked repstos --help runs"
else
	fail "unpacked repstos --help: $(head -n 3 "$W/help.out")"
fi

# $1: what; $2: the program built.  Sites, a clean check, correct output.
works() {
	n=$(sites "$2")
	[ "$n" -gt 0 ] || { fail "$1: no sites in $2"; return; }
	"$RB" check "$2" >"$W/check.out" 2>&1 ||
		{ fail "$1: repstos check: $(head -n 3 "$W/check.out")"; return; }
	got=$("$2" 2>&1)
	[ "$got" = "$want" ] || { fail "$1: $2 printed $(echo "$got" | head -n 3)"; return; }
	ok "$1: $n sites, repstos check clean, correct"
}

P=$W/proj
mkdir -p "$P" && write_project "$P"
if (cd "$P" && gcc -O2 -DHAND -I"$R/usr/include" -iplugindir="$R$PD" -fplugin=repstos -c main.c &&
    gcc -O2 -iplugindir="$R$PD" -fplugin=repstos -c clear.c &&
    gcc main.o clear.o -o prog "$R/usr/lib/$MA/librepstos.a") >"$W/gcc.log" 2>&1; then
	works "gcc -fplugin=repstos from $PD, <repstos.h>, librepstos.a (unpacked)" "$P/prog"
else
	fail "build with the unpacked plugin and archive: $(head -n 5 "$W/gcc.log")"
fi

# The unpacked repstos-cc with its two paths moved under the root.
sed -e "s|'$PD/|'$R$PD/|" -e "s|'/usr/lib/$MA/|'$R/usr/lib/$MA/|" \
	"$R/usr/bin/repstos-cc" >"$W/repstos-cc" && chmod +x "$W/repstos-cc"
rm -f "$P"/*.o "$P/prog"
if (cd "$P" && "$W/repstos-cc" -O2 -c clear.c && "$W/repstos-cc" -O2 main.c clear.o -o prog) \
		>"$W/cc.log" 2>&1; then
	works "unpacked repstos-cc" "$P/prog"
else
	fail "build with the unpacked repstos-cc: $(head -n 5 "$W/cc.log")"
fi
# ... and with the unpacked shared runtime (librepstos0), found through
# the run path repstos-cc adds for a directory outside the loader's own.
rm -f "$P/prog"
if (cd "$P" && REPSTOS_RUNTIME=shared "$W/repstos-cc" -O2 main.c clear.o -o prog) \
		>"$W/cc-shared.log" 2>&1 &&
   readelf -d "$P/prog" | grep -q 'NEEDED.*librepstos\.so\.0'; then
	works "unpacked repstos-cc, REPSTOS_RUNTIME=shared" "$P/prog"
else
	fail "build with the unpacked repstos-cc and shared runtime: $(head -n 5 "$W/cc-shared.log")"
fi

# ---- lintian -------------------------------------------------------------------
t=$(now)
lintian --pedantic -I "$W/repstos_${V}_amd64.changes" >"$W/lintian.out" 2>&1
e=$(grep -c '^E: ' "$W/lintian.out") w=$(grep -c '^W: ' "$W/lintian.out")
if [ "$e" -eq 0 ]; then
	ok "lintian: no errors, $w warnings ($(($(now) - t)) s)"
else
	fail "lintian: $e errors:"; grep '^E: ' "$W/lintian.out" | head -n 10 | sed 's/^/    /'
fi
grep '^[WI]: ' "$W/lintian.out" | sed 's/^/note: lintian: /'
finish
