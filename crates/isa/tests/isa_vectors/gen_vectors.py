#!/usr/bin/env python3
"""Generates the decoder's differential vectors, generated/<family>.txt.

For every gfx11 encoding family, every value of its opcode field (valid or
not) is combined with deterministically sampled operand fields: registers of
every kind (SGPRs, VCC/TTMP/NULL/M0/EXEC, VGPRs up to v255), inline integer
and float constants, literals, the reserved operand codes, modifiers (neg,
abs, clamp, omod, op_sel, op_sel_hi), DPP16/DPP8 controls, offsets, cache
bits, and random bits in reserved fields. LLVM 19's disassembler decides
what each word is: the words are laid out in one stream (each test followed
by `s_code_end` sentinels so a long decode of one test cannot reach the next),
wrapped into an ELF `.text` and disassembled by llvm-objdump-19, which prints
every instruction with the dwords it consumed.

Each output line is `DWORDS ; TEXT`: for a valid encoding DWORDS are exactly
the dwords LLVM consumed and TEXT its disassembly (whitespace collapsed,
branch-target annotations removed); for an invalid one DWORDS are the whole
test (fixed dwords plus the extra dwords that could be a literal) and TEXT is
`<invalid>`. The decoder test (tests/isa_decode.rs) requires the same text
for every valid line and a typed decode error for every invalid one.

Usage: python3 gen_vectors.py   (needs llvm-objcopy-19, llvm-objdump-19)
"""
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "generated")
SENTINEL = 0xBF9F0000  # s_code_end
SENTINELS = 5

# Operand-code pools. 8-bit scalar sources / 9-bit vector sources.
SGPRS = list(range(0, 106))
SPECIAL_S = [106, 107, 124, 125, 126, 127] + list(range(108, 124))
INLINE_INT = [128, 129, 130, 144, 192, 193, 200, 208]
RESERVED_S = [209, 220, 230, 233, 234, 239, 249, 250, 254]
APERTURE = [235, 236, 237, 238]
FLOATS = list(range(240, 249))
CONDS = [251, 252, 253]
LIT = [255]
LITERALS = [0x3F800000, 0x12345678, 7, 0xFFFFFFF0, 0x40490FDB, 0x3C00, 0xFFFF, 0x80000000,
            0x41, 0xFFFFFFFF, 0x4000_0000, 0xC1200000]


def ssrc_pick(rng):
    r = rng.random()
    if r < 0.30:
        return rng.choice(SGPRS)
    if r < 0.45:
        return rng.choice(SPECIAL_S)
    if r < 0.58:
        return rng.choice(INLINE_INT)
    if r < 0.68:
        return rng.choice(FLOATS)
    if r < 0.78:
        return 255
    if r < 0.84:
        return rng.choice(APERTURE + CONDS)
    return rng.choice(RESERVED_S)


def vsrc_pick(rng):
    r = rng.random()
    if r < 0.45:
        return 256 + (rng.randrange(0, 256) if rng.random() < 0.3 else rng.randrange(0, 24))
    return ssrc_pick(rng)


def sdst_pick(rng):
    r = rng.random()
    if r < 0.6:
        return rng.randrange(0, 106)
    return rng.choice(SPECIAL_S + [rng.randrange(0, 128)])


def vgpr_pick(rng):
    return rng.randrange(0, 256) if rng.random() < 0.3 else rng.randrange(0, 24)


def load_widths():
    """Operand widths per opcode from the decoder's LLVM-generated tables, so
    unused operand fields can be left zero (LLVM rejects junk in most)."""
    path = os.path.join(HERE, "..", "..", "src", "gfx11", "opcodes", "tables.rs")
    src = open(path).read()
    tables = {}
    for m in re.finditer(r"pub static (\w+): \[Option<OpInfo>; \d+\] = \[(.*?)\n\];", src, re.S):
        rows = []
        for e in re.finditer(r"None|Some\(OpInfo \{.*?widths: \[([\d, ]+)\]", m.group(2), re.S):
            rows.append([int(x) for x in e.group(1).split(",")] if e.group(1) else None)
        tables[m.group(1)] = rows
    return tables


WIDTHS = load_widths()


def rbits(rng, n):
    return rng.getrandbits(n)


