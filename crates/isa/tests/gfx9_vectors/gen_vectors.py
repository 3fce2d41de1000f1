#!/usr/bin/env python3
"""Generates the GFX9 decoder's differential vectors, <target>/<family>.txt
for the targets gfx90a and gfx942.

For every GFX9 encoding family, every value of its opcode field (valid or
not) is combined with deterministically sampled operand fields: registers of
every kind (SGPRs, FLAT_SCRATCH/XNACK_MASK/VCC/TTMP/M0/EXEC, VGPRs up to
v255, AGPRs through the acc bits), inline integer and float constants,
literals, the reserved operand codes, modifiers, MFMA controls (cbsz, abid,
blgp), DPP and SDWA controls, offsets, cache bits, and random bits in
reserved fields. LLVM 19's disassembler decides what each word is, as for
gfx11 (tests/isa_vectors/gen_vectors.py): the tests are laid out in one
stream, each followed by `s_nop 0` sentinels, wrapped into an ELF `.text`
and disassembled by llvm-objdump-19 --mcpu=<target>.

Each output line is `DWORDS ; TEXT`: for a valid encoding DWORDS are exactly
the dwords LLVM consumed and TEXT its disassembly (whitespace collapsed,
branch-target annotations removed); for an invalid one DWORDS are the whole
test and TEXT is `<invalid>`. tests/gfx9_decode.rs requires the same text for
every valid line and a typed decode error for every invalid one.

Field layouts: AMD "AMD Instinct MI300 (CDNA3) ISA Reference Guide" and the
CDNA2 guide, chapter "Microcode Formats".

Usage: python3 gen_vectors.py   (needs llvm-objcopy-19, llvm-objdump-19)
"""
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TARGETS = ("gfx90a", "gfx942")
SENTINEL = 0xBF800000  # s_nop 0 (GFX9 has no s_code_end)
SENTINELS = 5

SGPRS = list(range(0, 102))
SPECIAL_S = [102, 103, 104, 105, 106, 107, 124, 125, 126, 127] + list(range(108, 124))
INLINE_INT = [128, 129, 130, 144, 192, 193, 200, 208]
RESERVED_S = [209, 220, 230, 233, 234, 239, 249, 250, 254]
APERTURE = [235, 236, 237, 238]
FLOATS = list(range(240, 249))
CONDS = [251, 252, 253]
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


def vgpr_pick(rng):
    return rng.randrange(0, 256) if rng.random() < 0.3 else rng.randrange(0, 24)


def vsrc_pick(rng):
    if rng.random() < 0.45:
        return 256 + vgpr_pick(rng)
    return ssrc_pick(rng)


def sdst_pick(rng):
    if rng.random() < 0.6:
        return rng.randrange(0, 102)
    return rng.choice(SPECIAL_S + [rng.randrange(0, 128)])


def load_widths(target):
    """Operand widths per opcode from the decoder's generated tables, so
    unused operand fields can mostly be left zero (LLVM rejects junk in most)."""
    path = os.path.join(HERE, "..", "..", "src", "gfx9", "opcodes", target + ".rs")
    src = open(path).read()
    tables = {}
    for m in re.finditer(r"pub static (\w+): \[Option<OpInfo>; \d+\] = \[(.*?)\n\];", src, re.S):
        rows = []
        for e in re.finditer(r"None|Some\(OpInfo \{.*?widths: \[([\d, ]+)\]", m.group(2), re.S):
            rows.append([int(x) for x in e.group(1).split(",")] if e.group(1) else None)
        tables[m.group(1)] = rows
    return tables


def rbits(rng, n):
    return rng.getrandbits(n)


def put(ws, dw, lo, width, v):
    m = ((1 << width) - 1) << lo
    ws[dw] = (ws[dw] & ~m & 0xFFFFFFFF) | ((v << lo) & m)


class Fam:
    """name, fixed (mask, value) of dword 0, dword count, opcode field (lo, width),
    fields [(dword, lo, width, picker)], tests per opcode; `table`/`slots` tie
    fields to operand width slots (a field of an absent operand stays zero)."""

    def __init__(self, name, mask, value, dwords, op, fields, per_op, extra=1, tweak=None, ops=None,
                 table=None, slots=None):
        self.name, self.mask, self.value, self.dwords = name, mask, value, dwords
        self.op, self.fields, self.per_op, self.extra = op, fields, per_op, extra
        self.tweak, self.ops, self.table, self.slots = tweak, ops, table, slots


