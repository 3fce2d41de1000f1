#!/usr/bin/env python3
"""Generates the opcode tables: crates/isa/src/gfx11/opcodes/tables.rs (gfx11
opcode -> mnemonic / operand widths), crates/isa/src/gfx9/opcodes/<target>.rs
(the same for gfx90a and gfx942, probed as gfx9_families.py says) and
crates/isa/src/opcodes/op.rs (the `Op` enum every target shares).

The facts come from LLVM's own gfx1100 disassembler (llvm-mc-19): for every
opcode of every encoding family we disassemble a word with distinctive register
numbers (dst 8, src0 12, src1 16, src2 20, sdst 0) and read back the mnemonic and the
register widths (v[12:13] is two dwords). GFX9 mnemonics naming a gfx11 operation
differently map to it through aliases.py. It writes the files unformatted under the
directory given; generate.sh beside it runs rustfmt and puts them in place, check.sh compares.
"""
import re
import subprocess
import sys

def mc(mcpu):
    return ["llvm-mc-19", "-arch=amdgcn", "-mcpu=" + mcpu, "-disassemble", "-show-encoding"]
MARK = [0xBF801234, 0xBF801235]  # s_nop 0x1234; s_nop 0x1235 (a literal-hungry word may eat the first)


def words_line(ws):
    return ",".join("0x%02x" % ((w >> (8 * i)) & 0xFF) for w in ws for i in range(4))


def disasm_batch(cands, mcpu="gfx1100"):
    """cands: list of word lists -> list of (text or None), as llvm-mc-19 -mcpu=MCPU sees them."""
    lines = []
    for ws in cands:
        lines.append(words_line(ws))
        lines.append(words_line(MARK))
    out = subprocess.run(mc(mcpu), input="\n".join(lines) + "\n", capture_output=True, text=True).stdout
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
            nbytes = enc.count("0x")
            cur.append((text, nbytes))
    res = []
    for ws, got in zip(cands, results):
        if len(got) == 2 and got[1][0] == "s_nop 0x1234" and got[0][1] == 4 * len(ws) and got[0][0] != "v_illegal":
            res.append(got[0][0])
        else:
            res.append(None)
    return res


REG = re.compile(r"\b([vsa])\[(\d+):(\d+)\]|\b([vsa])(\d+)\b")


def widths(text):
    """register number -> (kind, width)"""
    m = {}
    ops = text.split(None, 1)[1] if " " in text else ""
    for g in REG.finditer(ops):
        if g.group(1):
            m[int(g.group(2))] = (g.group(1), int(g.group(3)) - int(g.group(2)) + 1)
        else:
            m.setdefault(int(g.group(5)), (g.group(4), 1))
    return m


def family(name, nops, cands_fn, slots, mcpu="gfx1100"):
    """slots: register numbers in slot order (dst, src0, src1, src2, sdst)."""
    rows = {}
    cand_lists = [cands_fn(op) for op in range(nops)]
    maxc = max(len(c) for c in cand_lists)
    for k in range(maxc):
        todo = [(op, cand_lists[op][k]) for op in range(nops) if op not in rows and k < len(cand_lists[op])]
        if not todo:
            continue
        texts = disasm_batch([c for _, c in todo], mcpu)
        for (op, _), t in zip(todo, texts):
            if t is not None:
                rows[op] = t
    return name, nops, rows, slots


