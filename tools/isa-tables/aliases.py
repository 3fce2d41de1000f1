"""The one alias table: GFX9-family (gfx90a, gfx942) mnemonics whose operation
is a gfx11 (or, for gfx942's renamed MFMAs, a gfx90a) operation under another
LLVM name. An alias is listed only when both produce the same result bits
from the same inputs; everything else keeps its own `Op`. A mnemonic spelled
the same on every target is one `Op` without an entry here.

The GFX9 names are those of AMD's "AMD Instinct MI300 (CDNA3) ISA Reference
Guide" and the CDNA2 guide; the gfx11 ones those of the "RDNA3 Instruction Set
Architecture Reference Guide", which renamed the data sizes and the
not/count-bit operations without changing them.
"""

ALIASES = {}


def group(pairs):
    for gfx9, target in pairs:
        assert gfx9 not in ALIASES, gfx9
        ALIASES[gfx9] = target


# Memory data sizes: GFX9 counts dwords and names byte/short loads by
# signedness (dword, dwordx2, ubyte, sshort, ...); RDNA3 names the bit size
# (b32, b64, u8, i16, ...). Same loads and stores, same register layouts.
_SIZES = [
    ("load_dword", "load_b32"), ("load_dwordx2", "load_b64"), ("load_dwordx3", "load_b96"),
    ("load_dwordx4", "load_b128"), ("load_ubyte", "load_u8"), ("load_sbyte", "load_i8"),
    ("load_ushort", "load_u16"), ("load_sshort", "load_i16"),
    ("store_byte", "store_b8"), ("store_short", "store_b16"), ("store_dword", "store_b32"),
    ("store_dwordx2", "store_b64"), ("store_dwordx3", "store_b96"), ("store_dwordx4", "store_b128"),
]
# D16 loads: RDNA3 moves d16 ahead of the size for FLAT/GLOBAL/SCRATCH.
_D16_FLAT = [
    ("load_ubyte_d16", "load_d16_u8"), ("load_ubyte_d16_hi", "load_d16_hi_u8"),
    ("load_sbyte_d16", "load_d16_i8"), ("load_sbyte_d16_hi", "load_d16_hi_i8"),
    ("load_short_d16", "load_d16_b16"), ("load_short_d16_hi", "load_d16_hi_b16"),
    ("store_byte_d16_hi", "store_d16_hi_b8"), ("store_short_d16_hi", "store_d16_hi_b16"),
]
_D16_BUF = [
    ("load_ubyte_d16", "load_d16_u8"), ("load_ubyte_d16_hi", "load_d16_hi_u8"),
    ("load_sbyte_d16", "load_d16_i8"), ("load_sbyte_d16_hi", "load_d16_hi_i8"),
    ("load_short_d16", "load_d16_b16"), ("load_short_d16_hi", "load_d16_hi_b16"),
    ("store_byte_d16_hi", "store_d16_hi_b8"), ("store_short_d16_hi", "store_d16_hi_b16"),
    ("load_format_d16_x", "load_d16_format_x"), ("load_format_d16_xy", "load_d16_format_xy"),
    ("load_format_d16_xyz", "load_d16_format_xyz"), ("load_format_d16_xyzw", "load_d16_format_xyzw"),
    ("load_format_d16_hi_x", "load_d16_hi_format_x"),
    ("store_format_d16_x", "store_d16_format_x"), ("store_format_d16_xy", "store_d16_format_xy"),
    ("store_format_d16_xyz", "store_d16_format_xyz"), ("store_format_d16_xyzw", "store_d16_format_xyzw"),
    ("store_format_d16_hi_x", "store_d16_hi_format_x"),
]
# Vector-memory atomics: GFX9 names the operation and marks 64-bit with _x2;
# RDNA3 adds the type (u32, i32, b64...). cmpswap keeps its {src, cmp} data
# order on both (unlike DS, below).
_ATOMICS = [
    ("swap", "swap_b32"), ("cmpswap", "cmpswap_b32"), ("add", "add_u32"), ("sub", "sub_u32"),
    ("smin", "min_i32"), ("umin", "min_u32"), ("smax", "max_i32"), ("umax", "max_u32"),
    ("and", "and_b32"), ("or", "or_b32"), ("xor", "xor_b32"), ("inc", "inc_u32"), ("dec", "dec_u32"),
    ("swap_x2", "swap_b64"), ("cmpswap_x2", "cmpswap_b64"), ("add_x2", "add_u64"),
    ("sub_x2", "sub_u64"), ("smin_x2", "min_i64"), ("umin_x2", "min_u64"), ("smax_x2", "max_i64"),
    ("umax_x2", "max_u64"), ("and_x2", "and_b64"), ("or_x2", "or_b64"), ("xor_x2", "xor_b64"),
    ("inc_x2", "inc_u64"), ("dec_x2", "dec_u64"),
]
for _prefix in ("flat", "global", "scratch", "buffer"):
    group((f"{_prefix}_{a}", f"{_prefix}_{b}") for a, b in _SIZES)
    group((f"{_prefix}_{a}", f"{_prefix}_{b}") for a, b in (_D16_BUF if _prefix == "buffer" else _D16_FLAT))
    if _prefix != "scratch":
        group((f"{_prefix}_atomic_{a}", f"{_prefix}_atomic_{b}") for a, b in _ATOMICS)