def gen(f, rng, widths):
    tests = []
    oplo, opw = f.op
    ops = f.ops if f.ops is not None else range(1 << opw)
    for op in ops:
        for k in range(f.per_op):
            junk = rng.random() < 0.1
            ws = [rbits(rng, 32) for _ in range(f.dwords)] if junk else [0] * f.dwords
            table = widths.get(f.table, []) if f.table else []
            row = table[op] if op < len(table) else None
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


def bit_rare(rng):
    return 1 if rng.random() < 0.25 else 0


def mods_pick(rng):
    return 0 if rng.random() < 0.5 else rbits(rng, 3)


def dpp_word(rng):
    """GFX9 DPP dword: src0 [7:0], dpp_ctrl [16:8], bound_ctrl [19],
    src0_neg/abs, src1_neg/abs [23:20], bank_mask [27:24], row_mask [31:28]."""
    ctrl = rng.choice([rbits(rng, 8), 0xE4, 0x101 + rng.randrange(15), 0x111 + rng.randrange(15),
                       0x121 + rng.randrange(15), 0x130, 0x134, 0x138, 0x13C, 0x140, 0x141, 0x142, 0x143,
                       rbits(rng, 9)])
    w = vgpr_pick(rng) | ctrl << 8
    if rng.random() < 0.3:
        w |= rbits(rng, 6) << 18
    w |= (0xF if rng.random() < 0.6 else rbits(rng, 4)) << 24
    w |= (0xF if rng.random() < 0.6 else rbits(rng, 4)) << 28
    return w


def sdwa_word(rng, vopc):
    """GFX9 SDWA dword: src0 [7:0], dst_sel [10:8], dst_unused [12:11],
    clamp [13], omod [15:14] (VOPC: sdst [14:8], sd [15]), src0_sel [18:16],
    src0_sext/neg/abs [21:19], s0 [23], src1_sel [26:24], src1_sext/neg/abs
    [29:27], s1 [31]."""
    sel = lambda: rng.choice([6, 6, rng.randrange(8)])
    w = (vgpr_pick(rng) if rng.random() < 0.8 else rng.randrange(256))
    if vopc:
        if rng.random() < 0.5:
            w |= sdst_pick(rng) << 8 | 1 << 15
    else:
        w |= sel() << 8 | rng.choice([0, 0, 1, 2, 3]) << 11
        if rng.random() < 0.3:
            w |= rbits(rng, 3) << 13
    w |= sel() << 16 | sel() << 24
    if rng.random() < 0.4:
        w |= rbits(rng, 3) << 19
    if rng.random() < 0.4:
        w |= rbits(rng, 3) << 27
    if rng.random() < 0.3:
        w |= 1 << 23
    if rng.random() < 0.2:
        w |= 1 << 31
    return w