def fams():
    V = lambda n: 256 + n
    out = []
    out.append(family("SOP2", 128, lambda op: [[0x80000000 | op << 23 | 8 << 16 | 16 << 8 | 12]], [8, 12, 16, None, None]))
    out.append(family("SOP1", 256, lambda op: [[0xBE800000 | 8 << 16 | op << 8 | 12], [0xBE800000 | 8 << 16 | op << 8 | 0], [0xBE800000 | 0 << 16 | op << 8 | 12], [0xBE800000 | op << 8]], [8, 12, None, None, None]))
    out.append(family("SOPK", 32, lambda op: [[0xB0000000 | op << 23 | 8 << 16 | 0x1234], [0xB0000000 | op << 23 | 8 << 16 | 0x1234, 0x5678]], [8, None, None, None, None]))
    out.append(family("SOPC", 128, lambda op: [[0xBF000000 | op << 16 | 16 << 8 | 12]], [None, 12, 16, None, None]))
    out.append(family("SOPP", 128, lambda op: [[0xBF800000 | op << 16 | 3], [0xBF800000 | op << 16]], [None] * 5))
    out.append(family("SMEM", 256, lambda op: [[0xF4000000 | op << 18 | 8 << 6 | 6, 0xF8000010], [0xF4000000 | op << 18 | 6, 0xF8000010], [0xF4000000 | op << 18, 0xF8000010]], [8, None, None, None, None]))
    out.append(family("VOP1", 256, lambda op: [[0x7E000000 | 8 << 17 | op << 9 | V(12)], [0x7E000000 | 8 << 17 | op << 9 | 12], [0x7E000000 | op << 9]], [8, 12, None, None, None]))
    out.append(family("VOP2", 64, lambda op: [[op << 25 | 8 << 17 | 16 << 9 | V(12)], [op << 25 | 8 << 17 | 16 << 9 | V(12), 0x40000000]], [8, 12, 16, None, None]))
    out.append(family("VOPC", 256, lambda op: [[0x7C000000 | op << 17 | 16 << 9 | V(12)], [0x7C000000 | op << 17 | 16 << 9 | 12]], [None, 12, 16, None, None]))
    def vop3(op):
        d0 = 0xD4000000 | op << 16 | 8
        c = []
        for s2 in (V(20), 20, 0):
            for s1 in (V(16), 16, 0):
                for s0 in (V(12), 12):
                    c.append([d0, s2 << 18 | s1 << 9 | s0])
        c.sort(key=lambda ws: -sum(1 for f in (ws[1] >> 18, (ws[1] >> 9) & 511) if f))
        return c
    out.append(family("VOP3", 1024, vop3, [8, 12, 16, 20, 0]))
    def vop3p(op):
        d0 = 0xCC000000 | op << 16 | 1 << 14 | 8
        c = []
        for s2 in (V(20), 0):
            c.append([d0, 3 << 27 | s2 << 18 | V(16) << 9 | V(12)])
        for s2 in (V(20), 0):
            c.append([0xCC000000 | op << 16 | 8, s2 << 18 | V(16) << 9 | V(12)])
        return c
    out.append(family("VOP3P", 128, vop3p, [8, 12, 16, 20, None]))
    def ds(op):
        c = []
        for vd in (8, 0):
            for d1 in (20, 0):
                for d0 in (16, 0):
                    for a in (12, 0):
                        c.append([0xD8000000 | op << 18, vd << 24 | d1 << 16 | d0 << 8 | a])
        c.sort(key=lambda ws: -sum(1 for f in (ws[1] >> 24, (ws[1] >> 16) & 255, (ws[1] >> 8) & 255, ws[1] & 255) if f))
        return c
    out.append(family("DS", 256, ds, [8, 12, 16, 20, None]))
    for seg, nm in ((0, "FLAT"), (1, "SCRATCH"), (2, "GLOBAL")):
        addr = V(1) if seg != 1 else V(1)
        def fl(op, seg=seg):
            d0 = 0xDC000000 | op << 18 | seg << 16
            c = []
            for glc in (1 << 14, 0):
                for vd in (8, 0):
                    for dat in (16, 0):
                        d1 = vd << 24 | 124 << 16 | dat << 8 | 12 | (1 << 23 if seg == 1 else 0)
                        c.append([d0 | glc, d1])
            return c
        out.append(family(nm, 128, fl, [8, 12, 16, None, None]))
    out.append(family("MUBUF", 256, lambda op: [[0xE0000000 | op << 18, 0]], [None] * 5))
    # MTBUF: op [18:15], format [25:19] (1 = BUF_FMT_8_UNORM).
    out.append(family("MTBUF", 16, lambda op: [[0xE8000000 | 1 << 19 | op << 15, 0]], [None] * 5))
    # MIMG: op [25:18], dmask [11:8] (one channel; bvh ops take all four).
    # EXP has no opcode field: one entry.
    out.append(family("EXP", 1, lambda op: [[0xF8000000, 0]], [None] * 5))
    out.append(family("MIMG", 256, lambda op: [[0xF0000000 | op << 18 | 1 << 8, 0],
                                               [0xF0000000 | op << 18 | 0xF << 8, 0]], [None] * 5))
    # LDSDIR: op [21:20], vdst [7:0]. VINTERP: op [22:16], vdst [7:0], three VGPR sources.
    out.append(family("LDSDIR", 4, lambda op: [[0xCE000000 | op << 20 | 8]], [8, None, None, None, None]))
    out.append(family("VINTERP", 128, lambda op: [[0xCD000000 | op << 16 | 8, V(12) | V(16) << 9 | V(20) << 18]],
                      [8, 12, 16, 20, None]))
    return out


def vopd_names():
    xs, ys = {}, {}
    cands = []
    for side in ("x", "y"):
        for op in range(32 if side == "y" else 16):
            opx, opy = (op, 8) if side == "x" else (8, op)
            for vs in (16, 0):
                d0 = 0xC8000000 | opx << 22 | opy << 17 | vs << 9 | 256 + 12
                for vsy in (20, 0):
                    d1 = 0x08 << 24 | 0x05 << 17 | vsy << 9 | 256 + 6
                    cands.append((side, op, [d0, d1]))
                    cands.append((side, op, [d0, d1, 0x40000000]))
    texts = disasm_batch([c for _, _, c in cands])
    for (side, op, _), t in zip(cands, texts):
        if t:
            x, y = t.split("::")
            if side == "x":
                xs.setdefault(op, x.split()[0])
            else:
                ys.setdefault(op, y.split()[0])
    return xs, ys


def base(m):
    for suf in ("_e32", "_e64"):
        if m.endswith(suf):
            m = m[: -len(suf)]
    if m.startswith("v_dual_"):
        m = "v_" + m[len("v_dual_"):]
    return m