# MTBUF has the d16 format forms but no d16_hi one.
group((f"tbuffer_{a}", f"tbuffer_{b}") for a, b in _D16_BUF if "format" in a and "_hi_" not in a)

# Scalar loads: dword counts vs bit sizes.
group([
    ("s_load_dword", "s_load_b32"), ("s_load_dwordx2", "s_load_b64"), ("s_load_dwordx4", "s_load_b128"),
    ("s_load_dwordx8", "s_load_b256"), ("s_load_dwordx16", "s_load_b512"),
    ("s_buffer_load_dword", "s_buffer_load_b32"), ("s_buffer_load_dwordx2", "s_buffer_load_b64"),
    ("s_buffer_load_dwordx4", "s_buffer_load_b128"), ("s_buffer_load_dwordx8", "s_buffer_load_b256"),
    ("s_buffer_load_dwordx16", "s_buffer_load_b512"),
])

# LDS: GFX9 read/write are RDNA3's load/store; read2/write2 its 2addr forms,
# st64 its stride64, wrxchg its storexchg. (ds_cmpst_* is not ds_cmpstore_*:
# RDNA3 swapped which data operand is the comparand.)
group([
    ("ds_read_b32", "ds_load_b32"), ("ds_read_b64", "ds_load_b64"), ("ds_read_b96", "ds_load_b96"),
    ("ds_read_b128", "ds_load_b128"), ("ds_read_u8", "ds_load_u8"), ("ds_read_i8", "ds_load_i8"),
    ("ds_read_u16", "ds_load_u16"), ("ds_read_i16", "ds_load_i16"),
    ("ds_read_u8_d16", "ds_load_u8_d16"), ("ds_read_u8_d16_hi", "ds_load_u8_d16_hi"),
    ("ds_read_i8_d16", "ds_load_i8_d16"), ("ds_read_i8_d16_hi", "ds_load_i8_d16_hi"),
    ("ds_read_u16_d16", "ds_load_u16_d16"), ("ds_read_u16_d16_hi", "ds_load_u16_d16_hi"),
    ("ds_read2_b32", "ds_load_2addr_b32"), ("ds_read2_b64", "ds_load_2addr_b64"),
    ("ds_read2st64_b32", "ds_load_2addr_stride64_b32"), ("ds_read2st64_b64", "ds_load_2addr_stride64_b64"),
    ("ds_read_addtid_b32", "ds_load_addtid_b32"),
    ("ds_write_b8", "ds_store_b8"), ("ds_write_b16", "ds_store_b16"), ("ds_write_b32", "ds_store_b32"),
    ("ds_write_b64", "ds_store_b64"), ("ds_write_b96", "ds_store_b96"), ("ds_write_b128", "ds_store_b128"),
    ("ds_write_b8_d16_hi", "ds_store_b8_d16_hi"), ("ds_write_b16_d16_hi", "ds_store_b16_d16_hi"),
    ("ds_write2_b32", "ds_store_2addr_b32"), ("ds_write2_b64", "ds_store_2addr_b64"),
    ("ds_write2st64_b32", "ds_store_2addr_stride64_b32"), ("ds_write2st64_b64", "ds_store_2addr_stride64_b64"),
    ("ds_write_addtid_b32", "ds_store_addtid_b32"),
    ("ds_wrxchg_rtn_b32", "ds_storexchg_rtn_b32"), ("ds_wrxchg_rtn_b64", "ds_storexchg_rtn_b64"),
    ("ds_wrxchg2_rtn_b32", "ds_storexchg_2addr_rtn_b32"), ("ds_wrxchg2_rtn_b64", "ds_storexchg_2addr_rtn_b64"),
    ("ds_wrxchg2st64_rtn_b32", "ds_storexchg_2addr_stride64_rtn_b32"),
    ("ds_wrxchg2st64_rtn_b64", "ds_storexchg_2addr_stride64_rtn_b64"),
])

