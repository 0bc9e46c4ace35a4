#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""entries.py FILE - the site table of a linked file, one entry a line:
FUNCTION VERSION OP KIND MIN MAX, FUNCTION the symbol whose code holds
the site.  The layout comes from the contract through
tests/patcher/elfpoke.py.  `repstos dump --json` says the same, but the
tests check the tool against this reading, which owes it nothing (it
also shows the version byte, which the tool only judges)."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "patcher"))
import elfpoke  # noqa: E402

C = elfpoke.C
img = elfpoke.load(sys.argv[1])
secs = elfpoke.sections(img)
funcs = [s for s in elfpoke.symbols(img, secs) if s["size"] and s["shndx"]]
for s in secs:
    if s["sname"] != elfpoke.SITES:
        continue
    for k in range(s["size"] // elfpoke.ENTRY_SIZE):
        at = s["offset"] + elfpoke.ENTRY_SIZE * k
        field = at + C("REPSTOS_ENTRY_SITE")
        rel, = struct.unpack_from("<i", img, field)
        addr = s["addr"] + elfpoke.ENTRY_SIZE * k + C("REPSTOS_ENTRY_SITE") + rel
        name = [f["name"] for f in funcs
                if f["value"] <= addr < f["value"] + f["size"]]
        ver, op, kind = (img[at + C("REPSTOS_ENTRY_" + f)]
                         for f in ("VERSION", "OP", "SIZE_KIND"))
        lo, hi = (struct.unpack_from("<I", img, at + C("REPSTOS_ENTRY_SIZE_" + f))[0]
                  for f in ("MIN", "MAX"))
        print(name[0] if name else hex(addr), ver, op, kind, lo, hi)
