#!/usr/bin/env python3
# refs.py - prints each reference in the tree's code, manual pages and
# folder READMEs that names a path that is not there or a function in a
# file that does not define it; tests/build/refs.sh runs it.  Reads the files `git ls-files` lists
# (or, when that fails, every file under the top); prints one line per
# stale reference, "FILE:LINE: WHAT", and a last line "checked N paths,
# N names".
#
# What it reads as a reference (the forms the tree's comments use):
#   - a path that starts with one of the tree's own top folders
#     (runtime/policy/sitecode.c, tests/plugin/zlib.sh);
#   - "(FILE, NAME", "FILE's NAME" and "NAME() in FILE", where FILE is
#     a C, header or assembler file (a path, or a name that the tree
#     has once or more: the one nearest the referring file) and NAME is
#     written with "()" or has an underscore (an English word after the
#     comma is no name).
# What a file defines: a function, macro, variable, type or assembler
# label or macro whose definition starts a line.
import os
import re
import subprocess
import sys

CODE = re.compile(r'(\.(md|[1-8]|c|h|S|sh|mk|py|ld|map|in|lua|gp|syms)|'
		  r'(^|/)(Makefile|rules|run|repstos-cc|repstos-c\+\+))$')
SOURCE = re.compile(r'\.(c|h|S)$')
IDENT = r'[A-Za-z_][A-Za-z0-9_]*'
FILE = r'(?:[A-Za-z0-9_.+-]+/)*[A-Za-z0-9_+-]+\.(?:c|h|S)'
FORMS = [
	re.compile(r'(?<![\w/.-])(' + FILE + r'),\s+(' + IDENT + r')(\(\))?'),
	re.compile(r'(?<![\w/.-])(' + FILE + r")'s\s+`?(" + IDENT + r')(\(\))?'),
	re.compile(r'\b(' + IDENT + r')(\(\))\s+(?:in|of)\s+(' + FILE + r')\b'),
]
# Pages being rewritten (issue 46, item 1): read them again once that lands.
REWRITTEN = {'README.md', 'tests/README.md', 'bench/results/README.md'}
# Paths in the trees of the projects tests/realworld builds, not ours.
FOREIGN = {'tests/misc/foo', 'tests/fuzzer', 'tests/frametest'}
DEFINES = [
	# a C definition or declaration at file scope: the name before "("
	re.compile(r'^(?![#/ \t*}])[^(=;]*?\b(' + IDENT + r')\s*\('),
	# a variable or table at file scope
	re.compile(r'^(?![#/ \t*}])[^(]*?\b(' + IDENT + r')\s*(?:\[[^]]*\])*\s*(?:=|;)'),
	re.compile(r'^\s*#\s*define\s+(' + IDENT + r')'),
	re.compile(r'^\s*(?:struct|enum|union)\s+(' + IDENT + r')\s*\{'),
	re.compile(r'^\s*\.macro\s+(' + IDENT + r')'),
	re.compile(r'^(' + IDENT + r'):'),
	re.compile(r'^\s*(?:ENTRY|ENTRY_ALIGN|FN|GLOBAL)\((' + IDENT + r')'),
]


def tracked(top):
	try:
		out = subprocess.run(['git', '-C', top, 'ls-files', '-z'],
				     capture_output=True, check=True).stdout
		files = [f for f in out.decode().split('\0') if f]
		if files:
			return files
	except (OSError, subprocess.CalledProcessError):
		pass
	files = []
	for d, subs, names in os.walk(top):
		if d == top:	# not the build's products
			subs[:] = [s for s in subs if s not in ('.git', 'build')]
		files += [os.path.relpath(os.path.join(d, n), top) for n in names]
	return files


def read(top, f):
	try:
		with open(os.path.join(top, f), encoding='utf-8') as fp:
			return fp.read().split('\n')
	except (OSError, UnicodeDecodeError):
		return []