class Fam:
    """name, fixed (mask, value) of dword 0, dword count, opcode field (lo, width),
    fields: [(dword, lo, width, picker)], variants per opcode, extra dwords, tweak fn."""

    def __init__(self, name, mask, value, dwords, op, fields, per_op, extra=1, tweak=None, ops=None,
                 table=None, slots=None):
        self.table, self.slots = table, slots
        self.name, self.mask, self.value, self.dwords = name, mask, value, dwords
        self.op, self.fields, self.per_op, self.extra = op, fields, per_op, extra
        self.tweak, self.ops = tweak, ops


def put(ws, dw, lo, width, v):
    m = ((1 << width) - 1) << lo
    ws[dw] = (ws[dw] & ~m & 0xFFFFFFFF) | ((v << lo) & m)


def gen(f, rng):
    tests = []
    oplo, opw = f.op
    ops = f.ops if f.ops is not None else range(1 << opw)
    for op in ops:
        for k in range(f.per_op):
            ws = [rbits(rng, 32) for _ in range(f.dwords)]
            # Most tests keep reserved bits clear (the common case); some keep junk.
            junk = rng.random() < 0.1
            if not junk:
                ws = [0] * f.dwords
            row = WIDTHS[f.table][op] if f.table and op < len(WIDTHS[f.table]) else None
            for n, (dw, lo, width, pick) in enumerate(f.fields):
                if junk and rng.random() < 0.2:
                    continue
                slot = f.slots[n] if f.slots else None
                if row and slot is not None and row[slot] == 0 and rng.random() < 0.85:
                    put(ws, dw, lo, width, 0)
                    continue
                put(ws, dw, lo, width, pick(rng))
            ws[0] = (ws[0] & ~f.mask & 0xFFFFFFFF) | f.value
            put(ws, 0, oplo, opw, op)
            if f.tweak:
                f.tweak(ws, rng, k)
            extra = [rng.choice(LITERALS) if rng.random() < 0.7 else rbits(rng, 32) for _ in range(f.extra)]
            tests.append(ws + extra)
    return tests


def any_bits(w):
    return lambda rng: rbits(rng, w)


def small(n):
    return lambda rng: rng.randrange(0, n)


def choice(vals):
    return lambda rng: rng.choice(vals)


def mods_pick(rng):
    return 0 if rng.random() < 0.5 else rbits(rng, 3)


def omod_pick(rng):
    return 0 if rng.random() < 0.6 else rbits(rng, 2)


def opsel_pick(rng):
    return 0 if rng.random() < 0.6 else rbits(rng, 4)


def bit_rare(rng):
    return 1 if rng.random() < 0.25 else 0


def dpp16_word(rng):
    ctrl = rng.choice([rbits(rng, 8), 0xE4, 0x101 + rng.randrange(15), 0x111 + rng.randrange(15),
                       0x121 + rng.randrange(15), 0x140, 0x141, 0x150 + rng.randrange(16),
                       0x160 + rng.randrange(16), rbits(rng, 9)])
    w = vgpr_pick(rng) | ctrl << 8
    if rng.random() < 0.3:
        w |= rbits(rng, 6) << 18  # fi, bound_ctrl, neg0/abs0/neg1/abs1
    w |= (0xF if rng.random() < 0.6 else rbits(rng, 4)) << 24
    w |= (0xF if rng.random() < 0.6 else rbits(rng, 4)) << 28
    return w


def dpp8_word(rng):
    return vgpr_pick(rng) | rbits(rng, 24) << 8


