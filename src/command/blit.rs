//! The facade's own kernels. Copies and clears are the WGSL blit kernels
//! of shaders/ (`copy_bytes`, `fill_u32`, precompiled per target by
//! aqueduct-shaderc and bound through their reflection like any precompiled
//! shader); indirect dispatch uses `dispatch_patch` (src/blit_kernels/blit.cl,
//! OpenCL because it writes an AQL packet and needs a system-scope release
//! store, which WGSL cannot express) and query resolves `copy_strided_u64`
//! (same file: it gathers the 64-bit `end_ts` of each query's 64-byte
//! signal). All run on the device's compute queue; copies and fills large
//! enough for it go to the SDMA engine instead when the device has one
//! (`use_sdma`, `src/queue/sdma.rs`).

use std::sync::Arc;

use aqueduct_hsa::{Agent, Executable, Kernel, Runtime};

use crate::error::DeviceInitError;
use crate::shader::{EntryPoint, load_precompiled};
use crate::wgsl::ShaderCache;

/// One target's blit objects: (gfx name, patch kernel, [(wgsl object, reflection)]).
type TargetObjects = (
    &'static str,
    &'static [u8],
    [(&'static [u8], &'static str); 2],
);

macro_rules! wgsl_blit {
    ($gfx:literal, $name:literal) => {
        (
            include_bytes!(concat!("../../shaders/", $gfx, "/", $name, ".co")) as &[u8],
            include_str!(concat!("../../shaders/", $gfx, "/", $name, ".reflect.json")),
        )
    };
}

macro_rules! target {
    ($gfx:literal) => {
        (
            $gfx,
            include_bytes!(concat!("../blit_kernels/", $gfx, "/blit.co")) as &[u8],
            [wgsl_blit!($gfx, "fill_u32"), wgsl_blit!($gfx, "copy_bytes")],
        )
    };
}

const BLIT_OBJECTS: &[TargetObjects] = &[target!("gfx1100"), target!("gfx942"), target!("gfx90a")];

#[derive(Debug)]
pub(crate) struct BlitKernels {
    /// Everything the kernels live in (kept alive by each submission).
    pub executables: Arc<[Arc<Executable>]>,
    /// `fill_u32(dst: storage rw, params: uniform {offset, size, pattern})`.
    pub fill: EntryPoint,
    /// `copy_bytes(src: storage r, dst: storage rw, params: uniform {src_offset, dst_offset, size})`.
    pub copy: EntryPoint,
    pub dispatch_patch: Kernel,
    /// `copy_strided_u64(src: global uchar*, src_stride: uint, dst: global ulong*, count: uint)`.
    pub copy_strided: Kernel,
    /// The smallest copy or fill the SDMA engine takes, when the device
    /// has one (`src/queue/sdma.rs`).
    pub sdma_min_bytes: Option<u64>,
}

impl BlitKernels {
    /// Whether a copy or fill of `bytes` goes to the SDMA engine.
    pub(crate) fn use_sdma(&self, bytes: u64) -> bool {
        self.sdma_min_bytes.is_some_and(|min| bytes >= min)
    }
}

impl BlitKernels {
    /// Load the target's blit objects; the WGSL ones whose reflection has a
    /// source hash also join `cache`, so a WGSL module with the same text
    /// uses them without compiling.
    pub(crate) fn load(
        runtime: &Runtime,
        agent: &Agent,
        cache: &ShaderCache,
    ) -> Result<BlitKernels, DeviceInitError> {
        let (_, patch_code, wgsl) = BLIT_OBJECTS
            .iter()
            .find(|(gfx, _, _)| *gfx == agent.name)
            .ok_or_else(|| DeviceInitError::NoBlitKernels {
                target: agent.name.clone(),
                built: BLIT_OBJECTS.iter().map(|(g, _, _)| *g).collect(),
            })?;
        let patch_exe = Arc::new(runtime.load_executable(agent, patch_code)?);
        let dispatch_patch = patch_exe.kernel("dispatch_patch")?;
        let copy_strided = patch_exe.kernel("copy_strided_u64")?;
        let mut executables = vec![patch_exe];
        let mut entry = |(code, reflection): (&[u8], &str), name: &'static str| {
            let loaded = load_precompiled(runtime, agent, code, reflection)
                .map_err(|source| DeviceInitError::BlitKernel { name, source })?;
            executables.push(loaded.executable.clone());
            cache.insert_loaded(&agent.name, &loaded);
            loaded
                .entry_points
                .into_iter()
                .find(|e| e.name == name)
                .ok_or(DeviceInitError::MissingBlitEntryPoint { name })
        };
        let fill = entry(wgsl[0], "fill_u32")?;
        let copy = entry(wgsl[1], "copy_bytes")?;
        Ok(BlitKernels {
            executables: executables.into(),
            fill,
            copy,
            dispatch_patch,
            copy_strided,
            sdma_min_bytes: None,
        })
    }
}