def definitions(top, sources):
	defs = {}
	for f in sources:
		names = set()
		for line in read(top, f):
			for d in DEFINES:
				m = d.match(line)
				if m:
					names.add(m.group(1))
		defs[f] = names
	return defs


def nearest(name, referrer, files, by_base):
	if '/' in name:
		return [name] if name in files else \
			[f for f in files if f.endswith('/' + name)]
	cands = by_base.get(name, [])
	if len(cands) < 2:
		return cands
	def shared(f):
		a, b = f.split('/')[:-1], referrer.split('/')[:-1]
		n = 0
		while n < min(len(a), len(b)) and a[n] == b[n]:
			n += 1
		return n
	best = max(shared(f) for f in cands)
	return [f for f in cands if shared(f) == best]


def products(top, files):
	"""What the Makefiles name as a target or set a variable to."""
	made = set()
	for f in files:
		if not re.search(r'(^|/)Makefile$|\.mk$', f):
			continue
		for line in read(top, f):
			m = re.match(r'^([^:=#\t]+):(?!=)', line) or \
			    re.match(r'^\s*\w+\s*[:+?]?=\s*(.*)', line)
			if m:
				made.update(m.group(1).split())
	return made


def placeholder(p):
	"""A path written with a word in capitals for a part: tests/F/N.sh."""
	return any(re.fullmatch(r'[A-Z][A-Z0-9_]*(-.*)?', c.split('.')[0])
		   for c in p.split('/')[1:]) and \
		not re.search(r'/(README|Makefile)\b', p)


def defines(names, name):
	"""NAME, or a symbol made of it and a prefix (__bench_NAME)."""
	return name in names or any(n.endswith('_' + name) for n in names)


def main():
	top = sys.argv[1] if len(sys.argv) > 1 else '.'
	files = set(tracked(top))
	dirs = {os.path.dirname(f) for f in files}
	for d in list(dirs):
		while d:
			d = os.path.dirname(d)
			dirs.add(d)
	tops = sorted({f.split('/')[0] for f in files if '/' in f})
	by_base = {}
	for f in files:
		by_base.setdefault(os.path.basename(f), []).append(f)
	defs = definitions(top, [f for f in files if SOURCE.search(f)])
	made = products(top, files)
	path = re.compile(r'(?<![\w./$-])((?:' + '|'.join(map(re.escape, tops)) +
			  r')/[A-Za-z0-9_.+/-]*[A-Za-z0-9_+])')
	bad = npath = nname = 0
	for f in sorted(files):
		if not CODE.search(f) or f in REWRITTEN or \
		   f.startswith(('tests/build/refs.', 'bench/results/', 'data/')):
			continue
		for i, line in enumerate(read(top, f), 1):
			for m in path.finditer(line):
				p = m.group(1).rstrip('.')
				if any(c in line[m.end():m.end() + 1] for c in '*$%{'):
					continue
				if placeholder(p) or p in FOREIGN:
					continue
				npath += 1
				here = os.path.join(os.path.dirname(f), p)
				if not ({p, here} & (files | dirs | made) or
					p + '.c' in files or p + '.S' in files):
					print(f'{f}:{i}: names {p}, which is not in the tree')
					bad += 1
			for form in FORMS:
				for m in form.finditer(line):
					g = m.groups()
					if form is FORMS[2]:
						name, called, where = g
					else:
						where, name, called = g
					if not (called or '_' in name) or \
					   line[m.end():m.end() + 1] in ('.', '='):
						continue
					nname += 1
					cands = nearest(where, f, files, by_base)
					if not cands:
						print(f'{f}:{i}: names {where}, which is not in the tree')
						bad += 1
					elif not any(defines(defs.get(c, ()), name) for c in cands):
						print(f'{f}:{i}: says {where} defines {name}, '
						      f'but {" or ".join(cands)} does not')
						bad += 1
	print(f'checked {npath} paths, {nname} names')
	return 1 if bad else 0


if __name__ == '__main__':
	sys.exit(main())
