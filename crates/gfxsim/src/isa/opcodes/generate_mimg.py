#!/usr/bin/env python3
"""Regenerates mimg_shapes.rs: how LLVM's gfx1100 disassembler sizes the
register operands of every MIMG opcode.

LLVM prints an image instruction's vdata and vaddr tuples from the MIMG
variant (opcode, vdata dwords, vaddr dwords) its TableGen defines: the data
size follows dmask (4 for gather4 / msaa_load), d16 and tfe, the address
size follows dim, a16 and the opcode's extra address operands; when no such
variant exists it prints the decoder's default variant unchanged. Rather than
restating TableGen, this script asks llvm-mc-19 itself: for every opcode,
dim, a16, dmask, tfe, d16 and NSA setting it disassembles one word (vdata
v100, vaddr v10 / NSA v20 v30 v40 v50) and records the printed sizes. It then
reads the default variant from a word whose data cannot widen (vdata v252,
five data dwords), fits the model the decoder uses (below) and asserts that
the model reproduces every probe before writing the table.

Model, per opcode and NSA form:
  D = data size (4 for gather4/msaa_load else popcount(dmask) or 1; d16
      halves it rounding up; tfe adds 1), A = address count for (a16, dim).
  printed = (data[D], addr[a16][dim]) if both are non-zero, else default.
Usage: python3 generate_mimg.py > mimg_shapes.rs
"""
import re
import subprocess
import sys

MC = ["llvm-mc-19", "-arch=amdgcn", "-mcpu=gfx1100", "-disassemble", "-show-encoding"]
MARK = [0xBF801234, 0xBF801235]  # s_nop 0x1234; s_nop 0x1235
DIMS = range(8)
DMASKS = (1, 3, 7, 15)
# Opcodes whose data is always four channels (before d16/tfe).
FOUR = ("image_gather4", "image_msaa_load")


def words_line(ws):
    return ",".join("0x%02x" % ((w >> (8 * i)) & 0xFF) for w in ws for i in range(4))


def disasm_batch(cands):
    lines = []
    for ws in cands:
        lines.append(words_line(ws))
        lines.append(words_line(MARK))
    out = subprocess.run(MC, input="\n".join(lines) + "\n", capture_output=True, text=True).stdout
    results, cur = [], []
    for l in out.splitlines():
        l = l.strip()
        if not l or l.startswith(".text"):
            continue
        text, _, enc = l.partition("; encoding:")
        text = text.strip()
        if text == "s_nop 0x1235":
            results.append(cur)
            cur = []
        else:
            cur.append((text, enc.count("0x")))
    res = []
    for ws, got in zip(cands, results):
        ok = len(got) == 2 and got[1][0] == "s_nop 0x1234" and got[0][1] == 4 * len(ws)
        res.append(got[0][0] if ok else None)
    return res


def width(reg):
    m = re.match(r"v\[(\d+):(\d+)\]", reg)
    return int(m.group(2)) - int(m.group(1)) + 1 if m else 1


OPERANDS = re.compile(r"^(\S+)\s+(v\d+|v\[\d+:\d+\]), (\[(?:[^\[\]]|\[[^\]]*\])*\]|v\d+|v\[\d+:\d+\])(.*)$")


def sizes(text):
    """(mnemonic, data dwords, address dwords, has a sampler operand)"""
    m = OPERANDS.match(text)
    addr = m.group(3)
    if addr.startswith("["):
        regs = [r.strip() for r in addr[1:-1].split(",")]
        a = len(regs) - 1 + width(regs[-1])
    else:
        a = width(addr)
    sampler = m.group(4).startswith(", s[") and m.group(4).count(", ") >= 2
    return m.group(1), width(m.group(2)), a, sampler


def data_size(name, dmask, tfe, d16):
    d = 4 if name.startswith(FOUR) else max(bin(dmask).count("1"), 1)
    if d16:
        d = (d + 1) // 2
    return d + tfe


