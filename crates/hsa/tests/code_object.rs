//! Code-object loader tests against the checked-in kernels (kernels/): every
//! expected number below was read with LLVM's own tools (`llvm-readelf-19
//! --notes`, `--dyn-syms`, `-l`, `-r` and `llvm-objdump-19 -s -j .rodata`) when
//! the kernels were built, so the loader is checked against an independent
//! reader. Also: image loading and relocations, ISA names, kernarg layout.

use aqueduct_hsa::code_object::{
    AddressSpace, ArgLabel, ArgRef, CodeObject, CodeObjectError, DispatchShape, DispatchShapeError,
    IsaName, KernargBuilder, MetadataError, MetadataNode, MetadataType, MsgpackShapeError,
    RelocationFault, TargetFeature, TruncatedPart, Unsupported, ValueKind,
};
use aqueduct_test_support::repo::kernel as kernel_file;

fn parse_err(bytes: &[u8]) -> CodeObjectError {
    match CodeObject::parse(bytes) {
        Ok(_) => panic!("parse succeeded"),
        Err(e) => e,
    }
}

fn load(path: &str) -> CodeObject {
    CodeObject::parse(&kernel_file(path)).unwrap_or_else(|e| panic!("parse {path}: {e}"))
}

type ExpectedArg = (
    Option<&'static str>,
    u32,
    u32,
    &'static str,
    Option<&'static str>,
);

struct Expected {
    gfx: &'static str,
    kernel: &'static str,
    kd_offset: u64,
    kd_kernarg_size: u32,
    kd_group: u32,
    kd_private: u32,
    entry: i64,
    rsrc1: u32,
    rsrc2: u32,
    rsrc3: u32,
    kcp: u16,
    kernarg_size: u32,
    kernarg_align: u32,
    group: u32,
    private: u32,
    wavefront: u32,
    sgprs: u32,
    vgprs: u32,
    sgpr_spills: u32,
    vgpr_spills: u32,
    max_flat: u32,
    dynamic_stack: bool,
    reqd: Option<[u32; 3]>,
    args: &'static [ExpectedArg],
}