def families():
    S = ssrc_pick
    V = vsrc_pick
    fams = [
        Fam("sop2", 0xC0000000, 0x80000000, 1, (23, 7),
            [(0, 0, 8, S), (0, 8, 8, S), (0, 16, 7, sdst_pick)], 14, ops=range(0x60),
            table="SOP2", slots=[1, 2, 0]),
        Fam("sopk", 0xF0000000, 0xB0000000, 1, (23, 5),
            [(0, 16, 7, sdst_pick), (0, 0, 16, any_bits(16))], 24, ops=range(0x1D)),
        Fam("sop1", 0xFF800000, 0xBE800000, 1, (8, 8),
            [(0, 0, 8, S), (0, 16, 7, sdst_pick)], 8, table="SOP1", slots=[1, 0]),
        Fam("sopc", 0xFF800000, 0xBF000000, 1, (16, 7),
            [(0, 0, 8, S), (0, 8, 8, S)], 10),
        Fam("sopp", 0xFF800000, 0xBF800000, 1, (16, 7),
            [(0, 0, 16, lambda rng: rng.choice([0, 1, 3, 7, 0x3F, 0xFFFF, 0xFC07, rbits(rng, 16), rbits(rng, 6)]))], 12),
        Fam("smem", 0xFC000000, 0xF4000000, 2, (18, 8),
            [(0, 0, 6, small(64)), (0, 6, 7, sdst_pick), (0, 13, 1, bit_rare), (0, 14, 1, bit_rare),
             (1, 0, 21, lambda rng: rng.choice([0, 4, 0x2C, 0x1FFFF0, 0x100000, rbits(rng, 21)])),
             (1, 25, 7, lambda rng: rng.choice([124, 124, rng.randrange(0, 128)]))], 8),
        Fam("vop1", 0xFE000000, 0x7E000000, 1, (9, 8),
            [(0, 0, 9, V), (0, 17, 8, vgpr_pick)], 10, table="VOP1", slots=[1, 0]),
        Fam("vop2", 0x80000000, 0x00000000, 1, (25, 6),
            [(0, 0, 9, V), (0, 9, 8, vgpr_pick), (0, 17, 8, vgpr_pick)], 24, ops=range(0x3E)),
        Fam("vopc", 0xFE000000, 0x7C000000, 1, (17, 8),
            [(0, 0, 9, V), (0, 9, 8, vgpr_pick)], 8),
        Fam("vop3", 0xFC000000, 0xD4000000, 2, (16, 10),
            [(0, 0, 8, lambda rng: vgpr_pick(rng) if rng.random() < 0.7 else sdst_pick(rng)),
             (0, 8, 3, mods_pick), (0, 11, 4, opsel_pick), (0, 15, 1, bit_rare),
             (1, 0, 9, V), (1, 9, 9, V), (1, 18, 9, V), (1, 27, 2, omod_pick), (1, 29, 3, mods_pick)], 8,
            table="VOP3", slots=[None, None, None, None, 1, 2, 3, None, None]),
        Fam("vop3p", 0xFF000000, 0xCC000000, 2, (16, 7),
            [(0, 0, 8, vgpr_pick), (0, 8, 3, mods_pick), (0, 11, 3, mods_pick),
             (0, 14, 1, lambda rng: 1 if rng.random() < 0.7 else 0), (0, 15, 1, bit_rare),
             (1, 0, 9, V), (1, 9, 9, V), (1, 18, 9, V),
             (1, 27, 2, lambda rng: 3 if rng.random() < 0.6 else rbits(rng, 2)), (1, 29, 3, mods_pick)], 12,
            table="VOP3P", slots=[None] * 5 + [1, 2, 3, None, None]),
        Fam("vinterp", 0xFF000000, 0xCD000000, 2, (16, 7),
            [(0, 0, 8, vgpr_pick), (0, 8, 3, small(8)), (0, 11, 4, opsel_pick), (0, 15, 1, bit_rare),
             (1, 0, 9, V), (1, 9, 9, V), (1, 18, 9, V), (1, 29, 3, mods_pick)], 8),
        Fam("ldsdir", 0xFF000000, 0xCE000000, 1, (20, 2),
            [(0, 0, 8, vgpr_pick), (0, 8, 2, small(4)), (0, 10, 6, small(64)), (0, 16, 4, small(16))], 40),
        Fam("vopd", 0xFC000000, 0xC8000000, 2, (22, 4),
            [(0, 0, 9, V), (0, 9, 8, vgpr_pick), (0, 17, 5, small(32)),
             (1, 0, 9, V), (1, 9, 8, vgpr_pick), (1, 17, 7, small(128)), (1, 24, 8, vgpr_pick)], 96),
        Fam("ds", 0xFC000000, 0xD8000000, 2, (18, 8),
            [(0, 0, 8, lambda rng: rng.choice([0, 0, 1, 16, rbits(rng, 8)])),
             (0, 8, 8, lambda rng: rng.choice([0, 0, 2, rbits(rng, 8)])), (0, 17, 1, bit_rare),
             (1, 0, 8, vgpr_pick), (1, 8, 8, vgpr_pick), (1, 16, 8, vgpr_pick), (1, 24, 8, vgpr_pick)], 8,
            table="DS", slots=[None, None, None, 1, 2, 3, 0]),
        Fam("flat", 0xFC000000, 0xDC000000, 2, (18, 7),
            [(0, 0, 13, lambda rng: rng.choice([0, 0, 16, 0xFFF, 0x1000, 0x1FF0, rbits(rng, 13)])),
             (0, 13, 1, bit_rare), (0, 14, 1, bit_rare), (0, 15, 1, bit_rare),
             (0, 16, 2, lambda rng: rng.choice([0, 1, 2, 2, 3])),
             (1, 0, 8, vgpr_pick), (1, 8, 8, vgpr_pick),
             (1, 16, 7, lambda rng: rng.choice([124, 124, rng.randrange(0, 106), rng.randrange(0, 128)])),
             (1, 23, 1, bit_rare), (1, 24, 8, vgpr_pick)], 20,
            table="GLOBAL", slots=[None] * 7 + [2, None, None, 0]),
        Fam("mubuf", 0xFC000000, 0xE0000000, 2, (18, 8),
            [(0, 0, 12, lambda rng: rng.choice([0, 0, 4, 0xFFF, rbits(rng, 12)])),
             (0, 12, 1, bit_rare), (0, 13, 1, bit_rare), (0, 14, 1, bit_rare),
             (1, 0, 8, vgpr_pick), (1, 8, 8, vgpr_pick), (1, 16, 5, small(32)), (1, 22, 1, bit_rare),
             (1, 23, 1, bit_rare), (1, 24, 8, S)], 8),
        Fam("mtbuf", 0xFC000000, 0xE8000000, 2, (15, 4),
            [(0, 0, 12, lambda rng: rng.choice([0, 0, 4, 0xFFF, rbits(rng, 12)])),
             (0, 12, 1, bit_rare), (0, 13, 1, bit_rare), (0, 14, 1, bit_rare), (0, 19, 7, small(128)),
             (1, 0, 8, vgpr_pick), (1, 8, 8, vgpr_pick), (1, 16, 5, small(32)), (1, 22, 1, bit_rare),
             (1, 23, 1, bit_rare), (1, 24, 8, S)], 48),
        Fam("mimg", 0xFC000000, 0xF0000000, 2, (18, 8),
            [(0, 0, 1, bit_rare), (0, 2, 3, small(8)), (0, 7, 1, bit_rare), (0, 8, 4, small(16)),
             (0, 12, 1, bit_rare), (0, 13, 1, bit_rare), (0, 14, 1, bit_rare), (0, 15, 1, bit_rare),
             (0, 16, 1, bit_rare), (0, 17, 1, bit_rare),
             (1, 0, 8, vgpr_pick), (1, 8, 8, vgpr_pick), (1, 16, 5, small(32)), (1, 21, 5, small(32)),
             (1, 26, 1, bit_rare), (1, 27, 1, bit_rare)], 6, extra=3),
        Fam("exp", 0xFC000000, 0xF8000000, 2, (4, 6),
            [(0, 0, 4, small(16)), (0, 10, 1, bit_rare), (0, 11, 1, bit_rare), (0, 12, 1, bit_rare),
             (1, 0, 8, vgpr_pick), (1, 8, 8, vgpr_pick), (1, 16, 8, vgpr_pick), (1, 24, 8, vgpr_pick)], 8),
    ]
    # DPP forms of the 32-bit VALU encodings: src0 = 250 (DPP16) or 233/234 (DPP8).
    def dpp_tweak(ws, rng, k):
        s0 = (250, 233, 234)[k % 3]
        ws[0] = (ws[0] & ~0x1FF) | s0
    fams.append(Fam("vop1_dpp", 0xFE000000, 0x7E000000, 1, (9, 8), [(0, 17, 8, vgpr_pick)], 6, tweak=dpp_tweak))
    fams.append(Fam("vop2_dpp", 0x80000000, 0, 1, (25, 6),
                    [(0, 9, 8, vgpr_pick), (0, 17, 8, vgpr_pick)], 12, tweak=dpp_tweak, ops=range(0x3E)))
    fams.append(Fam("vopc_dpp", 0xFE000000, 0x7C000000, 1, (17, 8), [(0, 9, 8, vgpr_pick)], 6, tweak=dpp_tweak))

    def vop3_dpp_tweak(ws, rng, k):
        s0 = (250, 233, 234)[k % 3]
        ws[1] = (ws[1] & ~0x1FF) | s0
    fams.append(Fam("vop3_dpp", 0xFC000000, 0xD4000000, 2, (16, 10),
                    [(0, 0, 8, lambda rng: vgpr_pick(rng) if rng.random() < 0.7 else sdst_pick(rng)),
                     (0, 8, 3, mods_pick), (0, 11, 4, opsel_pick), (0, 15, 1, bit_rare),
                     (1, 9, 9, V), (1, 18, 9, V), (1, 27, 2, omod_pick), (1, 29, 3, mods_pick)], 3,
                    tweak=vop3_dpp_tweak, table="VOP3", slots=[None] * 4 + [2, 3, None, None]))
    fams.append(Fam("vop3p_dpp", 0xFF000000, 0xCC000000, 2, (16, 7),
                    [(0, 0, 8, vgpr_pick), (0, 8, 3, mods_pick), (0, 11, 3, mods_pick),
                     (0, 14, 1, lambda rng: 1), (1, 9, 9, V), (1, 18, 9, V), (1, 27, 2, lambda rng: 3),
                     (1, 29, 3, mods_pick)], 6, tweak=vop3_dpp_tweak,
                    # Every opcode, then more samples of the four with DPP forms
                    # (v_dot2_f32_f16 and v_fma_mix*).
                    ops=list(range(128)) + [0x13, 0x20, 0x21, 0x22] * 12))
    return fams