# SALU: RDNA3 spells andn2/orn2 as and_not1/or_not1 (andn1/orn1: not0), and
# the find-first-bit ops by what they count (ff1 = ctz, flbit = clz/cls).
group([
    ("s_andn2_b32", "s_and_not1_b32"), ("s_andn2_b64", "s_and_not1_b64"),
    ("s_orn2_b32", "s_or_not1_b32"), ("s_orn2_b64", "s_or_not1_b64"),
    ("s_andn2_saveexec_b64", "s_and_not1_saveexec_b64"), ("s_orn2_saveexec_b64", "s_or_not1_saveexec_b64"),
    ("s_andn1_saveexec_b64", "s_and_not0_saveexec_b64"), ("s_orn1_saveexec_b64", "s_or_not0_saveexec_b64"),
    ("s_andn1_wrexec_b64", "s_and_not0_wrexec_b64"), ("s_andn2_wrexec_b64", "s_and_not1_wrexec_b64"),
    ("s_ff1_i32_b32", "s_ctz_i32_b32"), ("s_ff1_i32_b64", "s_ctz_i32_b64"),
    ("s_flbit_i32_b32", "s_clz_i32_u32"), ("s_flbit_i32_b64", "s_clz_i32_u64"),
    ("s_flbit_i32", "s_cls_i32"), ("s_flbit_i32_i64", "s_cls_i32_i64"),
])

# VALU integer adds: GFX9's carry-less v_add_u32/v_sub_u32 (VOP2 0x34..) are
# RDNA3's _nc_ forms; its carry forms (_co_, carry-in addc/subb) are
# RDNA3's _co_ / _co_ci_ forms; the VOP3 signed/16-bit adds likewise.
group([
    ("v_add_u32", "v_add_nc_u32"), ("v_sub_u32", "v_sub_nc_u32"), ("v_subrev_u32", "v_subrev_nc_u32"),
    ("v_addc_co_u32", "v_add_co_ci_u32"), ("v_subb_co_u32", "v_sub_co_ci_u32"),
    ("v_subbrev_co_u32", "v_subrev_co_ci_u32"),
    ("v_add_i32", "v_add_nc_i32"), ("v_sub_i32", "v_sub_nc_i32"),
    ("v_add_u16", "v_add_nc_u16"), ("v_sub_u16", "v_sub_nc_u16"),
    ("v_add_i16", "v_add_nc_i16"), ("v_sub_i16", "v_sub_nc_i16"),
])