def word(op, dim, a16, dmask, tfe, d16, nsa, vdata=100):
    w0 = 0xF0000000 | op << 18 | d16 << 17 | a16 << 16 | dmask << 8 | dim << 2 | nsa
    w1 = tfe << 21 | vdata << 8 | 10
    return [w0, w1] + ([0x32281E14] if nsa else [])


def main():
    names = {}
    for op, t in zip(range(256), disasm_batch([word(op, 0, 0, 1, 0, 0, 0) for op in range(256)])):
        if t:
            names[op] = sizes(t)[0]
    keys = [(op, dim, a16, dm, tfe, d16, nsa) for op in names for dim in DIMS for a16 in (0, 1)
            for dm in DMASKS for tfe in (0, 1) for d16 in (0, 1) for nsa in (0, 1)]
    texts = disasm_batch([word(*k) for k in keys])
    probes = {}
    d16_ok = {op: False for op in names}
    sampler = {op: False for op in names}
    for k, t in zip(keys, texts):
        if t is None:
            continue
        n, d, a, s = sizes(t)
        assert n == names[k[0]], (k, t)
        probes[k] = (d, a)
        d16_ok[k[0]] |= k[5] == 1
        sampler[k[0]] |= s
    # The default variant, seen directly: vdata v252 with five data dwords
    # (dmask 0xf + tfe) cannot widen, so LLVM prints the default variant.
    dkeys = [(op, nsa) for op in names for nsa in (0, 1)]
    defaults = {}
    for k, t in zip(dkeys, disasm_batch([word(op, 0, 0, 15, 1, 0, nsa, 252) for op, nsa in dkeys])):
        defaults[k] = sizes(t)[1:3]
    table = {}
    for op, name in names.items():
        forms = []
        for nsa in (0, 1):
            pts = {k: v for k, v in probes.items() if k[0] == op and k[6] == nsa}
            best = None
            for dflt in [defaults[(op, nsa)]]:
                data, addr = {}, {}
                for k, v in pts.items():
                    if v != dflt:
                        data[data_size(name, *k[3:6])] = v[0]
                        addr[(k[2], k[1])] = v[1]
                errs = 0
                for k, v in pts.items():
                    dd, key = data_size(name, *k[3:6]), (k[2], k[1])
                    pred = (data[dd], addr[key]) if dd in data and key in addr else dflt
                    errs += pred != v
                if best is None or errs < best[0]:
                    best = (errs, dflt, data, addr)
            errs, dflt, data, addr = best
            assert errs == 0, (name, nsa, errs)
            forms.append((dflt, data, addr))
        table[op] = (name, sampler[op], d16_ok[op], forms)
    o = sys.stdout
    o.write("// @generated by generate_mimg.py from llvm-mc-19 -mcpu=gfx1100 disassembly. Do not edit.\n")
    o.write("//! How LLVM sizes each MIMG opcode's vdata and vaddr operands (see generate_mimg.py).\n\n")
    o.write("use super::{MimgForm, MimgShape};\n\n")
    o.write("pub static MIMG_SHAPES: [Option<MimgShape>; 256] = [\n")
    for op in range(256):
        if op not in table:
            o.write("    None,\n")
            continue
        name, s, d16, forms = table[op]
        o.write(f"    // {op}: {name}\n")
        o.write(f"    Some(MimgShape {{\n        sampler: {str(s).lower()},\n        d16: {str(d16).lower()},\n")
        o.write("        forms: [\n")
        for dflt, data, addr in forms:
            dv = [data.get(i, 0) for i in range(6)]
            av = [[addr.get((a16, dim), 0) for dim in DIMS] for a16 in (0, 1)]
            o.write(f"            MimgForm {{\n                default: {list(dflt)},\n"
                    f"                data: {dv},\n                addr: {av},\n            }},\n")
        o.write("        ],\n    }),\n")
    o.write("];\n")


if __name__ == "__main__":
    main()
