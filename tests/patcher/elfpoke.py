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
  elfpoke.py rela FILE SECTION OFFSET file offset of the relocation at
                                      OFFSET in SECTION (a .o)
"""
import struct
import sys

SHDR = struct.Struct("<IIQQQQIIQQ")
FIELDS = ["name", "type", "flags", "addr", "offset", "size", "link", "info",
          "addralign", "entsize"]


def load(path):
    with open(path, "rb") as f:
        return bytearray(f.read())


def sections(img):
    shoff, = struct.unpack_from("<Q", img, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", img, 0x3c)
    secs = []
    for i in range(shnum):
        secs.append(dict(zip(FIELDS, SHDR.unpack_from(img, shoff + i * 64)),
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


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    img = load(path)
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
            if s["sname"] != "repstos_sites":
                continue
            for k in range(s["size"] // 16):
                at = s["offset"] + 16 * k
                rel, = struct.unpack_from("<i", img, at)
                if cmd == "entries":
                    print(at, hex(s["addr"] + 16 * k + rel))
                n += 1
        if cmd == "count":
            print(n)
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