// Generated from llvm-readelf-19 --notes / --dyn-syms and llvm-objdump-19 -s -j .rodata output.
#[rustfmt::skip]
const EXPECTED: &[Expected] = &[
    Expected { gfx: "gfx1100", kernel: "vector_copy", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4288, rsrc1: 0x60af0080, rsrc2: 0x9e, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 32, sgprs: 18, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("src"), 0, 8, "global_buffer", Some("global")), (Some("dst"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx1100", kernel: "saxpy", kd_offset: 0x880, kd_kernarg_size: 288, kd_group: 0, kd_private: 0, entry: 4224, rsrc1: 0x60af0080, rsrc2: 0x9e, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 288, kernarg_align: 8, group: 0, private: 0, wavefront: 32, sgprs: 18, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("a"), 0, 4, "by_value", None), (Some("x"), 8, 8, "global_buffer", Some("global")), (Some("y"), 16, 8, "global_buffer", Some("global")), (Some("n"), 24, 4, "by_value", None), (None, 32, 4, "hidden_block_count_x", None), (None, 36, 4, "hidden_block_count_y", None), (None, 40, 4, "hidden_block_count_z", None), (None, 44, 2, "hidden_group_size_x", None), (None, 46, 2, "hidden_group_size_y", None), (None, 48, 2, "hidden_group_size_z", None), (None, 50, 2, "hidden_remainder_x", None), (None, 52, 2, "hidden_remainder_y", None), (None, 54, 2, "hidden_remainder_z", None), (None, 72, 8, "hidden_global_offset_x", None), (None, 80, 8, "hidden_global_offset_y", None), (None, 88, 8, "hidden_global_offset_z", None), (None, 96, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx1100", kernel: "reduce_lds", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 4096, kd_private: 0, entry: 4288, rsrc1: 0x60af0080, rsrc2: 0x9e, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 280, kernarg_align: 8, group: 4096, private: 0, wavefront: 32, sgprs: 18, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("in"), 0, 8, "global_buffer", Some("global")), (Some("out"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx1100", kernel: "histogram", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 1024, kd_private: 0, entry: 4288, rsrc1: 0x60af0080, rsrc2: 0x9e, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 280, kernarg_align: 8, group: 1024, private: 0, wavefront: 32, sgprs: 18, vgprs: 5, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("data"), 0, 8, "global_buffer", Some("global")), (Some("bins"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx1100", kernel: "histogram_global", kd_offset: 0x880, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4224, rsrc1: 0x60af0040, rsrc2: 0x9e, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 32, sgprs: 16, vgprs: 3, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("data"), 0, 8, "global_buffer", Some("global")), (Some("bins"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx1100", kernel: "matmul_tiled", kd_offset: 0x700, kd_kernarg_size: 36, kd_group: 2048, kd_private: 0, entry: 4352, rsrc1: 0x60af0083, rsrc2: 0x99c, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 36, kernarg_align: 8, group: 2048, private: 0, wavefront: 32, sgprs: 18, vgprs: 27, sgpr_spills: 0, vgpr_spills: 0, max_flat: 256, dynamic_stack: false, reqd: Some([16, 16, 1]),
        args: &[(Some("A"), 0, 8, "global_buffer", Some("global")), (Some("B"), 8, 8, "global_buffer", Some("global")), (Some("C"), 16, 8, "global_buffer", Some("global")), (Some("M"), 24, 4, "by_value", None), (Some("N"), 28, 4, "by_value", None), (Some("K"), 32, 4, "by_value", None)] },
    Expected { gfx: "gfx1100", kernel: "sqrt_exp_loop", kd_offset: 0x8c0, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4416, rsrc1: 0x60af0081, rsrc2: 0x9e, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 32, sgprs: 18, vgprs: 10, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("in"), 0, 8, "global_buffer", Some("global")), (Some("out"), 8, 8, "global_buffer", Some("global")), (Some("iters"), 16, 4, "by_value", None), (Some("n"), 20, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx1100", kernel: "fill2d", kd_offset: 0x800, kd_kernarg_size: 272, kd_group: 0, kd_private: 0, entry: 4352, rsrc1: 0x60af0080, rsrc2: 0x99c, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 272, kernarg_align: 8, group: 0, private: 0, wavefront: 32, sgprs: 18, vgprs: 5, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("out"), 0, 8, "global_buffer", Some("global")), (Some("W"), 8, 4, "by_value", None), (Some("H"), 12, 4, "by_value", None), (None, 16, 4, "hidden_block_count_x", None), (None, 20, 4, "hidden_block_count_y", None), (None, 24, 4, "hidden_block_count_z", None), (None, 28, 2, "hidden_group_size_x", None), (None, 30, 2, "hidden_group_size_y", None), (None, 32, 2, "hidden_group_size_z", None), (None, 34, 2, "hidden_remainder_x", None), (None, 36, 2, "hidden_remainder_y", None), (None, 38, 2, "hidden_remainder_z", None), (None, 56, 8, "hidden_global_offset_x", None), (None, 64, 8, "hidden_global_offset_y", None), (None, 72, 8, "hidden_global_offset_z", None), (None, 80, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx1100", kernel: "fill3d", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4288, rsrc1: 0x60af0080, rsrc2: 0x139a, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 32, sgprs: 18, vgprs: 5, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("out"), 0, 8, "global_buffer", Some("global")), (Some("W"), 8, 4, "by_value", None), (Some("H"), 12, 4, "by_value", None), (Some("D"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx1100", kernel: "oob_write", kd_offset: 0x7c0, kd_kernarg_size: 272, kd_group: 0, kd_private: 0, entry: 4416, rsrc1: 0x60af0040, rsrc2: 0x9e, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 272, kernarg_align: 8, group: 0, private: 0, wavefront: 32, sgprs: 16, vgprs: 2, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("target"), 0, 8, "global_buffer", Some("global")), (Some("value"), 8, 4, "by_value", None), (None, 16, 4, "hidden_block_count_x", None), (None, 20, 4, "hidden_block_count_y", None), (None, 24, 4, "hidden_block_count_z", None), (None, 28, 2, "hidden_group_size_x", None), (None, 30, 2, "hidden_group_size_y", None), (None, 32, 2, "hidden_group_size_z", None), (None, 34, 2, "hidden_remainder_x", None), (None, 36, 2, "hidden_remainder_y", None), (None, 38, 2, "hidden_remainder_z", None), (None, 56, 8, "hidden_global_offset_x", None), (None, 64, 8, "hidden_global_offset_y", None), (None, 72, 8, "hidden_global_offset_z", None), (None, 80, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx1100", kernel: "empty", kd_offset: 0x480, kd_kernarg_size: 0, kd_group: 0, kd_private: 0, entry: 4224, rsrc1: 0x60af0000, rsrc2: 0x9e, rsrc3: 0x0, kcp: 0x0400,
        kernarg_size: 0, kernarg_align: 4, group: 0, private: 0, wavefront: 32, sgprs: 0, vgprs: 0, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[] },
    Expected { gfx: "gfx1100", kernel: "lookup_table", kd_offset: 0x8c0, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4416, rsrc1: 0x60af0080, rsrc2: 0x9e, rsrc3: 0x0, kcp: 0x0408,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 32, sgprs: 18, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("idx"), 0, 8, "global_buffer", Some("global")), (Some("out"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx942", kernel: "vector_copy", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4288, rsrc1: 0x00af0040, rsrc2: 0x84, rsrc3: 0x0, kcp: 0x0008,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 11, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("src"), 0, 8, "global_buffer", Some("global")), (Some("dst"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx942", kernel: "saxpy", kd_offset: 0x840, kd_kernarg_size: 288, kd_group: 0, kd_private: 0, entry: 4288, rsrc1: 0x00af0040, rsrc2: 0x84, rsrc3: 0x1, kcp: 0x0008,
        kernarg_size: 288, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 14, vgprs: 6, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("a"), 0, 4, "by_value", None), (Some("x"), 8, 8, "global_buffer", Some("global")), (Some("y"), 16, 8, "global_buffer", Some("global")), (Some("n"), 24, 4, "by_value", None), (None, 32, 4, "hidden_block_count_x", None), (None, 36, 4, "hidden_block_count_y", None), (None, 40, 4, "hidden_block_count_z", None), (None, 44, 2, "hidden_group_size_x", None), (None, 46, 2, "hidden_group_size_y", None), (None, 48, 2, "hidden_group_size_z", None), (None, 50, 2, "hidden_remainder_x", None), (None, 52, 2, "hidden_remainder_y", None), (None, 54, 2, "hidden_remainder_z", None), (None, 72, 8, "hidden_global_offset_x", None), (None, 80, 8, "hidden_global_offset_y", None), (None, 88, 8, "hidden_global_offset_z", None), (None, 96, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx942", kernel: "reduce_lds", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 4096, kd_private: 0, entry: 4288, rsrc1: 0x00af0040, rsrc2: 0x84, rsrc3: 0x0, kcp: 0x0008,
        kernarg_size: 280, kernarg_align: 8, group: 4096, private: 0, wavefront: 64, sgprs: 14, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("in"), 0, 8, "global_buffer", Some("global")), (Some("out"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx942", kernel: "histogram", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 1024, kd_private: 0, entry: 4288, rsrc1: 0x00af0080, rsrc2: 0x84, rsrc3: 0x1, kcp: 0x0008,
        kernarg_size: 280, kernarg_align: 8, group: 1024, private: 0, wavefront: 64, sgprs: 21, vgprs: 7, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("data"), 0, 8, "global_buffer", Some("global")), (Some("bins"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx942", kernel: "histogram_global", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4288, rsrc1: 0x00af0040, rsrc2: 0x84, rsrc3: 0x0, kcp: 0x0008,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 11, vgprs: 2, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("data"), 0, 8, "global_buffer", Some("global")), (Some("bins"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx942", kernel: "matmul_tiled", kd_offset: 0x700, kd_kernarg_size: 36, kd_group: 2048, kd_private: 0, entry: 4352, rsrc1: 0x00af0083, rsrc2: 0x984, rsrc3: 0x7, kcp: 0x0008,
        kernarg_size: 36, kernarg_align: 8, group: 2048, private: 0, wavefront: 64, sgprs: 24, vgprs: 30, sgpr_spills: 0, vgpr_spills: 0, max_flat: 256, dynamic_stack: false, reqd: Some([16, 16, 1]),
        args: &[(Some("A"), 0, 8, "global_buffer", Some("global")), (Some("B"), 8, 8, "global_buffer", Some("global")), (Some("C"), 16, 8, "global_buffer", Some("global")), (Some("M"), 24, 4, "by_value", None), (Some("N"), 28, 4, "by_value", None), (Some("K"), 32, 4, "by_value", None)] },
    Expected { gfx: "gfx942", kernel: "sqrt_exp_loop", kd_offset: 0x880, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4224, rsrc1: 0x00af0041, rsrc2: 0x84, rsrc3: 0x2, kcp: 0x0008,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 14, vgprs: 12, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("in"), 0, 8, "global_buffer", Some("global")), (Some("out"), 8, 8, "global_buffer", Some("global")), (Some("iters"), 16, 4, "by_value", None), (Some("n"), 20, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx942", kernel: "fill2d", kd_offset: 0x800, kd_kernarg_size: 272, kd_group: 0, kd_private: 0, entry: 4352, rsrc1: 0x00af0040, rsrc2: 0x984, rsrc3: 0x0, kcp: 0x0008,
        kernarg_size: 272, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 14, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("out"), 0, 8, "global_buffer", Some("global")), (Some("W"), 8, 4, "by_value", None), (Some("H"), 12, 4, "by_value", None), (None, 16, 4, "hidden_block_count_x", None), (None, 20, 4, "hidden_block_count_y", None), (None, 24, 4, "hidden_block_count_z", None), (None, 28, 2, "hidden_group_size_x", None), (None, 30, 2, "hidden_group_size_y", None), (None, 32, 2, "hidden_group_size_z", None), (None, 34, 2, "hidden_remainder_x", None), (None, 36, 2, "hidden_remainder_y", None), (None, 38, 2, "hidden_remainder_z", None), (None, 56, 8, "hidden_global_offset_x", None), (None, 64, 8, "hidden_global_offset_y", None), (None, 72, 8, "hidden_global_offset_z", None), (None, 80, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx942", kernel: "fill3d", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4288, rsrc1: 0x00af0080, rsrc2: 0x1384, rsrc3: 0x1, kcp: 0x0008,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 22, vgprs: 6, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("out"), 0, 8, "global_buffer", Some("global")), (Some("W"), 8, 4, "by_value", None), (Some("H"), 12, 4, "by_value", None), (Some("D"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx942", kernel: "oob_write", kd_offset: 0x780, kd_kernarg_size: 272, kd_group: 0, kd_private: 0, entry: 4224, rsrc1: 0x00af0040, rsrc2: 0x84, rsrc3: 0x0, kcp: 0x0008,
        kernarg_size: 272, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 11, vgprs: 2, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("target"), 0, 8, "global_buffer", Some("global")), (Some("value"), 8, 4, "by_value", None), (None, 16, 4, "hidden_block_count_x", None), (None, 20, 4, "hidden_block_count_y", None), (None, 24, 4, "hidden_block_count_z", None), (None, 28, 2, "hidden_group_size_x", None), (None, 30, 2, "hidden_group_size_y", None), (None, 32, 2, "hidden_group_size_z", None), (None, 34, 2, "hidden_remainder_x", None), (None, 36, 2, "hidden_remainder_y", None), (None, 38, 2, "hidden_remainder_z", None), (None, 56, 8, "hidden_global_offset_x", None), (None, 64, 8, "hidden_global_offset_y", None), (None, 72, 8, "hidden_global_offset_z", None), (None, 80, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx942", kernel: "empty", kd_offset: 0x480, kd_kernarg_size: 0, kd_group: 0, kd_private: 0, entry: 4224, rsrc1: 0x00af0000, rsrc2: 0x80, rsrc3: 0x0, kcp: 0x0000,
        kernarg_size: 0, kernarg_align: 4, group: 0, private: 0, wavefront: 64, sgprs: 6, vgprs: 0, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[] },
    Expected { gfx: "gfx942", kernel: "lookup_table", kd_offset: 0x8c0, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4416, rsrc1: 0x00af0040, rsrc2: 0x84, rsrc3: 0x0, kcp: 0x0008,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 11, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("idx"), 0, 8, "global_buffer", Some("global")), (Some("out"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx90a", kernel: "vector_copy", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4288, rsrc1: 0x00af0040, rsrc2: 0x8c, rsrc3: 0x0, kcp: 0x0009,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 11, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("src"), 0, 8, "global_buffer", Some("global")), (Some("dst"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx90a", kernel: "saxpy", kd_offset: 0x840, kd_kernarg_size: 288, kd_group: 0, kd_private: 0, entry: 4288, rsrc1: 0x00af0040, rsrc2: 0x8c, rsrc3: 0x1, kcp: 0x0009,
        kernarg_size: 288, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 11, vgprs: 6, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("a"), 0, 4, "by_value", None), (Some("x"), 8, 8, "global_buffer", Some("global")), (Some("y"), 16, 8, "global_buffer", Some("global")), (Some("n"), 24, 4, "by_value", None), (None, 32, 4, "hidden_block_count_x", None), (None, 36, 4, "hidden_block_count_y", None), (None, 40, 4, "hidden_block_count_z", None), (None, 44, 2, "hidden_group_size_x", None), (None, 46, 2, "hidden_group_size_y", None), (None, 48, 2, "hidden_group_size_z", None), (None, 50, 2, "hidden_remainder_x", None), (None, 52, 2, "hidden_remainder_y", None), (None, 54, 2, "hidden_remainder_z", None), (None, 72, 8, "hidden_global_offset_x", None), (None, 80, 8, "hidden_global_offset_y", None), (None, 88, 8, "hidden_global_offset_z", None), (None, 96, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx90a", kernel: "reduce_lds", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 4096, kd_private: 0, entry: 4288, rsrc1: 0x00af0040, rsrc2: 0x8c, rsrc3: 0x0, kcp: 0x0009,
        kernarg_size: 280, kernarg_align: 8, group: 4096, private: 0, wavefront: 64, sgprs: 14, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("in"), 0, 8, "global_buffer", Some("global")), (Some("out"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx90a", kernel: "histogram", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 1024, kd_private: 0, entry: 4288, rsrc1: 0x00af0080, rsrc2: 0x8c, rsrc3: 0x1, kcp: 0x0009,
        kernarg_size: 280, kernarg_align: 8, group: 1024, private: 0, wavefront: 64, sgprs: 19, vgprs: 7, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("data"), 0, 8, "global_buffer", Some("global")), (Some("bins"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx90a", kernel: "histogram_global", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4288, rsrc1: 0x00af0040, rsrc2: 0x8c, rsrc3: 0x0, kcp: 0x0009,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 11, vgprs: 2, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("data"), 0, 8, "global_buffer", Some("global")), (Some("bins"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx90a", kernel: "matmul_tiled", kd_offset: 0x700, kd_kernarg_size: 36, kd_group: 2048, kd_private: 0, entry: 4352, rsrc1: 0x00af0083, rsrc2: 0x98c, rsrc3: 0x7, kcp: 0x0009,
        kernarg_size: 36, kernarg_align: 8, group: 2048, private: 0, wavefront: 64, sgprs: 21, vgprs: 30, sgpr_spills: 0, vgpr_spills: 0, max_flat: 256, dynamic_stack: false, reqd: Some([16, 16, 1]),
        args: &[(Some("A"), 0, 8, "global_buffer", Some("global")), (Some("B"), 8, 8, "global_buffer", Some("global")), (Some("C"), 16, 8, "global_buffer", Some("global")), (Some("M"), 24, 4, "by_value", None), (Some("N"), 28, 4, "by_value", None), (Some("K"), 32, 4, "by_value", None)] },
    Expected { gfx: "gfx90a", kernel: "sqrt_exp_loop", kd_offset: 0x880, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4224, rsrc1: 0x00af0041, rsrc2: 0x8c, rsrc3: 0x2, kcp: 0x0009,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 12, vgprs: 12, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("in"), 0, 8, "global_buffer", Some("global")), (Some("out"), 8, 8, "global_buffer", Some("global")), (Some("iters"), 16, 4, "by_value", None), (Some("n"), 20, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx90a", kernel: "fill2d", kd_offset: 0x800, kd_kernarg_size: 272, kd_group: 0, kd_private: 0, entry: 4352, rsrc1: 0x00af0040, rsrc2: 0x98c, rsrc3: 0x0, kcp: 0x0009,
        kernarg_size: 272, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 12, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("out"), 0, 8, "global_buffer", Some("global")), (Some("W"), 8, 4, "by_value", None), (Some("H"), 12, 4, "by_value", None), (None, 16, 4, "hidden_block_count_x", None), (None, 20, 4, "hidden_block_count_y", None), (None, 24, 4, "hidden_block_count_z", None), (None, 28, 2, "hidden_group_size_x", None), (None, 30, 2, "hidden_group_size_y", None), (None, 32, 2, "hidden_group_size_z", None), (None, 34, 2, "hidden_remainder_x", None), (None, 36, 2, "hidden_remainder_y", None), (None, 38, 2, "hidden_remainder_z", None), (None, 56, 8, "hidden_global_offset_x", None), (None, 64, 8, "hidden_global_offset_y", None), (None, 72, 8, "hidden_global_offset_z", None), (None, 80, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx90a", kernel: "fill3d", kd_offset: 0x840, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4288, rsrc1: 0x00af0080, rsrc2: 0x138c, rsrc3: 0x1, kcp: 0x0009,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 20, vgprs: 6, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("out"), 0, 8, "global_buffer", Some("global")), (Some("W"), 8, 4, "by_value", None), (Some("H"), 12, 4, "by_value", None), (Some("D"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx90a", kernel: "oob_write", kd_offset: 0x780, kd_kernarg_size: 272, kd_group: 0, kd_private: 0, entry: 4224, rsrc1: 0x00af0040, rsrc2: 0x8c, rsrc3: 0x0, kcp: 0x0009,
        kernarg_size: 272, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 11, vgprs: 2, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("target"), 0, 8, "global_buffer", Some("global")), (Some("value"), 8, 4, "by_value", None), (None, 16, 4, "hidden_block_count_x", None), (None, 20, 4, "hidden_block_count_y", None), (None, 24, 4, "hidden_block_count_z", None), (None, 28, 2, "hidden_group_size_x", None), (None, 30, 2, "hidden_group_size_y", None), (None, 32, 2, "hidden_group_size_z", None), (None, 34, 2, "hidden_remainder_x", None), (None, 36, 2, "hidden_remainder_y", None), (None, 38, 2, "hidden_remainder_z", None), (None, 56, 8, "hidden_global_offset_x", None), (None, 64, 8, "hidden_global_offset_y", None), (None, 72, 8, "hidden_global_offset_z", None), (None, 80, 2, "hidden_grid_dims", None)] },
    Expected { gfx: "gfx90a", kernel: "empty", kd_offset: 0x480, kd_kernarg_size: 0, kd_group: 0, kd_private: 0, entry: 4224, rsrc1: 0x00af0000, rsrc2: 0x88, rsrc3: 0x0, kcp: 0x0001,
        kernarg_size: 0, kernarg_align: 4, group: 0, private: 0, wavefront: 64, sgprs: 4, vgprs: 0, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[] },
    Expected { gfx: "gfx90a", kernel: "lookup_table", kd_offset: 0x8c0, kd_kernarg_size: 280, kd_group: 0, kd_private: 0, entry: 4416, rsrc1: 0x00af0040, rsrc2: 0x8c, rsrc3: 0x0, kcp: 0x0009,
        kernarg_size: 280, kernarg_align: 8, group: 0, private: 0, wavefront: 64, sgprs: 11, vgprs: 4, sgpr_spills: 0, vgpr_spills: 0, max_flat: 1024, dynamic_stack: false, reqd: None,
        args: &[(Some("idx"), 0, 8, "global_buffer", Some("global")), (Some("out"), 8, 8, "global_buffer", Some("global")), (Some("n"), 16, 4, "by_value", None), (None, 24, 4, "hidden_block_count_x", None), (None, 28, 4, "hidden_block_count_y", None), (None, 32, 4, "hidden_block_count_z", None), (None, 36, 2, "hidden_group_size_x", None), (None, 38, 2, "hidden_group_size_y", None), (None, 40, 2, "hidden_group_size_z", None), (None, 42, 2, "hidden_remainder_x", None), (None, 44, 2, "hidden_remainder_y", None), (None, 46, 2, "hidden_remainder_z", None), (None, 64, 8, "hidden_global_offset_x", None), (None, 72, 8, "hidden_global_offset_y", None), (None, 80, 8, "hidden_global_offset_z", None), (None, 88, 2, "hidden_grid_dims", None)] },
];

#[test]
fn every_checked_in_kernel_matches_the_llvm_tools() {
    assert_eq!(EXPECTED.len(), 36);
    for e in EXPECTED {
        let what = format!("{}/{}", e.gfx, e.kernel);
        let co = load(&format!("{}/{}.co", e.gfx, e.kernel));
        assert_eq!(co.isa().gfx, e.gfx, "{what}");
        assert_eq!(co.code_object_version(), 5, "{what}");
        assert_eq!(co.metadata_version(), [1, 2], "{what}");
        assert_eq!(
            co.target(),
            Some(format!("amdgcn-amd-amdhsa--{}", e.gfx).as_str()),
            "{what}"
        );
        assert_eq!(co.kernels().len(), 1, "{what}");
        let k = co
            .kernel(e.kernel)
            .unwrap_or_else(|| panic!("{what}: kernel missing"));
        assert_eq!(k.name, e.kernel);
        assert_eq!(k.symbol, format!("{}.kd", e.kernel));
        assert_eq!(k.descriptor_offset, e.kd_offset, "{what}");
        let kd = &k.descriptor;
        assert_eq!(kd.kernarg_size, e.kd_kernarg_size, "{what}");
        assert_eq!(kd.group_segment_fixed_size, e.kd_group, "{what}");
        assert_eq!(kd.private_segment_fixed_size, e.kd_private, "{what}");
        assert_eq!(kd.kernel_code_entry_byte_offset, e.entry, "{what}");
        assert_eq!(kd.compute_pgm_rsrc1, e.rsrc1, "{what}");
        assert_eq!(kd.compute_pgm_rsrc2, e.rsrc2, "{what}");
        assert_eq!(kd.compute_pgm_rsrc3, e.rsrc3, "{what}");
        assert_eq!(kd.kernel_code_properties, e.kcp, "{what}");
        assert_eq!(
            k.entry_offset(),
            (e.kd_offset as i64 + e.entry) as u64,
            "{what}"
        );
        assert_eq!(
            k.entry_offset() % 256,
            0,
            "{what}: entry must be 256-byte aligned"
        );
        assert_eq!(k.kernarg_segment_size, e.kernarg_size, "{what}");
        assert_eq!(k.kernarg_segment_align, e.kernarg_align, "{what}");
        assert_eq!(k.group_segment_fixed_size, e.group, "{what}");
        assert_eq!(k.private_segment_fixed_size, e.private, "{what}");
        assert_eq!(k.wavefront_size, e.wavefront, "{what}");
        assert_eq!(k.sgpr_count, e.sgprs, "{what}");
        assert_eq!(k.vgpr_count, e.vgprs, "{what}");
        assert_eq!(k.sgpr_spill_count, e.sgpr_spills, "{what}");
        assert_eq!(k.vgpr_spill_count, e.vgpr_spills, "{what}");
        assert_eq!(k.max_flat_workgroup_size, e.max_flat, "{what}");
        assert_eq!(k.uses_dynamic_stack, e.dynamic_stack, "{what}");
        assert_eq!(k.reqd_workgroup_size, e.reqd, "{what}");
        let args: Vec<ExpectedArg> = k
            .args
            .iter()
            .map(|a| {
                let space = a.address_space.map(|s| match s {
                    AddressSpace::Global => "global",
                    AddressSpace::Constant => "constant",
                    AddressSpace::Local => "local",
                    AddressSpace::Private => "private",
                    AddressSpace::Generic => "generic",
                    AddressSpace::Region => "region",
                });
                (
                    a.name.as_deref().map(leak),
                    a.offset,
                    a.size,
                    leak(a.value_kind.as_str()),
                    space,
                )
            })
            .collect();
        assert_eq!(args, e.args, "{what}");
        for a in &k.args {
            assert!(
                !matches!(a.value_kind, ValueKind::Unknown(_)),
                "{what}: {a:?}"
            );
            assert_eq!(
                a.value_kind.is_hidden(),
                a.value_kind.as_str().starts_with("hidden_")
            );
        }
        // The wave size the descriptor asks for agrees with the metadata on gfx10+.
        if e.gfx == "gfx1100" {
            assert_eq!(kd.wavefront_size(), e.wavefront, "{what}");
        }
    }
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

#[test]
fn saxpy_argument_details() {
    let co = load("gfx1100/saxpy.co");
    let k = co.kernel("saxpy.kd").expect("lookup by descriptor symbol");
    assert_eq!(k.name, "saxpy");
    let explicit: Vec<_> = k.explicit_args().collect();
    assert_eq!(explicit.len(), 4);
    assert_eq!(explicit[0].type_name.as_deref(), Some("float"));
    assert_eq!(explicit[0].value_kind, ValueKind::ByValue);
    assert_eq!(explicit[1].type_name.as_deref(), Some("float*"));
    assert!(explicit[1].is_const && explicit[1].is_restrict);
    assert_eq!(explicit[1].actual_access.as_deref(), Some("read_only"));
    assert_eq!(explicit[1].address_space, Some(AddressSpace::Global));
    assert!(!explicit[2].is_const && explicit[2].is_restrict);
    assert_eq!(explicit[3].type_name.as_deref(), Some("uint"));
    assert_eq!(k.args[4].value_kind, ValueKind::HiddenBlockCountX);
    assert_eq!(k.args[16].value_kind, ValueKind::HiddenGridDims);
}

#[test]
fn isa_from_e_flags() {
    // llvm-readelf -h: gfx1100 Flags 0x41; gfx942 0x54C and gfx90a 0x53F (xnack any, sramecc any).
    let gfx1100 = load("gfx1100/saxpy.co");
    assert_eq!(gfx1100.e_flags(), 0x41);
    assert_eq!(gfx1100.isa().xnack, TargetFeature::Unsupported);
    assert_eq!(gfx1100.isa().sramecc, TargetFeature::Unsupported);
    assert_eq!(gfx1100.isa().full_name(), "amdgcn-amd-amdhsa--gfx1100");
    for (path, flags, gfx) in [
        ("gfx942/saxpy.co", 0x54c, "gfx942"),
        ("gfx90a/saxpy.co", 0x53f, "gfx90a"),
    ] {
        let co = load(path);
        assert_eq!(co.e_flags(), flags);
        assert_eq!(co.isa().gfx, gfx);
        assert_eq!(co.isa().xnack, TargetFeature::Any);
        assert_eq!(co.isa().sramecc, TargetFeature::Any);
        assert_eq!(co.isa().full_name(), format!("amdgcn-amd-amdhsa--{gfx}"));
    }
}

#[test]
fn e_flags_feature_fields_and_machine_table() {
    use aqueduct_hsa::code_object::{gfx_name_for_mach, mach_for_gfx_name};
    // V4+ encoding: xnack in bits 9:8, sramecc in bits 11:10 (0 unsupported, 1 any, 2 off, 3 on).
    let isa = IsaName::from_e_flags(0x03f | 0x300 | 0x800).unwrap();
    assert_eq!(isa.gfx, "gfx90a");
    assert_eq!(
        (isa.xnack, isa.sramecc),
        (TargetFeature::On, TargetFeature::Off)
    );
    assert_eq!(isa.full_name(), "amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+");
    let isa = IsaName::from_e_flags(0x04c | 0x200 | 0xc00).unwrap();
    assert_eq!(isa.target_id(), "gfx942:sramecc+:xnack-");
    assert_eq!(IsaName::from_e_flags(0x0ff), None);
    for (mach, gfx) in [
        (0x041, "gfx1100"),
        (0x04c, "gfx942"),
        (0x03f, "gfx90a"),
        (0x036, "gfx1030"),
        (0x054, "gfx11-generic"),
    ] {
        assert_eq!(gfx_name_for_mach(mach), Some(gfx));
        assert_eq!(mach_for_gfx_name(gfx), Some(mach));
    }
}

#[test]
fn isa_names_parse_and_match() {
    let full = IsaName::parse("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-").unwrap();
    assert_eq!(full.gfx, "gfx90a");
    assert_eq!(full.sramecc, TargetFeature::On);
    assert_eq!(full.xnack, TargetFeature::Off);
    assert_eq!(
        full.full_name(),
        "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
    );
    let short = IsaName::parse("gfx90a:xnack+").unwrap();
    assert_eq!(
        (short.xnack, short.sramecc),
        (TargetFeature::On, TargetFeature::Any)
    );
    assert_eq!(short.full_name(), "amdgcn-amd-amdhsa--gfx90a:xnack+");
    assert_eq!(
        IsaName::parse("amdgcn-amd-amdhsa-gfx906").unwrap().gfx,
        "gfx906"
    );
    assert_eq!(
        IsaName::parse("gfx11-generic").unwrap().gfx,
        "gfx11-generic"
    );
    for bad in [
        "",
        "gfx",
        "sm_80",
        "gfx90a:xnack",
        "gfx90a:foo+",
        "amdgcn-amd-amdhsa--",
        "gfx 90a",
    ] {
        assert_eq!(IsaName::parse(bad), None, "{bad:?}");
    }

    let any = IsaName::new("gfx90a");
    assert!(any.compatible_with(&full) && full.compatible_with(&any));
    assert!(
        !full.compatible_with(&short),
        "xnack- code on an xnack+ agent"
    );
    assert!(
        IsaName::parse("gfx90a:xnack-")
            .unwrap()
            .compatible_with(&full)
    );
    assert!(!IsaName::new("gfx942").compatible_with(&full));
    let gfx1100 = load("gfx1100/saxpy.co");
    assert!(
        gfx1100
            .isa()
            .compatible_with(&IsaName::parse("gfx1100").unwrap())
    );
    assert!(
        !gfx1100
            .isa()
            .compatible_with(&IsaName::parse("gfx1101").unwrap())
    );
}

#[test]
fn multi_kernel_object() {
    let co = load("gfx1100/multi.co");
    let mut names: Vec<&str> = co.kernels().iter().map(|k| k.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["fill3d", "saxpy", "vector_copy"]);
    let saxpy = co.kernel("saxpy").unwrap();
    assert_eq!(co.kernel("saxpy.kd"), Some(saxpy));
    // Same code as the single-kernel object, at another place in the image.
    let single = load("gfx1100/saxpy.co");
    let single = single.kernel("saxpy").unwrap();
    assert_eq!(saxpy.args, single.args);
    assert_eq!(
        saxpy.descriptor.compute_pgm_rsrc1,
        single.descriptor.compute_pgm_rsrc1
    );
    let mut offsets: Vec<u64> = co.kernels().iter().map(|k| k.descriptor_offset).collect();
    offsets.dedup();
    assert_eq!(offsets.len(), 3);
    match co.require_kernel("nope") {
        Err(CodeObjectError::KernelNotFound {
            name,
            mut available,
        }) => {
            assert_eq!(name, "nope");
            available.sort_unstable();
            assert_eq!(available, ["fill3d", "saxpy", "vector_copy"]);
        }
        other => panic!("expected KernelNotFound, got {other:?}"),
    }
}

#[test]
fn load_image_copies_segments_and_zero_fills() {
    let bytes = kernel_file("gfx1100/saxpy.co");
    let co = CodeObject::parse(&bytes).unwrap();
    // llvm-readelf -l: LOADs at 0 (0x8c4 bytes), 0x1900 (0x280, file 0x900), 0x2b80 (file 0x70, mem 0x480).
    assert_eq!(co.image_size(), 0x3000);
    assert_eq!(co.image_align(), 0x1000);
    assert_eq!(co.relocation_count(), 0);
    let mut image = vec![0xa5u8; 0x3000 + 16];
    co.load_image(&mut image, 0x7f12_3400_0000).unwrap();
    assert_eq!(&image[..0x8c4], &bytes[..0x8c4]);
    assert!(
        image[0x8c4..0x1900].iter().all(|&b| b == 0),
        "gap zero-filled"
    );
    assert_eq!(&image[0x1900..0x1b80], &bytes[0x900..0xb80]);
    assert_eq!(&image[0x2b80..0x2bf0], &bytes[0xb80..0xbf0]);
    assert!(
        image[0x2bf0..0x3000].iter().all(|&b| b == 0),
        "memsz beyond filesz zero-filled"
    );
    assert!(
        image[0x3000..].iter().all(|&b| b == 0xa5),
        "nothing written past image_size"
    );
    // The descriptor in the image is the one the loader decoded.
    let k = co.kernel("saxpy").unwrap();
    let kd = &image[k.descriptor_offset as usize..][..64];
    assert_eq!(kd, bytemuck::bytes_of(&k.descriptor));
    // gfx11 code starts at the entry point; s_code_end (0xbf9f0000) pads the end of .text.
    let text_end = u32::from_le_bytes(image[0x1b7c..0x1b80].try_into().unwrap());
    assert_eq!(text_end, 0xbf9f_0000);

    assert_eq!(
        co.load_image(&mut vec![0u8; 0x2fff], 0),
        Err(CodeObjectError::ImageTooSmall {
            needed: 0x3000,
            got: 0x2fff
        })
    );
    assert_eq!(
        co.load_image(&mut image, 0x1234),
        Err(CodeObjectError::MisalignedBase {
            load_base: 0x1234,
            align: 0x1000
        })
    );
}

/// lookup_table/gfx1100: llvm-readelf -r shows one R_AMDGPU_RELATIVE64 at 0x3d50 with addend 0x3d38
/// (= &lut[2]; .data at 0x3d30 holds lut = {10, ..., 17}); .rela.dyn is at file offset 0x880 and
/// links .dynsym (section 2), whose entry 2 is lookup_table.kd (value 0x8c0).
const RELA_DYN: usize = 0x880;
const RELOC_TARGET: usize = 0x3d50;
const RELOC_ADDEND: u64 = 0x3d38;
const KD_SYMBOL_INDEX: u64 = 2;
const KD_VALUE: u64 = 0x8c0;

fn lookup_table_with_rela(r_offset: u64, r_type: u64, r_sym: u64, addend: u64) -> Vec<u8> {
    let mut bytes = kernel_file("gfx1100/lookup_table.co");
    bytes[RELA_DYN..RELA_DYN + 8].copy_from_slice(&r_offset.to_le_bytes());
    bytes[RELA_DYN + 8..RELA_DYN + 16].copy_from_slice(&((r_sym << 32) | r_type).to_le_bytes());
    bytes[RELA_DYN + 16..RELA_DYN + 24].copy_from_slice(&addend.to_le_bytes());
    bytes
}

fn read_u64(image: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(image[at..at + 8].try_into().unwrap())
}

#[test]
fn relative64_relocation_is_applied() {
    let bytes = kernel_file("gfx1100/lookup_table.co");
    // The checked-in relocation record, as llvm-readelf printed it.
    assert_eq!(read_u64(&bytes, RELA_DYN), RELOC_TARGET as u64);
    assert_eq!(read_u64(&bytes, RELA_DYN + 8), 13);
    assert_eq!(read_u64(&bytes, RELA_DYN + 16), RELOC_ADDEND);
    let co = CodeObject::parse(&bytes).unwrap();
    assert_eq!(co.relocation_count(), 1);
    assert_eq!(co.image_size(), 0x4000);
    for base in [0u64, 0x1000, 0x7fff_f000_0000] {
        let mut image = vec![0u8; 0x4000];
        co.load_image(&mut image, base).unwrap();
        let pointer = read_u64(&image, RELOC_TARGET);
        assert_eq!(pointer, base + RELOC_ADDEND);
        // The relocated pointer points at lut[2] == 12 in the loaded image.
        let target = (pointer - base) as usize;
        assert_eq!(
            u32::from_le_bytes(image[target..target + 4].try_into().unwrap()),
            12
        );
    }
}

#[test]
fn symbol_relocations_use_symbol_value_base_and_addend() {
    let base = 0x4000_0000u64;
    let value = base + KD_VALUE + 0x10;
    let cases: [(u64, usize, u64); 3] = [
        (3, 8, value),
        (1, 4, value & 0xffff_ffff),
        (2, 4, value >> 32),
    ];
    for (r_type, width, expected) in cases {
        let co = CodeObject::parse(&lookup_table_with_rela(
            RELOC_TARGET as u64,
            r_type,
            KD_SYMBOL_INDEX,
            0x10,
        ))
        .unwrap();
        let mut image = vec![0xeeu8; 0x4000];
        co.load_image(&mut image, base).unwrap();
        let mut written = [0u8; 8];
        written[..width].copy_from_slice(&image[RELOC_TARGET..RELOC_TARGET + width]);
        assert_eq!(u64::from_le_bytes(written), expected, "type {r_type}");
    }
    // ABS32 of a 64-bit address cannot be represented.
    let co = CodeObject::parse(&lookup_table_with_rela(
        RELOC_TARGET as u64,
        6,
        KD_SYMBOL_INDEX,
        0,
    ))
    .unwrap();
    assert!(matches!(
        co.load_image(&mut vec![0u8; 0x4000], 0x1_0000_0000),
        Err(CodeObjectError::Relocation { offset: 0x3d50, .. })
    ));
    co.load_image(&mut vec![0u8; 0x4000], 0x1000)
        .expect("fits in 32 bits at a low base");
}

#[test]
fn bad_relocations_are_errors() {
    let mut image = vec![0u8; 0x4000];
    // R_AMDGPU_REL64 (5) is static-only: not applied by a loader.
    let co = CodeObject::parse(&lookup_table_with_rela(RELOC_TARGET as u64, 5, 0, 0)).unwrap();
    let err = co.load_image(&mut image, 0).unwrap_err();
    assert_eq!(
        err,
        CodeObjectError::Relocation {
            offset: 0x3d50,
            fault: RelocationFault::UnsupportedType { r_type: 5 }
        }
    );
    // Targets outside the image, including one straddling its end.
    for offset in [0x4000u64, 0x3ffc, u64::MAX - 3, 0x10_0000] {
        let co = CodeObject::parse(&lookup_table_with_rela(offset, 13, 0, 0)).unwrap();
        let err = co.load_image(&mut image, 0).unwrap_err();
        assert!(
            matches!(err, CodeObjectError::Relocation {
                offset: at,
                fault: RelocationFault::TargetOutsideImage { width: 8, image_len: 0x4000 },
            } if at == offset),
            "{offset:#x}: {err}"
        );
    }
    // A symbol index past the end of .dynsym (3 entries) is caught when parsing.
    let err =
        CodeObject::parse(&lookup_table_with_rela(RELOC_TARGET as u64, 3, 99, 0)).unwrap_err();
    assert!(
        matches!(
            err,
            CodeObjectError::Relocation {
                fault: RelocationFault::Symbol { index: 99, .. },
                ..
            }
        ),
        "{err}"
    );
    // Relocations against the undefined symbol 0 of .dynsym count as S = 0 only via r_sym 0;
    // entry 0 is not addressable as a symbol.
    let co = CodeObject::parse(&lookup_table_with_rela(RELOC_TARGET as u64, 3, 0, 0x1234)).unwrap();
    co.load_image(&mut image, 0x10_0000).unwrap();
    assert_eq!(read_u64(&image, RELOC_TARGET), 0x1234);
}

#[test]
fn kernarg_saxpy_exact_bytes() {
    let co = load("gfx1100/saxpy.co");
    let k = co.kernel("saxpy").unwrap();
    let mut builder = KernargBuilder::new(k);
    builder
        .set_f32(ArgRef::Name("a"), 2.5)
        .unwrap()
        .set_ptr(ArgRef::Index(1), 0x1111_2222_3333_4444)
        .unwrap()
        .set_ptr(ArgRef::Name("y"), 0x5555_6666_7777_8888)
        .unwrap()
        .set_u32(ArgRef::Index(3), 1000)
        .unwrap();
    let mut shape = DispatchShape::new([1000, 3, 1], [256, 2, 1], 2);
    shape.global_offset = [5, 6, 7];
    let bytes = builder.finish(&shape).unwrap();

    let mut expected = vec![0u8; 288];
    let mut put =
        |offset: usize, value: &[u8]| expected[offset..offset + value.len()].copy_from_slice(value);
    put(0, &2.5f32.to_le_bytes());
    put(8, &0x1111_2222_3333_4444u64.to_le_bytes());
    put(16, &0x5555_6666_7777_8888u64.to_le_bytes());
    put(24, &1000u32.to_le_bytes());
    // Offsets from the metadata: block counts 32/36/40 (full groups), group sizes 44/46/48,
    // remainders 50/52/54, global offsets 72/80/88, grid dims 96.
    put(32, &3u32.to_le_bytes()); // 1000 / 256
    put(36, &1u32.to_le_bytes()); // 3 / 2
    put(40, &1u32.to_le_bytes());
    put(44, &256u16.to_le_bytes());
    put(46, &2u16.to_le_bytes());
    put(48, &1u16.to_le_bytes());
    put(50, &232u16.to_le_bytes()); // 1000 % 256
    put(52, &1u16.to_le_bytes()); // 3 % 2
    put(54, &0u16.to_le_bytes());
    put(72, &5u64.to_le_bytes());
    put(80, &6u64.to_le_bytes());
    put(88, &7u64.to_le_bytes());
    put(96, &2u16.to_le_bytes());
    assert_eq!(bytes, expected);
}

/// A builder reusing storage full of stale bytes (another kernel's
/// segment) and appending with `finish_into` gives exactly what a fresh
/// builder's `finish` gives, after whatever the output list held; a
/// missing argument is still an error and appends nothing.
#[test]
fn kernarg_builders_reuse_storage_and_append_the_same_bytes() {
    let co = load("gfx1100/saxpy.co");
    let k = co.kernel("saxpy").unwrap();
    let fill = |b: &mut KernargBuilder<'_>, n: u32| {
        b.set_f32(ArgRef::Name("a"), 0.5 * n as f32)
            .unwrap()
            .set_ptr(ArgRef::Index(1), 0x1000 * u64::from(n))
            .unwrap()
            .set_ptr(ArgRef::Name("y"), 0x2000 * u64::from(n))
            .unwrap()
            .set_u32(ArgRef::Index(3), n)
            .unwrap();
    };
    let shape = DispatchShape::new([1000, 3, 1], [256, 2, 1], 2);
    let mut out = vec![0xee; 5];
    let mut storage = vec![0xabu8; 1000];
    for n in 1..4u32 {
        let mut fresh = KernargBuilder::new(k);
        fill(&mut fresh, n);
        let expected = fresh.finish(&shape).unwrap();
        let mut reused = KernargBuilder::reusing(k, storage);
        fill(&mut reused, n);
        let start = out.len();
        reused.finish_into(&shape, &mut out).unwrap();
        assert_eq!(&out[start..], &expected[..], "segment {n}");
        storage = reused.into_storage();
    }
    assert_eq!(out[..5], [0xee; 5], "earlier bytes stay");
    let mut partial = KernargBuilder::reusing(k, storage);
    partial.set_f32(ArgRef::Index(0), 1.0).unwrap();
    let len = out.len();
    assert!(matches!(
        partial.finish_into(&shape, &mut out),
        Err(CodeObjectError::MissingArg { .. })
    ));
    assert_eq!(out.len(), len);
}

#[test]
fn kernarg_layouts_follow_each_kernels_metadata() {
    // matmul_tiled uses no hidden arguments: exactly its 36 explicit bytes.
    let co = load("gfx942/matmul_tiled.co");
    let k = co.kernel("matmul_tiled").unwrap();
    let mut b = KernargBuilder::new(k);
    for (i, ptr) in [0xa000u64, 0xb000, 0xc000].into_iter().enumerate() {
        b.set_ptr(ArgRef::Index(i), ptr).unwrap();
    }
    b.set_u32(ArgRef::Name("M"), 64)
        .unwrap()
        .set_u32(ArgRef::Name("N"), 48)
        .unwrap();
    b.set_u32(ArgRef::Name("K"), 32).unwrap();
    let bytes = b
        .finish(&DispatchShape::new([48, 64, 1], [16, 16, 1], 2))
        .unwrap();
    let mut expected = Vec::new();
    for v in [0xa000u64, 0xb000, 0xc000] {
        expected.extend_from_slice(&v.to_le_bytes());
    }
    for v in [64u32, 48, 32] {
        expected.extend_from_slice(&v.to_le_bytes());
    }
    assert_eq!(bytes, expected);

    // fill3d (gfx90a): explicit args end at 20, hidden block starts at 24.
    let co = load("gfx90a/fill3d.co");
    let k = co.kernel("fill3d").unwrap();
    let mut b = KernargBuilder::new(k);
    b.set_ptr(ArgRef::Name("out"), 0xdead_0000).unwrap();
    for (name, v) in [("W", 10u32), ("H", 20), ("D", 30)] {
        b.set_u32(ArgRef::Name(name), v).unwrap();
    }
    let mut shape = DispatchShape::new([10, 20, 30], [4, 8, 2], 3);
    shape.global_offset = [1, 2, 3];
    let bytes = b.finish(&shape).unwrap();
    assert_eq!(bytes.len(), 280);
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
    let u16_at = |o: usize| u16::from_le_bytes(bytes[o..o + 2].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().unwrap());
    assert_eq!(u64_at(0), 0xdead_0000);
    assert_eq!([u32_at(8), u32_at(12), u32_at(16)], [10, 20, 30]);
    assert_eq!([u32_at(24), u32_at(28), u32_at(32)], [2, 2, 15]);
    assert_eq!([u16_at(36), u16_at(38), u16_at(40)], [4, 8, 2]);
    assert_eq!([u16_at(42), u16_at(44), u16_at(46)], [2, 4, 0]);
    assert_eq!([u64_at(64), u64_at(72), u64_at(80)], [1, 2, 3]);
    assert_eq!(u16_at(88), 3);
    // Bytes no argument covers stay zero.
    assert!(
        bytes[20..24]
            .iter()
            .chain(&bytes[48..64])
            .chain(&bytes[90..])
            .all(|&b| b == 0)
    );

    // empty: a zero-length segment.
    let co = load("gfx1100/empty.co");
    let bytes = KernargBuilder::new(co.kernel("empty").unwrap())
        .finish(&DispatchShape::linear(1, 1))
        .unwrap();
    assert!(bytes.is_empty());
}

#[test]
fn kernarg_errors_name_the_argument() {
    let co = load("gfx1100/saxpy.co");
    let k = co.kernel("saxpy").unwrap();
    let mut b = KernargBuilder::new(k);
    b.set_f32(ArgRef::Index(0), 1.0).unwrap();
    b.set_ptr(ArgRef::Index(1), 0).unwrap();
    b.set_ptr(ArgRef::Index(2), 0).unwrap();
    let n = ArgLabel {
        kernel: "saxpy".into(),
        index: 3,
        name: Some("n".into()),
    };
    let err = b.finish(&DispatchShape::linear(64, 64)).unwrap_err();
    assert_eq!(err, CodeObjectError::MissingArg { arg: n.clone() });
    assert_eq!(
        err.to_string(),
        "kernel argument 3 (`n`) of kernel `saxpy` was not set"
    );

    let err = b.set_u64(ArgRef::Name("n"), 1).unwrap_err();
    assert_eq!(
        err,
        CodeObjectError::ArgSizeMismatch {
            arg: n,
            given: 8,
            expected: 4
        }
    );
    assert!(
        err.to_string()
            .contains("8 bytes given, the argument is 4 bytes"),
        "{err}"
    );
    let err = b.set_u32(ArgRef::Name("z"), 1).unwrap_err();
    assert_eq!(
        err,
        CodeObjectError::UnknownArgName {
            kernel: "saxpy".into(),
            name: "z".into()
        }
    );
    // Index counts explicit args only: saxpy has 4 explicit (and 13 hidden) args.
    assert_eq!(
        b.set_u32(ArgRef::Index(4), 1).unwrap_err(),
        CodeObjectError::ArgIndexOutOfRange {
            kernel: "saxpy".into(),
            index: 4,
            count: 4
        }
    );

    b.set_u32(ArgRef::Name("n"), 64).unwrap();
    b.finish(&DispatchShape::linear(64, 64)).unwrap();
    let max = 65535;
    for (shape, expected) in [
        (
            DispatchShape::new([64, 1, 1], [0, 1, 1], 1),
            DispatchShapeError::WorkgroupSize {
                axis: 0,
                size: 0,
                max,
            },
        ),
        (
            DispatchShape::new([64, 1, 1], [64, 1, 1], 0),
            DispatchShapeError::Dims { dims: 0 },
        ),
        (
            DispatchShape::new([64, 1, 1], [64, 1, 1], 4),
            DispatchShapeError::Dims { dims: 4 },
        ),
        (
            DispatchShape::new([64, 1, 1], [70000, 1, 1], 1),
            DispatchShapeError::WorkgroupSize {
                axis: 0,
                size: 70000,
                max,
            },
        ),
    ] {
        assert_eq!(
            b.finish(&shape),
            Err(CodeObjectError::BadDispatchShape(expected)),
            "{shape:?}"
        );
    }
}

// ---- malformed inputs: the right error variant for each ----

#[test]
fn not_elf_and_truncated_headers() {
    assert_eq!(parse_err(b""), CodeObjectError::NotElf);
    assert_eq!(parse_err(b"\x7fEL"), CodeObjectError::NotElf);
    assert_eq!(
        parse_err(b"MZ\x90\x00 not an elf at all"),
        CodeObjectError::NotElf
    );
    let bytes = kernel_file("gfx1100/saxpy.co");
    assert!(matches!(
        CodeObject::parse(&bytes[..40]),
        Err(CodeObjectError::Truncated(TruncatedPart::Header {
            needed: 64,
            len: 40
        }))
    ));
    // Cut inside the code segment: the section header table (at the end) is gone first.
    for cut in [0x100usize, 0x900, 0xa00, bytes.len() - 1] {
        let err = CodeObject::parse(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(err, CodeObjectError::Truncated { .. }),
            "cut at {cut:#x}: {err}"
        );
    }
}

#[test]
fn wrong_machine_class_version_and_type() {
    let original = kernel_file("gfx1100/saxpy.co");
    let mut bytes = original.clone();
    bytes[18..20].copy_from_slice(&62u16.to_le_bytes()); // EM_X86_64
    assert_eq!(
        parse_err(&bytes),
        CodeObjectError::NotAmdgpu { e_machine: 62 }
    );

    let mut bytes = original.clone();
    bytes[4] = 1; // ELFCLASS32
    assert_eq!(
        parse_err(&bytes),
        CodeObjectError::Unsupported(Unsupported::ElfClass { class: 1 })
    );

    let mut bytes = original.clone();
    bytes[8] = 1; // EI_ABIVERSION 1 = code object v3
    let err = CodeObject::parse(&bytes).unwrap_err();
    assert_eq!(
        err,
        CodeObjectError::Unsupported(Unsupported::AbiVersion { abi_version: 1 })
    );
    // The message names the code object version, not only the ABI byte.
    assert!(err.to_string().contains("v3"), "{err}");

    let mut bytes = original.clone();
    bytes[7] = 65; // ELFOSABI_AMDGPU_PAL
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(CodeObjectError::Unsupported(Unsupported::OsAbi {
            os_abi: 65,
            ..
        }))
    ));

    let mut bytes = original.clone();
    bytes[16..18].copy_from_slice(&1u16.to_le_bytes()); // ET_REL
    assert_eq!(
        parse_err(&bytes),
        CodeObjectError::NotLoadable { e_type: 1 }
    );

    let mut bytes = original.clone();
    bytes[48] = 0x01; // e_flags processor 0x01 is not assigned
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(CodeObjectError::Unsupported(Unsupported::Processor { .. }))
    ));

    // v4 and v6 identification are accepted (the layout is the same).
    for (abi, version) in [(2u8, 4u32), (4, 6)] {
        let mut bytes = original.clone();
        bytes[8] = abi;
        assert_eq!(
            CodeObject::parse(&bytes).unwrap().code_object_version(),
            version
        );
    }
}

/// saxpy/gfx1100: the .note section is at file offset 0x200; its one record has namesz 7
/// ("AMDGPU\0", padded to 8) and type 32, so the msgpack description starts at 0x214.
const NOTE: usize = 0x200;
const NOTE_DESC: usize = 0x214;

#[test]
fn corrupted_metadata_note() {
    let original = kernel_file("gfx1100/saxpy.co");
    assert_eq!(
        u32::from_le_bytes(original[NOTE..NOTE + 4].try_into().unwrap()),
        7
    );
    assert_eq!(
        u32::from_le_bytes(original[NOTE + 8..NOTE + 12].try_into().unwrap()),
        32
    );
    assert_eq!(&original[NOTE + 12..NOTE + 19], b"AMDGPU\0");
    assert_eq!(
        original[NOTE_DESC] & 0xf0,
        0x80,
        "desc starts with a msgpack fixmap"
    );

    let mut bytes = original.clone();
    bytes[NOTE_DESC] = 0xc1; // never used in MessagePack
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(CodeObjectError::MetadataShape(
            MsgpackShapeError::InvalidMarker {
                marker: 0xc1,
                offset: 0
            }
        ))
    ));

    let mut bytes = original.clone();
    bytes[NOTE_DESC] = 0x93; // the root becomes an array
    assert_eq!(
        parse_err(&bytes),
        CodeObjectError::BadMetadata(MetadataError::NotAMap {
            node: MetadataNode::Root
        })
    );

    // Deep nesting (fixarray of one element, over and over) is cut off by the decoder's depth limit.
    let mut bytes = original.clone();
    let desc_len = u32::from_le_bytes(original[NOTE + 4..NOTE + 8].try_into().unwrap()) as usize;
    bytes[NOTE_DESC..NOTE_DESC + desc_len].fill(0x91);
    assert!(matches!(
        parse_err(&bytes),
        CodeObjectError::MetadataShape(MsgpackShapeError::TooDeep { limit: 16 })
    ));

    let mut bytes = original.clone();
    bytes[NOTE + 8] = 33; // another note type: no metadata left
    assert_eq!(parse_err(&bytes), CodeObjectError::MissingMetadata);

    let mut bytes = original.clone();
    bytes[NOTE + 4..NOTE + 8].copy_from_slice(&0x10_0000u32.to_le_bytes()); // descsz past the segment
    assert!(matches!(
        CodeObject::parse(&bytes),
        Err(CodeObjectError::BadNote { .. })
    ));
}

/// Re-encode saxpy's metadata with one change, in place. rmpv's encoding is a little longer
/// than LLVM's, so the kernel's `.language`/`.language_version` keys (unused by the loader) are
/// dropped to make room; bytes after the msgpack value are ignored.
fn saxpy_with_metadata(edit: impl FnOnce(&mut rmpv::Value)) -> Vec<u8> {
    let mut bytes = kernel_file("gfx1100/saxpy.co");
    let desc_len = u32::from_le_bytes(bytes[NOTE + 4..NOTE + 8].try_into().unwrap()) as usize;
    let desc = &bytes[NOTE_DESC..NOTE_DESC + desc_len];
    let mut value = rmpv::decode::read_value(&mut &desc[..]).unwrap();
    if let rmpv::Value::Map(entries) = first_kernel(&mut value) {
        entries.retain(|(k, _)| !matches!(k.as_str(), Some(".language" | ".language_version")));
    }
    edit(&mut value);
    let mut encoded = Vec::new();
    rmpv::encode::write_value(&mut encoded, &value).unwrap();
    assert!(encoded.len() <= desc_len, "{} > {desc_len}", encoded.len());
    encoded.resize(desc_len, 0);
    bytes[NOTE_DESC..NOTE_DESC + desc_len].copy_from_slice(&encoded);
    bytes
}

fn map_entry<'v>(map: &'v mut rmpv::Value, key: &str) -> &'v mut rmpv::Value {
    let rmpv::Value::Map(entries) = map else {
        panic!("not a map")
    };
    &mut entries
        .iter_mut()
        .find(|(k, _)| k.as_str() == Some(key))
        .unwrap()
        .1
}

