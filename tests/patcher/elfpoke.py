#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""elfpoke.py - read and break ELF files for the patcher tests, without
the tool under test: its own minimal ELF64 little-endian reader.

  elfpoke.py sections FILE            name, index, type, addr, offset, size
  elfpoke.py sym FILE NAME            index value size shndx fileoff-of-entry
  elfpoke.py entries FILE             per table entry: file offset, site addr
  elfpoke.py off FILE VADDR           file offset of a virtual address
  elfpoke.py poke FILE OFFSET HEX     write bytes at a file offset
  elfpoke.py count FILE               number of entries in the site tables
  elfpoke.py shdr FILE INDEX FIELD VALUE   set a section header field
  elfpoke.py retype FILE DIR          write to DIR a copy of FILE for each
                                      section and each other type it could
                                      have, and each flag it could gain or
                                      lose (SHF_WRITE, SHF_ALLOC,
                                      SHF_EXECINSTR); print their number
  elfpoke.py rela FILE SECTION OFFSET file offset of the relocation at
                                      OFFSET in SECTION (a .o)
  elfpoke.py field FILE K NAME HEX    write bytes into field NAME (site,
                                      version, len, op, size_kind, ...)
                                      of site table entry K
  elfpoke.py site FILE K VADDR        point entry K at VADDR (linked file)
  elfpoke.py nudge FILE K DELTA       add DELTA to entry K's site field
  elfpoke.py call FILE VADDR TARGET   make the site at VADDR `call TARGET`
  elfpoke.py const NAME               a number or name of the contract
  elfpoke.py layout                   the site table layout it read from
                                      include/repstos_site.h

The table's section name, entry size and field offsets come from
include/repstos_site.h, the contract, not from this file: tests/contract
checks that what is read here is what the C compiler sees.
"""
import os
import re
import struct
import sys

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "..", "..", "include", "repstos_site.h")


def contract(path=HEADER):
    """The header's simple #defines (numbers and names), resolved."""
    raw = {}
    for m in re.finditer(r"^#define\s+(REPSTOS_\w+)\s+([^\s/]+)",
                         open(path).read(), re.M):
        raw[m.group(1)] = m.group(2)

    def value(name):
        v = raw[name]
        m = re.fullmatch(r"REPSTOS_STR\((\w+)\)", v)
        if m:
            return value(m.group(1))
        if v in raw:
            return value(v)
        try:
            return int(v, 0)
        except ValueError:
            return v
    return value


C = contract()
SITES = C("REPSTOS_SITES_SECTION")
ENTRY_SIZE = C("REPSTOS_SITE_ENTRY_SIZE")
LAYOUT = ["REPSTOS_SITES_SECTION", "REPSTOS_SITE_ENTRY_SIZE",
          "REPSTOS_SITE_ALIGN", "REPSTOS_SITE_VERSION", "REPSTOS_COPY_VERSION",
          "REPSTOS_SITE_LEN",
          "REPSTOS_ENTRY_SITE", "REPSTOS_ENTRY_VERSION", "REPSTOS_ENTRY_LEN",
          "REPSTOS_ENTRY_OP", "REPSTOS_ENTRY_SIZE_KIND",
          "REPSTOS_ENTRY_SIZE_MIN", "REPSTOS_ENTRY_SIZE_MAX",
          "REPSTOS_MODULE_SECTION", "REPSTOS_MODULE_SIZE"]

SHDR = struct.Struct("<IIQQQQIIQQ")
FIELDS = ["name", "type", "flags", "addr", "offset", "size", "link", "info",
          "addralign", "entsize"]


def load(path):
    with open(path, "rb") as f:
        return bytearray(f.read())


def sections(img):
    # ELF32 (an -m32 object) only for listing and counting
    if img[4] == 1:
        shdr, shoff, = struct.Struct("<IIIIIIIIII"), struct.unpack_from("<I", img, 0x20)[0]
        shnum, shstrndx = struct.unpack_from("<HH", img, 0x30)
    else:
        shdr, shoff = SHDR, struct.unpack_from("<Q", img, 0x28)[0]
        shnum, shstrndx = struct.unpack_from("<HH", img, 0x3c)
    secs = []
    for i in range(shnum):
        secs.append(dict(zip(FIELDS, shdr.unpack_from(img, shoff + i * shdr.size)),
                         index=i))
    strs = secs[shstrndx]
    for s in secs:
        o = strs["offset"] + s["name"]
        s["sname"] = img[o:img.index(b"\0", o)].decode()
    return secs


