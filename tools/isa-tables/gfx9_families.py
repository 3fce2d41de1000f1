"""Opcode probes for the GFX9-family compute encodings (gfx90a, gfx942).

Each entry is what generate.py's `family` takes: the family name, the size of
its opcode space, a function giving candidate words per opcode (the first one
llvm-mc-19 accepts wins) and the register numbers of the operand slots, read
back as widths. Field layouts: AMD "AMD Instinct MI300 (CDNA3) ISA Reference
Guide" and the CDNA2 guide, chapter "Microcode Formats". Register numbers are
the gfx11 generator's: dst 8, src0 12, src1 16, src2 20 (memory: vdst 8,
address 12, data0 16, data1 20).
"""


def V(n):
    return 256 + n


def families(family):
    out = []
    # SOP2 [31:30]=2, op [29:23]; ops 0x60.. are SOPK/SOP1/SOPC/SOPP words.
    out.append(family("SOP2", 0x60, lambda op: [[0x80000000 | op << 23 | 8 << 16 | 16 << 8 | 12]], [8, 12, 16, None, None]))
    out.append(family("SOP1", 256, lambda op: [[0xBE800000 | 8 << 16 | op << 8 | 12], [0xBE800000 | 8 << 16 | op << 8 | 0],
                                               [0xBE800000 | 0 << 16 | op << 8 | 12], [0xBE800000 | op << 8]], [8, 12, None, None, None]))
    # SOPK [31:28]=0xB, op [27:23]; ops 0x1D.. are SOP1/SOPC/SOPP words.
    out.append(family("SOPK", 0x1D, lambda op: [[0xB0000000 | op << 23 | 8 << 16 | 0x1234], [0xB0000000 | op << 23 | 8 << 16 | 0x1234, 0x5678]],
                      [8, None, None, None, None]))
    out.append(family("SOPC", 128, lambda op: [[0xBF000000 | op << 16 | 16 << 8 | 12]], [None, 12, 16, None, None]))
    out.append(family("SOPP", 128, lambda op: [[0xBF800000 | op << 16 | 3], [0xBF800000 | op << 16]], [None] * 5))
    # SMEM [31:26]=0x30, op [25:18], imm [17], sdata [12:6], sbase [5:0] (pairs).
    out.append(family("SMEM", 256, lambda op: [[0xC0000000 | op << 18 | 1 << 17 | 8 << 6 | 6, 0x10], [0xC0000000 | op << 18 | 1 << 17 | 6, 0x10],
                                               [0xC0000000 | op << 18 | 1 << 17, 0x10], [0xC0000000 | op << 18 | 1 << 17 | 8 << 6, 0x10],
                                               [0xC0000000 | op << 18 | 8 << 6, 0], [0xC0000000 | op << 18, 0]],
                      [8, None, None, None, None]))
    out.append(family("VOP1", 256, lambda op: [[0x7E000000 | 8 << 17 | op << 9 | V(12)], [0x7E000000 | 8 << 17 | op << 9 | 12],
                                               [0x7E000000 | op << 9]], [8, 12, None, None, None]))
    # VOP2 op [30:25]; 0x3E/0x3F are VOPC/VOP1 words.
    out.append(family("VOP2", 0x3E, lambda op: [[op << 25 | 8 << 17 | 16 << 9 | V(12)], [op << 25 | 8 << 17 | 16 << 9 | V(12), 0x40000000]],
                      [8, 12, 16, None, None]))
    out.append(family("VOPC", 256, lambda op: [[0x7C000000 | op << 17 | 16 << 9 | V(12)], [0x7C000000 | op << 17 | 16 << 9 | 12]],
                      [None, 12, 16, None, None]))

    # VOP3 [31:26]=0x34, op [25:16]; ops 0x380.. are VOP3P words ([31:23]=0x1A7).
    def vop3(op):
        d0 = 0xD0000000 | op << 16 | 8
        c = []
        for s2 in (V(20), 20, 0):
            for s1 in (V(16), 16, 0):
                for s0 in (V(12), 12):
                    c.append([d0, s2 << 18 | s1 << 9 | s0])
        c.sort(key=lambda ws: -sum(1 for f in (ws[1] >> 18, (ws[1] >> 9) & 511) if f))
        return c
    out.append(family("VOP3", 0x380, vop3, [8, 12, 16, 20, 0]))

    # VOP3P [31:23]=0x1A7, op [22:16]. MAI (MFMA) opcodes share the space;
    # their acc bits [28:27] select AGPR sources, acc_cd [15] AGPR dst/src2.
    def vop3p(op):
        d0 = 0xD3800000 | op << 16 | 8
        c = []
        for s2 in (V(20), 0):
            c.append([d0 | 1 << 14, 3 << 27 | s2 << 18 | V(16) << 9 | V(12)])
            c.append([d0, s2 << 18 | V(16) << 9 | V(12)])
        c.append([d0, V(12)])
        c.append([d0, 12])
        return c
    out.append(family("VOP3P", 128, vop3p, [8, 12, 16, 20, None]))

    # DS [31:26]=0x36, op [24:17]; dword1 vdst [31:24], data1 [23:16], data0 [15:8], addr [7:0].
    def ds(op):
        c = []
        for vd in (8, 0):
            for d1 in (20, 0):
                for d0 in (16, 0):
                    for a in (12, 0):
                        c.append([0xD8000000 | op << 17, vd << 24 | d1 << 16 | d0 << 8 | a])
        c.sort(key=lambda ws: -sum(1 for f in (ws[1] >> 24, (ws[1] >> 16) & 255, (ws[1] >> 8) & 255, ws[1] & 255) if f))
        return c
    out.append(family("DS", 256, ds, [8, 12, 16, 20, None]))

    # FLAT [31:26]=0x37, op [24:18], seg [15:14]; dword1 vdst [31:24],
    # saddr [22:16] (0x7F = off), data [15:8], addr [7:0].
    for seg, nm in ((0, "FLAT"), (1, "SCRATCH"), (2, "GLOBAL")):
        def fl(op, seg=seg):
            d0 = 0xDC000000 | op << 18 | seg << 14
            c = []
            off = 0 if seg == 0 else 0x7F  # FLAT has no saddr: the field is 0.
            for vd in (8, 0):
                for dat in (16, 0):
                    for addr in (12, 0):
                        c.append([d0, vd << 24 | off << 16 | dat << 8 | addr])
            # Scratch with an SGPR address (saddr s2, no vaddr).
            for vd in (8, 0):
                for dat in (16, 0):
                    c.append([d0, vd << 24 | 2 << 16 | dat << 8])
            c.sort(key=lambda ws: -sum(1 for f in (ws[1] >> 24, (ws[1] >> 8) & 255, ws[1] & 255) if f))
            return c
        out.append(family(nm, 128, fl, [8, 12, 16, None, None]))

    # MUBUF [31:26]=0x38, op [24:18], offen [12]; dword1 vdata [15:8], vaddr [7:0].
    out.append(family("MUBUF", 128, lambda op: [[0xE0000000 | op << 18 | 1 << 12, 0x80010000 | 8 << 8 | 12],
                                                [0xE0000000 | op << 18, 0x80010000 | 8 << 8 | 12],
                                                [0xE0000000 | op << 18, 0x80010000]], [8, 12, None, None, None]))
    # MTBUF [31:26]=0x3A, op [18:15], dfmt [22:19] (1 = BUF_DATA_FORMAT_8).
    out.append(family("MTBUF", 16, lambda op: [[0xE8000000 | 1 << 19 | op << 15 | 1 << 12, 0x80010000 | 8 << 8 | 12]],
                      [8, 12, None, None, None]))
    return out