def dpp_extra(f, tests, rng):
    """DPP tests carry the DPP dword as their first extra dword."""
    if not f.name.endswith("_dpp"):
        return tests
    out = []
    for t in tests:
        fixed = t[:f.dwords]
        s0 = fixed[0] & 0x1FF if f.dwords == 1 else fixed[1] & 0x1FF
        d = dpp16_word(rng) if s0 == 250 else dpp8_word(rng)
        out.append(fixed + [d, rng.choice(LITERALS)])
    return out


def llvm(tests):
    """LLVM's verdict per test: (text, dwords) or None (invalid)."""
    stream = bytearray()
    starts = []
    for t in tests:
        starts.append(len(stream))
        for w in t + [SENTINEL] * SENTINELS:
            stream += w.to_bytes(4, "little")
    with tempfile.TemporaryDirectory() as d:
        b, o = os.path.join(d, "s.bin"), os.path.join(d, "s.o")
        open(b, "wb").write(stream)
        subprocess.run(["llvm-objcopy-19", "-I", "binary", "-O", "elf64-x86-64",
                        "--rename-section=.data=.text,code", b, o], check=True)
        out = subprocess.run(["llvm-objdump-19", "-d", "--triple=amdgcn-amd-amdhsa", "--mcpu=gfx1100", o],
                             capture_output=True, text=True, check=True).stdout
    at = {}
    for line in out.splitlines():
        if "//" not in line:
            continue
        text, tail = line.rsplit("//", 1)
        if ":" not in tail:
            continue
        addr, words = tail.split(":", 1)
        try:
            addr = int(addr.strip(), 16)
        except ValueError:
            continue
        words = words.split(";")[0]
        n = 0
        for w in words.split():
            if w.startswith("<"):
                break
            n += 1
        text = text.strip()
        if text.startswith(".long"):
            at[addr] = None
        else:
            m = re.search(r" <[^>]*>$", text)
            if m:
                text = text[:m.start()]
            at[addr] = (" ".join(text.split()), n)
    return [at.get(s, "lost") for s in starts]


def main():
    os.makedirs(OUT, exist_ok=True)
    total = 0
    for i, f in enumerate(families()):
        rng = random.Random(0xA9ED0C7 + i)
        tests = dpp_extra(f, gen(f, rng), rng)
        verdicts = llvm(tests)
        rows, seen = [], set()
        for t, v in zip(tests, verdicts):
            if v == "lost":
                continue
            if v is None:
                ws, text = t, "<invalid>"
            else:
                # A decode may read past the test into the sentinels (e.g. a
                # literal after a VOP3 DPP dword): record what LLVM consumed.
                text, n = v
                ws = (t + [SENTINEL] * SENTINELS)[:n]
            key = tuple(ws)
            if key in seen:
                continue
            seen.add(key)
            rows.append(" ".join("%08x" % w for w in ws) + " ; " + text)
        valid = sum(1 for r in rows if not r.endswith("<invalid>"))
        open(os.path.join(OUT, f.name + ".txt"), "w").write("\n".join(rows) + "\n")
        print("%-10s %6d vectors, %6d valid" % (f.name, len(rows), valid), file=sys.stderr)
        total += len(rows)
    print("total", total, file=sys.stderr)


if __name__ == "__main__":
    main()
