//! Image instructions end to end: the clang-19 kernel
//! kernels/image/image_ops.ll (image.load.2d, image.store.2d, getresinfo
//! and an NSA 2D-array load, built by kernels/image/build.sh) dispatched
//! through the runtime on a gfxsim device, its T#s built with
//! `aqueduct_isa::gfx11::image_desc`, results checked against the host;
//! and the sanitizer seeing a texel read past its allocation.

use aqueduct_gfxsim::{Finding, SanitizerConfig, SimConfig, Tool};
use aqueduct_isa::Access;
use aqueduct_isa::gfx11::image_desc::{
    ImageDescriptor, ImageDim, ImageFormat, linear_texel_offset,
};
use aqueduct_test_harness::hsa_sim::{
    Gpu, Launch, Program, Rng, SIM_THREADS, host_bytes, host_bytes_mut, read_u32,
};

const W: u32 = 32;
const H: u32 = 4;

fn gpu() -> Gpu {
    Gpu::with_config(SimConfig {
        threads: SIM_THREADS,
        sanitize: SanitizerConfig::all(),
        ..SimConfig::default()
    })
}

fn load(gpu: &Gpu) -> Program {
    let bytes = aqueduct_test_support::repo::read("kernels/image/gfx1100/image_ops.co");
    gpu.load_bytes(&bytes, "image_ops")
        .expect("image_ops.co loads")
}

/// The kernarg block of image_ops: three T#s (32-byte aligned) and two
/// pointers, as its metadata lays them out.
fn launch(gpu: &Gpu, program: &Program, tsharps: [[u32; 8]; 3], info: u64, out: u64) -> Launch {
    let mut bytes: Vec<u8> = tsharps
        .concat()
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    bytes.extend_from_slice(&info.to_le_bytes());
    bytes.extend_from_slice(&out.to_le_bytes());
    assert_eq!(
        bytes.len() as u64,
        program.kernel.info.kernarg_segment_size as u64
    );
    let mut kernarg = gpu
        .rt
        .kernargs(&gpu.agent)
        .expect("kernarg region")
        .allocate(bytes.len() as u64)
        .expect("kernarg block");
    kernarg.as_mut_slice()[..bytes.len()].copy_from_slice(&bytes);
    let dispatch = program
        .kernel
        .dispatch(kernarg.gpu_va(), [W * H, 1, 1], [W as u16, 1, 1]);
    Launch { kernarg, dispatch }
}

/// The kernel's three images: rgba8unorm source and rgba16float
/// destination (W x H), and an r32float 2D array of H layers.
fn descriptors(src: u64, dst: u64, lay: u64) -> [ImageDescriptor; 3] {
    [
        ImageDescriptor::linear(src, ImageFormat::Rgba8Unorm, ImageDim::D2, W, H, 1),
        ImageDescriptor::linear(dst, ImageFormat::Rgba16Float, ImageDim::D2, W, H, 1),
        ImageDescriptor::linear(lay, ImageFormat::R32Float, ImageDim::D2Array, W, H, H),
    ]
}

#[test]
fn the_image_kernel_runs_on_gfxsim_with_no_sanitizer_findings() {
    let gpu = gpu();
    let program = load(&gpu);
    let mut rng = Rng::new(17);
    let mut src = gpu.alloc(256 * H as u64);
    let dst = gpu.alloc(256 * H as u64);
    let mut lay = gpu.alloc(256 * (H * H) as u64);
    let info = gpu.alloc(16);
    let out = gpu.alloc(4 * (W * H) as u64);
    for b in host_bytes_mut(&mut src) {
        *b = rng.u32() as u8;
    }
    let lay_vals: Vec<f32> = (0..64 * H * H).map(|k| k as f32 * 0.25).collect();
    host_bytes_mut(&mut lay).copy_from_slice(bytemuck::cast_slice(&lay_vals));
    let [tsrc, tdst, tlay] = descriptors(src.gpu_va(), dst.gpu_va(), lay.gpu_va());
    let l = launch(
        &gpu,
        &program,
        [tsrc, tdst, tlay].map(|d| d.encode().expect("encodable")),
        info.gpu_va(),
        out.gpu_va(),
    );
    gpu.run_on(&gpu.queue(64), &l).expect("runs");
    assert_eq!(read_u32(&info, 4), vec![W, H, 1, 1], "resinfo");
    let (s, d) = (host_bytes(&src), host_bytes(&dst));
    let got = read_u32(&out, (W * H) as usize);
    for y in 0..H {
        for x in 0..W {
            let so = linear_texel_offset(&tsrc, x, y, 0, 0) as usize;
            let doff = linear_texel_offset(&tdst, x, y, 0, 0) as usize;
            for c in 0..4 {
                let want = half::f16::from_f32(s[so + c] as f32 / 255.0 * 2.0).to_bits();
                let have = u16::from_le_bytes([d[doff + 2 * c], d[doff + 2 * c + 1]]);
                assert_eq!(have, want, "({x}, {y}) component {c}");
            }
            // Layer y, texel (x, y): rows of 64 texels, slices of H rows.
            let want = lay_vals[((y * H + y) * 64 + x) as usize];
            assert_eq!(
                f32::from_bits(got[(y * W + x) as usize]),
                want,
                "({x}, {y})"
            );
        }
    }
    assert!(
        gpu.sim.sanitizer_reports().is_empty(),
        "{:#?}",
        gpu.sim.sanitizer_reports()
    );
}

#[test]
fn a_texel_read_past_the_allocation_is_a_memcheck_finding() {
    let gpu = gpu();
    let program = load(&gpu);
    // Three rows allocated, four described: workgroup 3 reads row 3.
    let src = gpu.alloc(256 * 3);
    let dst = gpu.alloc(256 * H as u64);
    let lay = gpu.alloc(256 * (H * H) as u64);
    let info = gpu.alloc(16);
    let out = gpu.alloc(4 * (W * H) as u64);
    let [tsrc, tdst, tlay] = descriptors(src.gpu_va(), dst.gpu_va(), lay.gpu_va());
    let l = launch(
        &gpu,
        &program,
        [tsrc, tdst, tlay].map(|d| d.encode().expect("encodable")),
        info.gpu_va(),
        out.gpu_va(),
    );
    gpu.run_on(&gpu.queue(64), &l)
        .expect("the read stays inside the BO's page: no fault");
    let reports = gpu.sim.sanitizer_reports();
    assert_eq!(reports.len(), 1, "{reports:#?}");
    assert_eq!(reports[0].tool(), Tool::Memcheck);
    let Finding::GlobalOverrun {
        access,
        address,
        size,
        allocation,
        ..
    } = reports[0].finding
    else {
        panic!("{:?}", reports[0]);
    };
    assert_eq!((access, size), (Access::Read, 4));
    assert_eq!(allocation.base, src.gpu_va());
    assert!(
        (src.gpu_va() + 768..src.gpu_va() + 1024).contains(&address),
        "{address:#x}"
    );
}