def families():
    S, V = ssrc_pick, vsrc_pick
    fams = [
        Fam("sop2", 0xC0000000, 0x80000000, 1, (23, 7),
            [(0, 0, 8, S), (0, 8, 8, S), (0, 16, 7, sdst_pick)], 14, ops=range(0x60),
            table="SOP2", slots=[1, 2, 0]),
        Fam("sopk", 0xF0000000, 0xB0000000, 1, (23, 5),
            [(0, 16, 7, sdst_pick), (0, 0, 16, any_bits(16))], 24, ops=range(0x1D)),
        Fam("sop1", 0xFF800000, 0xBE800000, 1, (8, 8),
            [(0, 0, 8, S), (0, 16, 7, sdst_pick)], 8, table="SOP1", slots=[1, 0]),
        Fam("sopc", 0xFF800000, 0xBF000000, 1, (16, 7), [(0, 0, 8, S), (0, 8, 8, S)], 10),
        Fam("sopp", 0xFF800000, 0xBF800000, 1, (16, 7),
            [(0, 0, 16, lambda rng: rng.choice([0, 1, 3, 7, 0x3F, 0xFFFF, 0xFC07, rbits(rng, 16), rbits(rng, 6)]))], 12),
        Fam("smem", 0xFC000000, 0xC0000000, 2, (18, 8),
            [(0, 0, 6, small(64)), (0, 6, 7, sdst_pick), (0, 14, 1, bit_rare), (0, 15, 1, bit_rare),
             (0, 16, 1, bit_rare), (0, 17, 1, lambda rng: 1 if rng.random() < 0.7 else 0),
             (1, 0, 21, lambda rng: rng.choice([0, 4, 0x2C, 0xFFFFF, 0x1FFFF0, 0x100000, rbits(rng, 21)])),
             (1, 25, 7, lambda rng: rng.randrange(0, 128))], 8),
        Fam("vop1", 0xFE000000, 0x7E000000, 1, (9, 8),
            [(0, 0, 9, V), (0, 17, 8, vgpr_pick)], 10, table="VOP1", slots=[1, 0]),
        Fam("vop2", 0x80000000, 0x00000000, 1, (25, 6),
            [(0, 0, 9, V), (0, 9, 8, vgpr_pick), (0, 17, 8, vgpr_pick)], 24, ops=range(0x3E)),
        Fam("vopc", 0xFE000000, 0x7C000000, 1, (17, 8), [(0, 0, 9, V), (0, 9, 8, vgpr_pick)], 8),
        Fam("vop3", 0xFC000000, 0xD0000000, 2, (16, 10),
            [(0, 0, 8, lambda rng: vgpr_pick(rng) if rng.random() < 0.7 else sdst_pick(rng)),
             (0, 8, 3, mods_pick), (0, 11, 4, lambda rng: 0 if rng.random() < 0.6 else rbits(rng, 4)),
             (0, 15, 1, bit_rare),
             (1, 0, 9, V), (1, 9, 9, V), (1, 18, 9, V),
             (1, 27, 2, lambda rng: 0 if rng.random() < 0.6 else rbits(rng, 2)), (1, 29, 3, mods_pick)], 6,
            ops=range(0x380), table="VOP3", slots=[None] * 4 + [1, 2, 3, None, None]),
        Fam("vop3p", 0xFF800000, 0xD3800000, 2, (16, 7),
            [(0, 0, 8, vgpr_pick), (0, 8, 3, mods_pick), (0, 11, 3, mods_pick),
             (0, 14, 1, lambda rng: 1 if rng.random() < 0.7 else 0), (0, 15, 1, bit_rare),
             (1, 0, 9, V), (1, 9, 9, V), (1, 18, 9, V),
             (1, 27, 2, lambda rng: 3 if rng.random() < 0.6 else rbits(rng, 2)), (1, 29, 3, mods_pick)], 14,
            table="VOP3P", slots=[None] * 5 + [1, 2, 3, None, None]),
        Fam("ds", 0xFC000000, 0xD8000000, 2, (17, 8),
            [(0, 0, 8, lambda rng: rng.choice([0, 0, 1, 16, rbits(rng, 8)])),
             (0, 8, 8, lambda rng: rng.choice([0, 0, 2, rbits(rng, 8)])), (0, 16, 1, bit_rare), (0, 25, 1, bit_rare),
             (1, 0, 8, vgpr_pick), (1, 8, 8, vgpr_pick), (1, 16, 8, vgpr_pick), (1, 24, 8, vgpr_pick)], 8,
            table="DS", slots=[None, None, None, None, 1, 2, 3, 0]),
        Fam("flat", 0xFC000000, 0xDC000000, 2, (18, 7),
            [(0, 0, 13, lambda rng: rng.choice([0, 0, 16, 0xFFF, 0x1000, 0x1FF0, rbits(rng, 13)])),
             (0, 13, 1, bit_rare), (0, 14, 2, lambda rng: rng.choice([0, 1, 2, 2, 3])),
             (0, 16, 1, bit_rare), (0, 17, 1, bit_rare), (0, 25, 1, bit_rare),
             (1, 0, 8, vgpr_pick), (1, 8, 8, vgpr_pick),
             (1, 16, 7, lambda rng: rng.choice([0x7F, 0x7F, 0, rng.randrange(0, 102), rng.randrange(0, 128)])),
             (1, 23, 1, bit_rare), (1, 24, 8, vgpr_pick)], 24),
        Fam("mubuf", 0xFC000000, 0xE0000000, 2, (18, 7),
            [(0, 0, 12, lambda rng: rng.choice([0, 0, 4, 0xFFF, rbits(rng, 12)])),
             (0, 12, 1, bit_rare), (0, 13, 1, bit_rare), (0, 14, 1, bit_rare), (0, 15, 1, bit_rare),
             (0, 16, 1, lambda rng: 1 if rng.random() < 0.1 else 0), (0, 17, 1, bit_rare), (0, 25, 1, bit_rare),
             (1, 0, 8, vgpr_pick), (1, 8, 8, vgpr_pick), (1, 16, 5, small(32)), (1, 23, 1, bit_rare),
             (1, 24, 8, S)], 10),
        Fam("mtbuf", 0xFC000000, 0xE8000000, 2, (15, 4),
            [(0, 0, 12, lambda rng: rng.choice([0, 0, 4, 0xFFF, rbits(rng, 12)])),
             (0, 12, 1, bit_rare), (0, 13, 1, bit_rare), (0, 14, 1, bit_rare),
             (0, 19, 4, small(16)), (0, 23, 3, small(8)),
             (1, 0, 8, vgpr_pick), (1, 8, 8, vgpr_pick), (1, 16, 5, small(32)), (1, 22, 1, bit_rare),
             (1, 23, 1, bit_rare), (1, 24, 8, S)], 48),
    ]

    def src0_tweak(code):
        def tweak(ws, rng, k):
            ws[0] = (ws[0] & ~0x1FF) | code
        return tweak
    for code, kind in ((250, "dpp"), (249, "sdwa")):
        t = src0_tweak(code)
        fams.append(Fam("vop1_" + kind, 0xFE000000, 0x7E000000, 1, (9, 8), [(0, 17, 8, vgpr_pick)], 6, tweak=t))
        fams.append(Fam("vop2_" + kind, 0x80000000, 0, 1, (25, 6),
                        [(0, 9, 8, vgpr_pick), (0, 17, 8, vgpr_pick)], 10, tweak=t, ops=range(0x3E)))
        fams.append(Fam("vopc_" + kind, 0xFE000000, 0x7C000000, 1, (17, 8), [(0, 9, 8, vgpr_pick)], 4, tweak=t))
    return fams