fn first_kernel(root: &mut rmpv::Value) -> &mut rmpv::Value {
    let rmpv::Value::Array(kernels) = map_entry(root, "amdhsa.kernels") else {
        panic!()
    };
    &mut kernels[0]
}

#[test]
fn inconsistent_metadata_is_rejected() {
    // Unchanged re-encoding parses to the same kernel.
    let same = CodeObject::parse(&saxpy_with_metadata(|_| {})).unwrap();
    assert_eq!(same.kernels(), load("gfx1100/saxpy.co").kernels());

    let err = CodeObject::parse(&saxpy_with_metadata(|root| {
        *map_entry(first_kernel(root), ".kernarg_segment_size") = 8.into();
    }))
    .unwrap_err();
    assert_eq!(
        err,
        CodeObjectError::BadMetadata(MetadataError::ArgumentOutsideSegment {
            kernel: "saxpy".into(),
            index: 1,
            value_kind: ValueKind::GlobalBuffer,
            offset: 8,
            end: 16,
            segment_size: 8
        })
    );
    assert!(
        err.to_string().contains("past the kernarg segment size 8"),
        "{err}"
    );

    let err = CodeObject::parse(&saxpy_with_metadata(|root| {
        *map_entry(first_kernel(root), ".symbol") = "nothere.kd".into();
    }))
    .unwrap_err();
    assert_eq!(
        err,
        CodeObjectError::BadMetadata(MetadataError::MissingDescriptor {
            kernel: "saxpy".into(),
            symbol: "nothere.kd".into()
        })
    );
    assert!(err.to_string().contains("nothere.kd"), "{err}");

    let err = CodeObject::parse(&saxpy_with_metadata(|root| {
        *map_entry(first_kernel(root), ".wavefront_size") = "32".into();
    }))
    .unwrap_err();
    assert_eq!(
        err,
        CodeObjectError::BadMetadata(MetadataError::WrongType {
            node: MetadataNode::Kernel {
                kernel: "saxpy".into()
            },
            key: ".wavefront_size",
            expected: MetadataType::U32
        }),
        "{err}"
    );

    let err = CodeObject::parse(&saxpy_with_metadata(|root| {
        *map_entry(root, "amdhsa.version") = rmpv::Value::Array(vec![2.into(), 0.into()]);
    }))
    .unwrap_err();
    assert_eq!(
        err,
        CodeObjectError::Unsupported(Unsupported::MetadataVersion { major: 2, minor: 0 })
    );

    // An unknown value kind is kept, and a hidden one is zero-filled by the builder.
    let co = CodeObject::parse(&saxpy_with_metadata(|root| {
        let rmpv::Value::Array(args) = map_entry(first_kernel(root), ".args") else {
            panic!()
        };
        *map_entry(&mut args[5], ".value_kind") = "hidden_future".into();
    }))
    .unwrap();
    let k = co.kernel("saxpy").unwrap();
    assert_eq!(
        k.args[5].value_kind,
        ValueKind::Unknown("hidden_future".into())
    );
    assert!(k.args[5].value_kind.is_hidden());
    let mut b = KernargBuilder::new(k);
    b.set_f32(ArgRef::Index(0), 1.0)
        .unwrap()
        .set_ptr(ArgRef::Index(1), 1)
        .unwrap();
    b.set_ptr(ArgRef::Index(2), 2)
        .unwrap()
        .set_u32(ArgRef::Index(3), 3)
        .unwrap();
    let bytes = b
        .finish(&DispatchShape::new([64, 64, 1], [8, 8, 1], 2))
        .unwrap();
    assert_eq!(&bytes[32..36], &8u32.to_le_bytes()); // block_count_x still filled
    assert_eq!(&bytes[36..40], &[0; 4]); // block_count_y (now "hidden_future") left zero
}