# VALU conversions and bit counts RDNA3 renamed: flr/rpi are floor/nearest,
# pkrtz/pknorm are pk_rtz/pk_norm, ffbh/ffbl are clz/ctz/cls, and the
# legacy (DX9) multiply is mul_dx9_zero.
group([
    ("v_cvt_flr_i32_f32", "v_cvt_floor_i32_f32"), ("v_cvt_rpi_i32_f32", "v_cvt_nearest_i32_f32"),
    ("v_cvt_pkrtz_f16_f32", "v_cvt_pk_rtz_f16_f32"),
    ("v_cvt_pknorm_i16_f32", "v_cvt_pk_norm_i16_f32"), ("v_cvt_pknorm_u16_f32", "v_cvt_pk_norm_u16_f32"),
    ("v_cvt_pknorm_i16_f16", "v_cvt_pk_norm_i16_f16"), ("v_cvt_pknorm_u16_f16", "v_cvt_pk_norm_u16_f16"),
    ("v_ffbh_u32", "v_clz_i32_u32"), ("v_ffbl_b32", "v_ctz_i32_b32"), ("v_ffbh_i32", "v_cls_i32"),
    ("v_mul_legacy_f32", "v_mul_dx9_zero_f32"),
])

# gfx942 renamed gfx90a's MFMAs (block count and type spelled out; the bf16
# "_1k" forms became the only bf16 forms) at the same opcodes, same results.
group([
    ("v_mfma_f32_32x32x1_2b_f32", "v_mfma_f32_32x32x1f32"), ("v_mfma_f32_16x16x1_4b_f32", "v_mfma_f32_16x16x1f32"),
    ("v_mfma_f32_4x4x1_16b_f32", "v_mfma_f32_4x4x1f32"), ("v_mfma_f32_32x32x2_f32", "v_mfma_f32_32x32x2f32"),
    ("v_mfma_f32_16x16x4_f32", "v_mfma_f32_16x16x4f32"),
    ("v_mfma_f32_32x32x4_2b_f16", "v_mfma_f32_32x32x4f16"), ("v_mfma_f32_16x16x4_4b_f16", "v_mfma_f32_16x16x4f16"),
    ("v_mfma_f32_4x4x4_16b_f16", "v_mfma_f32_4x4x4f16"), ("v_mfma_f32_32x32x8_f16", "v_mfma_f32_32x32x8f16"),
    ("v_mfma_f32_16x16x16_f16", "v_mfma_f32_16x16x16f16"),
    ("v_mfma_i32_32x32x4_2b_i8", "v_mfma_i32_32x32x4i8"), ("v_mfma_i32_16x16x4_4b_i8", "v_mfma_i32_16x16x4i8"),
    ("v_mfma_i32_4x4x4_16b_i8", "v_mfma_i32_4x4x4i8"),
    ("v_mfma_f32_32x32x4_2b_bf16", "v_mfma_f32_32x32x4bf16_1k"),
    ("v_mfma_f32_16x16x4_4b_bf16", "v_mfma_f32_16x16x4bf16_1k"),
    ("v_mfma_f32_4x4x4_16b_bf16", "v_mfma_f32_4x4x4bf16_1k"),
    ("v_mfma_f32_32x32x8_bf16", "v_mfma_f32_32x32x8bf16_1k"),
    ("v_mfma_f32_16x16x16_bf16", "v_mfma_f32_16x16x16bf16_1k"),
    ("v_mfma_f64_16x16x4_f64", "v_mfma_f64_16x16x4f64"), ("v_mfma_f64_4x4x4_4b_f64", "v_mfma_f64_4x4x4f64"),
])


def canonical(name, known):
    """The operation name of GFX9 base mnemonic `name`; `known` is the set of
    names an alias may point at (gfx11's and gfx90a's)."""
    target = ALIASES.get(name)
    if target is None:
        return name
    assert target in known, "alias %s -> %s: no such operation" % (name, target)
    return target