def symbols(img, secs):
    tab = [s for s in secs if s["type"] == 2] or [s for s in secs if s["type"] == 11]
    tab = tab[0]
    strs = secs[tab["link"]]
    for i in range(tab["size"] // 24):
        at = tab["offset"] + i * 24
        name, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", img, at)
        o = strs["offset"] + name
        yield dict(index=i, name=img[o:img.index(b"\0", o)].decode(),
                   value=value, size=size, shndx=shndx, at=at)


def vaddr_off(secs, addr):
    for s in secs:
        if s["flags"] & 2 and s["type"] != 8 and s["addr"] <= addr < s["addr"] + s["size"]:
            return s["offset"] + addr - s["addr"]
    raise SystemExit("no section holds %#x" % addr)


def entry(secs, k):
    """(file offset, address) of table entry k."""
    for s in secs:
        if s["sname"] != SITES:
            continue
        if k < s["size"] // ENTRY_SIZE:
            return s["offset"] + ENTRY_SIZE * k, s["addr"] + ENTRY_SIZE * k
        k -= s["size"] // ENTRY_SIZE
    raise SystemExit("no site table entry %d" % k)


# The section types a header may be given: the ones readers of sections
# look for (a table, its strings, relocations, notes, no bytes at all).
RETYPES = [0, 1, 2, 3, 4, 7, 8, 9, 11, 17, 18]
REFLAGS = [1, 2, 4]


def retype(path, img, outdir):
    """Every one-field variant of every section header's type and flags."""
    shoff, = struct.unpack_from("<Q", img, 0x28)
    shnum, = struct.unpack_from("<H", img, 0x3c)
    base = os.path.basename(path)
    n = 0
    if shoff + shnum * SHDR.size > len(img):
        shnum = 0  # a truncated seed: no headers to change
    for i in range(1, shnum):
        at = shoff + i * SHDR.size
        vals = list(SHDR.unpack_from(img, at))
        changes = [("t%d" % t, 1, t) for t in RETYPES if t != vals[1]]
        changes += [("f%d" % f, 2, vals[2] ^ f) for f in REFLAGS]
        for name, field, value in changes:
            new = list(vals)
            new[field] = value
            out = bytearray(img)
            SHDR.pack_into(out, at, *new)
            save(os.path.join(outdir, "%s.s%d.%s" % (base, i, name)), out)
            n += 1
    print(n)


def save(path, img):
    with open(path, "wb") as f:
        f.write(img)


def main():
    cmd = sys.argv[1]
    if cmd == "layout":
        for name in LAYOUT:
            print("%s=%s" % (name, C(name)))
        return
    if cmd == "const":
        print(C(sys.argv[2]))
        return
    path = sys.argv[2]
    img = load(path)
    if cmd == "retype":
        retype(path, img, sys.argv[3])
        return
    secs = sections(img)
    if cmd == "sections":
        for s in secs:
            print(s["sname"], s["index"], s["type"], hex(s["addr"]), s["offset"], s["size"])
    elif cmd == "sym":
        for s in symbols(img, secs):
            if s["name"] == sys.argv[3]:
                print(s["index"], s["value"], s["size"], s["shndx"], s["at"])
                return
        raise SystemExit("no symbol " + sys.argv[3])
    elif cmd in ("entries", "count"):
        n = 0
        for s in secs:
            if s["sname"] != SITES:
                continue
            for k in range(s["size"] // ENTRY_SIZE):
                field = ENTRY_SIZE * k + C("REPSTOS_ENTRY_SITE")
                rel, = struct.unpack_from("<i", img, s["offset"] + field)
                if cmd == "entries":
                    print(s["offset"] + ENTRY_SIZE * k, hex(s["addr"] + field + rel))
                n += 1
        if cmd == "count":
            print(n)
    elif cmd in ("field", "site", "nudge"):
        at, addr = entry(secs, int(sys.argv[3]))
        field = C("REPSTOS_ENTRY_SITE")
        if cmd == "field":
            at += C("REPSTOS_ENTRY_" + sys.argv[4].upper())
            data = bytes.fromhex(sys.argv[5])
        elif cmd == "site":
            data = struct.pack("<i", int(sys.argv[4], 0) - (addr + field))
            at += field
        else:
            old, = struct.unpack_from("<i", img, at + field)
            data = struct.pack("<i", old + int(sys.argv[4], 0))
            at += field
        img[at:at + len(data)] = data
        save(path, img)
    elif cmd == "call":
        site, target = int(sys.argv[3], 0), int(sys.argv[4], 0)
        at = vaddr_off(secs, site)
        data = bytes([C("REPSTOS_OPC_CALL")]) + struct.pack(
            "<i", target - site - C("REPSTOS_CALL_LEN"))
        assert C("REPSTOS_CALL_REL32") == 1
        img[at:at + len(data)] = data
        save(path, img)
    elif cmd == "off":
        print(vaddr_off(secs, int(sys.argv[3], 0)))
    elif cmd == "poke":
        at = int(sys.argv[3], 0)
        data = bytes.fromhex(sys.argv[4])
        img[at:at + len(data)] = data
        with open(path, "wb") as f:
            f.write(img)
    elif cmd == "shdr":
        i, field, value = int(sys.argv[3]), sys.argv[4], int(sys.argv[5], 0)
        vals = list(SHDR.unpack_from(img, struct.unpack_from("<Q", img, 0x28)[0] + i * 64))
        vals[FIELDS.index(field)] = value
        SHDR.pack_into(img, struct.unpack_from("<Q", img, 0x28)[0] + i * 64, *vals)
        with open(path, "wb") as f:
            f.write(img)
    elif cmd == "rela":
        target = [s["index"] for s in secs if s["sname"] == sys.argv[3]]
        want = int(sys.argv[4], 0)
        for s in secs:
            if s["type"] != 4 or s["info"] not in target:
                continue
            for k in range(s["size"] // 24):
                at = s["offset"] + 24 * k
                if struct.unpack_from("<Q", img, at)[0] == want:
                    print(at)
                    return
        raise SystemExit("no relocation at %#x" % want)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