def second_dword(f, tests, rng):
    """DPP/SDWA tests carry their control dword as their first extra dword."""
    if not f.name.endswith(("_dpp", "_sdwa")):
        return tests
    out = []
    for t in tests:
        d = dpp_word(rng) if f.name.endswith("_dpp") else sdwa_word(rng, f.name.startswith("vopc"))
        out.append(t[:f.dwords] + [d, rng.choice(LITERALS)])
    return out


def llvm(tests, target):
    """LLVM's verdict per test: (text, dwords), None (invalid) or "lost".
    llvm-objdump-19 crashes on a few GFX9 words; a batch that crashes is
    split until the crashing tests stand alone, and those are left out."""
    try:
        return llvm_batch(tests, target)
    except subprocess.CalledProcessError:
        if len(tests) == 1:
            return ["lost"]
        half = len(tests) // 2
        return llvm(tests[:half], target) + llvm(tests[half:], target)


def llvm_batch(tests, target):
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
        out = subprocess.run(["llvm-objdump-19", "-d", "--triple=amdgcn-amd-amdhsa", "--mcpu=" + target, o],
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
        n = 0
        for w in words.split(";")[0].split():
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
    total = 0
    for ti, target in enumerate(TARGETS):
        out_dir = os.path.join(HERE, target)
        os.makedirs(out_dir, exist_ok=True)
        widths = load_widths(target)
        for i, f in enumerate(families()):
            rng = random.Random(0x9F90A + 1000 * ti + i)
            tests = second_dword(f, gen(f, rng, widths), rng)
            verdicts = llvm(tests, target)
            rows, seen = [], set()
            for t, v in zip(tests, verdicts):
                if v == "lost":
                    continue
                if v is None:
                    ws, text = t, "<invalid>"
                else:
                    text, n = v
                    ws = (t + [SENTINEL] * SENTINELS)[:n]
                key = tuple(ws)
                if key in seen:
                    continue
                seen.add(key)
                rows.append(" ".join("%08x" % w for w in ws) + " ; " + text)
            valid = sum(1 for r in rows if not r.endswith("<invalid>"))
            open(os.path.join(out_dir, f.name + ".txt"), "w").write("\n".join(rows) + "\n")
            print("%-7s %-10s %6d vectors, %6d valid" % (target, f.name, len(rows), valid), file=sys.stderr)
            total += len(rows)
    print("total", total, file=sys.stderr)


if __name__ == "__main__":
    main()