def camel(m):
    return "".join(p[:1].upper() + p[1:] for p in m.split("_"))


def write_table(o, fam, n, rows, slots, op_name):
    o.write("pub static %s: [Option<OpInfo>; %d] = [\n" % (fam, n))
    for op in range(n):
        t = rows.get(op)
        if t is None:
            o.write("    None,\n")
            continue
        mn = t.split()[0]
        w = widths(t)
        ws = [w[s][1] if s is not None and s in w else 0 for s in slots]
        o.write('    Some(OpInfo { op: Op::%s, mnemonic: "%s", widths: %s }),\n' % (camel(op_name(base(mn))), mn, ws))
    o.write("];\n\n")


TABLE_DOC = "per encoding family, opcode -> (operation, LLVM mnemonic,\n//! operand widths in dwords [dst, src0, src1, src2, sdst], 0 = operand absent)."


def gfx11_tables(o, fs, xs, ys):
    o.write("// @generated by tools/isa-tables/generate.py from llvm-mc-19 -mcpu=gfx1100 disassembly. Do not edit.\n")
    o.write("//! gfx11 opcode tables: %s\n\n" % TABLE_DOC)
    o.write("use super::{Op, OpInfo};\n\n")
    for fam, n, rows, slots in fs:
        # Opcodes whose words belong to another family (checked first by the decoder).
        shadow = {"SOP2": range(0x60, 128), "SOPK": range(0x1D, 32), "VOP2": range(0x3E, 64)}.get(fam, ())
        rows = {k: v for k, v in rows.items() if k not in shadow}
        write_table(o, fam, n, rows, slots, lambda m: m)
    for nm, d, n in (("VOPD_X", xs, 16), ("VOPD_Y", ys, 32)):
        o.write("pub static %s: [Option<(Op, &str)>; %d] = [\n" % (nm, n))
        for op in range(n):
            t = d.get(op)
            o.write("    %s,\n" % ("Some((Op::%s, \"%s\"))" % (camel(base(t)), t) if t else "None"))
        o.write("];\n\n")


def gfx9_tables(o, cpu, fs, op_name):
    o.write("// @generated by tools/isa-tables/generate.py from llvm-mc-19 -mcpu=%s disassembly. Do not edit.\n" % cpu)
    o.write("//! %s opcode tables: %s\n\n" % (cpu, TABLE_DOC))
    o.write("use super::{Op, OpInfo};\n\n")
    for fam, n, rows, slots in fs:
        write_table(o, fam, n, rows, slots, op_name)


def op_enum(o, names):
    o.write("// @generated by tools/isa-tables/generate.py from llvm-mc-19 disassembly. Do not edit.\n")
    o.write("//! Every operation of every target (gfx1100, gfx90a, gfx942), by base\n")
    o.write("//! mnemonic (no _e32/_e64, no v_dual_); GFX9 mnemonics that name a gfx11\n")
    o.write("//! operation differently use that operation (tools/isa-tables/aliases.py).\n\n")
    o.write("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\n#[repr(u16)]\npub enum Op {\n")
    for n in names:
        o.write("    %s,\n" % camel(n))
    o.write("}\n\n")
    o.write("pub(super) static OP_NAMES: [&str; %d] = [\n" % len(names))
    for n in names:
        o.write('    "%s",\n' % n)
    o.write("];\n")


GFX9_TARGETS = ("gfx90a", "gfx942")


def main():
    """Writes, under the directory given (crates/isa/src layout), the
    unformatted opcodes/op.rs, gfx11/opcodes/tables.rs and
    gfx9/opcodes/<target>.rs."""
    import os
    import aliases
    import gfx9_families

    root = sys.argv[1]
    fs = fams()
    xs, ys = vopd_names()
    names = set()
    for _, _, rows, _ in fs:
        for t in rows.values():
            names.add(base(t.split()[0]))
    for d in (xs, ys):
        for t in d.values():
            names.add(base(t))
    gfx9 = {cpu: gfx9_families.families(lambda *a, cpu=cpu: family(*a, mcpu=cpu)) for cpu in GFX9_TARGETS}
    # Alias targets: gfx11 operations, and gfx90a's for gfx942's renamed MFMAs.
    known = set(names)
    for _, _, rows, _ in gfx9["gfx90a"]:
        known.update(base(t.split()[0]) for t in rows.values())
    op_name = lambda m: aliases.canonical(m, known)
    for cpu in GFX9_TARGETS:
        for _, _, rows, _ in gfx9[cpu]:
            names.update(op_name(base(t.split()[0])) for t in rows.values())
    files = {
        "opcodes/op.rs": lambda o: op_enum(o, sorted(names)),
        "gfx11/opcodes/tables.rs": lambda o: gfx11_tables(o, fs, xs, ys),
    }
    for cpu in GFX9_TARGETS:
        files["gfx9/opcodes/%s.rs" % cpu] = lambda o, cpu=cpu: gfx9_tables(o, cpu, gfx9[cpu], op_name)
    for path, write in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as o:
            write(o)


if __name__ == "__main__":
    main()
