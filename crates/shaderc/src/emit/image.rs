//! Textures: which WGSL texture types have a lowering, their binding
//! reflection, and `textureLoad`, `textureStore`, the texture atomics,
//! `textureDimensions`,
//! `textureNumLevels` and `textureNumLayers` over the AMDGPU image
//! intrinsics (LLVM `IntrinsicsAMDGPU.td`, the `llvm.amdgcn.image.*`
//! dimension-aware intrinsics).
//!
//! A texture is its 32-byte image resource descriptor (T#), a by-value
//! `<8 x i32>` kernel argument the kernel loads into SGPRs; every image
//! instruction takes it whole. Loads always ask for four components: the
//! descriptor's DST_SEL fills the components a format lacks with 0 (and
//! alpha with 1), which is WGSL's rule for `textureLoad` ("Texel Formats":
//! missing channels read as 0, alpha as 1). Stores write the format's
//! components only (dmask = that many low bits), as the AMD RDNA3 ISA guide
//! ("Image Instructions", DMASK) has the data VGPRs hold the enabled
//! components packed. A bgra8unorm storage texture is bound as an
//! identity-swizzled RGBA8 view and its loads and stores swap red and blue
//! in the shader (`is_bgra_storage`). Out-of-bounds coordinates, layers and
//! levels are the hardware's: loads return 0 and stores are dropped, which
//! WGSL allows.
//!
//! Samplers are their 16-byte sampler descriptor (S#), a by-value
//! `<4 x i32>` kernel argument. Compute has no implicit derivatives, so
//! the explicit-LOD and explicit-derivative forms lower:
//! `textureSampleLevel` to `image.sample.l`, `textureSampleCompareLevel`
//! (level 0) to `image.sample.c.lz`, `textureGather` to `image.gather4.lz`
//! (dmask: the component), `textureGatherCompare` to `image.gather4.c.lz`,
//! `textureSampleGrad` to `image.sample.d` (the derivatives ∂/∂x of each
//! coordinate, then ∂/∂y) and `textureSampleBaseClampToEdge` to
//! `image.sample.lz` of the coordinate clamped to half a texel inside the
//! edges. A const `offset` argument selects the `.o` variant of each,
//! whose first address operand packs the offsets (`packed_offset`).
//! Coordinates are f32 (normalised), the layer an f32 of the integer
//! index, the depth reference first after the offset (the intrinsics'
//! operand order, LLVM `AMDGPUImageDimIntrinsic`). Cube textures sample
//! by direction: the face and its coordinates come from the
//! `llvm.amdgcn.cube*` intrinsics (`cube_address`), then the `cube` dim of
//! the same intrinsics; `textureNumLayers` of a cube array divides the T#'s
//! face count by 6; `textureSampleGrad` on cube textures passes the face
//! derivatives (`cube_gradient`). The implicit-derivative and bias forms
//! are refused (`UnsupportedKind::Sampling`).

use naga::{
    AtomicFunction, Expression, Handle, ImageClass, ImageDimension, ImageQuery, SampleLevel,
    ScalarKind, StorageAccess, StorageFormat, SwizzleComponent, TypeInner,
};

use super::func::{FnEmitter, Val};
use crate::error::{EmitResult, UnsupportedKind, unsupported, unsupported_as};
use crate::reflect::{
    StorageTextureAccess, StorageTextureFormat, TextureReflection, TextureSampleType,
    TextureViewDimension,
};

/// The LLVM type of a texture value: its image descriptor.
pub(crate) const DESCRIPTOR_TY: &str = "<8 x i32>";

/// The LLVM type of a sampler value: its sampler descriptor.
pub(crate) const SAMPLER_TY: &str = "<4 x i32>";

/// The operands of a naga `ImageSample` expression.
pub(crate) struct SampleOperands {
    pub(crate) image: Handle<Expression>,
    pub(crate) sampler: Handle<Expression>,
    pub(crate) gather: Option<SwizzleComponent>,
    pub(crate) coordinate: Handle<Expression>,
    pub(crate) array_index: Option<Handle<Expression>>,
    pub(crate) offset: Option<Handle<Expression>>,
    pub(crate) level: SampleLevel,
    pub(crate) depth_ref: Option<Handle<Expression>>,
    pub(crate) clamp_to_edge: bool,
}

/// The binding reflection of a texture type, or the class of construct it
/// is and its description when it has no lowering.
pub(crate) fn texture_reflection(
    dim: ImageDimension,
    arrayed: bool,
    class: ImageClass,
) -> Result<TextureReflection, (UnsupportedKind, String)> {
    let refuse = |what: &str| Err((UnsupportedKind::TextureClass, what.to_string()));
    let view_dimension = match (dim, arrayed) {
        (ImageDimension::D1, false) => TextureViewDimension::D1,
        (ImageDimension::D2, false) => TextureViewDimension::D2,
        (ImageDimension::D2, true) => TextureViewDimension::D2Array,
        (ImageDimension::D3, false) => TextureViewDimension::D3,
        (ImageDimension::Cube, false) => TextureViewDimension::Cube,
        (ImageDimension::Cube, true) => TextureViewDimension::CubeArray,
        _ => return refuse("1D array textures"),
    };
    let mut texture = TextureReflection {
        view_dimension,
        access: None,
        format: None,
        sample_type: None,
        multisampled: false,
    };
    let multi = is_multisampled(class);
    if multi && view_dimension != TextureViewDimension::D2 {
        // WebGPU's multisampled textures are 2D views only.
        return refuse("multisampled textures other than 2D");
    }
    texture.multisampled = multi;
    match class {
        ImageClass::Sampled { kind, .. } => {
            texture.sample_type = Some(match kind {
                ScalarKind::Sint => TextureSampleType::Sint,
                ScalarKind::Uint => TextureSampleType::Uint,
                _ => TextureSampleType::Float,
            });
        }
        ImageClass::Depth { .. } => {
            texture.sample_type = Some(TextureSampleType::Depth);
        }
        ImageClass::External => return refuse("external textures"),
        ImageClass::Storage { format, access } => {
            let Some(format) = storage_format(format) else {
                return refuse(&format!("storage textures of format {format:?}"));
            };
            texture.format = Some(format);
            texture.access = Some(
                match (
                    access.contains(StorageAccess::LOAD),
                    access.contains(StorageAccess::STORE),
                ) {
                    _ if access.contains(StorageAccess::ATOMIC) => StorageTextureAccess::Atomic,
                    (true, true) => StorageTextureAccess::ReadWrite,
                    (true, false) => StorageTextureAccess::ReadOnly,
                    _ => StorageTextureAccess::WriteOnly,
                },
            );
        }
    }
    Ok(texture)
}

/// Whether `class` is a multisampled texture (sampled or depth).
fn is_multisampled(class: ImageClass) -> bool {
    matches!(
        class,
        ImageClass::Sampled { multi: true, .. } | ImageClass::Depth { multi: true }
    )
}

/// The reflection name of a naga storage format (None: no 64-bit texels).
fn storage_format(format: StorageFormat) -> Option<StorageTextureFormat> {
    use StorageFormat as N;
    use StorageTextureFormat as F;
    Some(match format {
        N::R8Unorm => F::R8Unorm,
        N::R8Snorm => F::R8Snorm,
        N::R8Uint => F::R8Uint,
        N::R8Sint => F::R8Sint,
        N::R16Uint => F::R16Uint,
        N::R16Sint => F::R16Sint,
        N::R16Float => F::R16Float,
        N::Rg8Unorm => F::Rg8Unorm,
        N::Rg8Snorm => F::Rg8Snorm,
        N::Rg8Uint => F::Rg8Uint,
        N::Rg8Sint => F::Rg8Sint,
        N::R32Uint => F::R32Uint,
        N::R32Sint => F::R32Sint,
        N::R32Float => F::R32Float,
        N::Rg16Uint => F::Rg16Uint,
        N::Rg16Sint => F::Rg16Sint,
        N::Rg16Float => F::Rg16Float,
        N::Rgba8Unorm => F::Rgba8Unorm,
        N::Rgba8Snorm => F::Rgba8Snorm,
        N::Rgba8Uint => F::Rgba8Uint,
        N::Rgba8Sint => F::Rgba8Sint,
        N::Bgra8Unorm => F::Bgra8Unorm,
        N::Rgb10a2Uint => F::Rgb10a2Uint,
        N::Rgb10a2Unorm => F::Rgb10a2Unorm,
        N::Rg11b10Ufloat => F::Rg11b10Ufloat,
        N::Rg32Uint => F::Rg32Uint,
        N::Rg32Sint => F::Rg32Sint,
        N::Rg32Float => F::Rg32Float,
        N::Rgba16Uint => F::Rgba16Uint,
        N::Rgba16Sint => F::Rgba16Sint,
        N::Rgba16Float => F::Rgba16Float,
        N::Rgba32Uint => F::Rgba32Uint,
        N::Rgba32Sint => F::Rgba32Sint,
        N::Rgba32Float => F::Rgba32Float,
        N::R16Unorm => F::R16Unorm,
        N::R16Snorm => F::R16Snorm,
        N::Rg16Unorm => F::Rg16Unorm,
        N::Rg16Snorm => F::Rg16Snorm,
        N::Rgba16Unorm => F::Rgba16Unorm,
        N::Rgba16Snorm => F::Rgba16Snorm,
        N::R64Uint => return None,
    })
}

/// Is `class` a bgra8unorm storage texture? Its binding's T# is the
/// identity-swizzled `8_8_8_8` UNORM view the facade builds for storage
/// (WebGPU "bgra8unorm-storage"), so the shader swaps red and blue itself.
/// DST_SEL (AMD RDNA3 ISA guide, "Image Resource", DST_SEL_X..W) selects
/// the components a read returns; no public source we found states that
/// image stores apply it in reverse, so no store relies on it (the gpuweb
/// discussion of "bgra8unorm-storage", gpuweb PR 3640, reaches the same
/// arrangement for Vulkan: an rgba8 view and a swizzle in the shader).
fn is_bgra_storage(class: ImageClass) -> bool {
    matches!(
        class,
        ImageClass::Storage {
            format: StorageFormat::Bgra8Unorm,
            ..
        }
    )
}

/// `float`, `<2 x float>`, ...: the data type of `n` image components
/// (the intrinsics carry integer texels as float bits).
fn float_data_ty(n: u32) -> String {
    if n == 1 {
        "float".into()
    } else {
        format!("<{n} x float>")
    }
}

/// What the image intrinsics need to know of a texture expression.
struct ImageShape {
    /// The intrinsic's dimension suffix (`1d`, `2d`, `2darray`, `3d`,
    /// `cube`).
    dim: &'static str,
    /// Coordinate components before the layer (1, 2 or 3; cube: the 2 of
    /// the face, which the queries report).
    coords: u32,
    arrayed: bool,
    cube: bool,
    class: ImageClass,
}

impl FnEmitter<'_> {
    fn image_shape(&self, image: Handle<Expression>) -> EmitResult<ImageShape> {
        let span = self.span_of(image);
        let TypeInner::Image {
            dim,
            arrayed,
            class,
        } = *self.inner_of(image)
        else {
            return unsupported("an image operation on a non-texture", span);
        };
        texture_reflection(dim, arrayed, class)
            .or_else(|(kind, what)| unsupported_as(kind, what, span))?;
        let (name, coords) = match (dim, arrayed) {
            // Multisampled: 2D only (texture_reflection), the sample index
            // after the coordinates (IMAGE_MSAA dims, RDNA3 ISA guide).
            _ if is_multisampled(class) => ("2dmsaa", 2),
            (ImageDimension::D1, _) => ("1d", 1),
            (ImageDimension::D2, false) => ("2d", 2),
            (ImageDimension::D2, true) => ("2darray", 2),
            (ImageDimension::Cube, _) => ("cube", 2),
            _ => ("3d", 3),
        };
        Ok(ImageShape {
            dim: name,
            coords,
            arrayed,
            cube: dim == ImageDimension::Cube,
            class,
        })
    }

    /// The i32 operands of an image address: coordinates, then the layer,
    /// then the mip level.
    fn image_address(
        &mut self,
        shape: &ImageShape,
        coordinate: Handle<Expression>,
        array_index: Option<Handle<Expression>>,
        level: Option<Handle<Expression>>,
    ) -> EmitResult<Vec<String>> {
        let c = self.val(coordinate)?;
        let mut address = Vec::new();
        if shape.coords == 1 {
            address.push(format!("i32 {}", c.v));
        } else {
            for i in 0..shape.coords {
                let x = self.def(&format!("extractelement {}, i32 {i}", c.typed()));
                address.push(format!("i32 {x}"));
            }
        }
        if shape.arrayed {
            let Some(layer) = array_index else {
                return unsupported(
                    "an arrayed texture access without a layer",
                    self.span_of(coordinate),
                );
            };
            address.push(format!("i32 {}", self.val(layer)?.v));
        }
        if let Some(level) = level {
            address.push(format!("i32 {}", self.val(level)?.v));
        }
        Ok(address)
    }

    /// `textureLoad`: a four-component `image_load` (`image_load_mip` with
    /// a level), as `<4 x float>` or `<4 x i32>` after the result type.
    pub(crate) fn image_load(
        &mut self,
        h: Handle<Expression>,
        image: Handle<Expression>,
        coordinate: Handle<Expression>,
        array_index: Option<Handle<Expression>>,
        sample: Option<Handle<Expression>>,
        level: Option<Handle<Expression>>,
    ) -> EmitResult<Val> {
        let span = self.span_of(h);
        let shape = self.image_shape(image)?;
        let rsrc = self.val(image)?;
        let mut address = self.image_address(&shape, coordinate, array_index, level)?;
        if let Some(sample) = sample {
            // A sample index past the texture's samples reads its last
            // sample, one of the results WGSL allows for an out-of-bounds
            // textureLoad.
            let index = self.val(sample)?;
            let index = self.index_i32(&index);
            let samples = self.image_samples(&rsrc);
            let last = self.def(&format!("sub i32 {samples}, 1"));
            let clamped = self.def(&format!(
                "call i32 @llvm.umin.i32(i32 {}, i32 {last})",
                index.v
            ));
            self.m
                .declare("declare i32 @llvm.umin.i32(i32, i32)".into());
            address.push(format!("i32 {clamped}"));
        }
        let (int, depth) = match self.inner_of(h) {
            TypeInner::Vector { scalar, .. } => (scalar.kind != ScalarKind::Float, false),
            // texture_depth_*: the one depth component.
            TypeInner::Scalar(_) if matches!(shape.class, ImageClass::Depth { .. }) => {
                (false, true)
            }
            _ => return unsupported("a textureLoad result that is not a vec4", span),
        };
        let (data_ty, suffix) = match (int, depth) {
            (_, true) => ("float", "f32"),
            (true, _) => ("<4 x i32>", "v4i32"),
            _ => ("<4 x float>", "v4f32"),
        };
        let dmask = if depth { 1 } else { 15 };
        let op = if level.is_some() { "load.mip" } else { "load" };
        let name = format!("llvm.amdgcn.image.{op}.{}.{suffix}.i32", shape.dim);
        let params = vec!["i32"; address.len()].join(", ");
        self.m.declare(format!(
            "declare {data_ty} @{name}(i32, {params}, {DESCRIPTOR_TY}, i32, i32)"
        ));
        let v = self.def(&format!(
            "call {data_ty} @{name}(i32 {dmask}, {}, {}, i32 0, i32 0)",
            address.join(", "),
            rsrc.typed()
        ));
        if is_bgra_storage(shape.class) {
            return Ok(Val::new(data_ty, self.swap_red_blue(data_ty, &v)));
        }
        Ok(Val::new(data_ty, v))
    }

    /// `v` with its first and third components exchanged: a bgra8unorm
    /// storage texture's texel in memory order (B, G, R, A) as WGSL's
    /// (R, G, B, A), and back.
    fn swap_red_blue(&mut self, ty: &str, v: &str) -> String {
        self.def(&format!(
            "shufflevector {ty} {v}, {ty} poison, <4 x i32> <i32 2, i32 1, i32 0, i32 3>"
        ))
    }

    /// `textureStore`: an `image_store` of the format's components.
    pub(crate) fn image_store(
        &mut self,
        image: Handle<Expression>,
        coordinate: Handle<Expression>,
        array_index: Option<Handle<Expression>>,
        value: Handle<Expression>,
        span: naga::Span,
    ) -> EmitResult<()> {
        let shape = self.image_shape(image)?;
        let ImageClass::Storage { format, .. } = shape.class else {
            return unsupported(
                "textureStore to a texture that is not a storage texture",
                span,
            );
        };
        let Some(format) = storage_format(format) else {
            return unsupported_as(UnsupportedKind::TextureClass, format!("{format:?}"), span);
        };
        let n = format.components();
        let rsrc = self.val(image)?;
        let address = self.image_address(&shape, coordinate, array_index, None)?;
        let mut v = self.val(value)?;
        if is_bgra_storage(shape.class) {
            let swapped = self.swap_red_blue(&v.ty, &v.v);
            v = Val::new(v.ty.clone(), swapped);
        }
        let elem = if v.ty.contains("float") {
            "float"
        } else {
            "i32"
        };
        let part = match n {
            1 => Val::new(
                elem,
                self.def(&format!("extractelement {}, i32 0", v.typed())),
            ),
            4 => v,
            _ => {
                let mask = (0..n).map(|i| format!("i32 {i}")).collect::<Vec<_>>();
                let ty = format!("<{n} x {elem}>");
                let s = self.def(&format!(
                    "shufflevector {}, {} poison, <{n} x i32> <{}>",
                    v.typed(),
                    v.ty,
                    mask.join(", ")
                ));
                Val::new(ty, s)
            }
        };
        let data_ty = float_data_ty(n);
        let data = if elem == "float" {
            part
        } else {
            Val::new(
                data_ty.clone(),
                self.def(&format!("bitcast {} to {data_ty}", part.typed())),
            )
        };
        let suffix = if n == 1 {
            "f32".into()
        } else {
            format!("v{n}f32")
        };
        let name = format!("llvm.amdgcn.image.store.{}.{suffix}.i32", shape.dim);
        let params = vec!["i32"; address.len()].join(", ");
        self.m.declare(format!(
            "declare void @{name}({data_ty}, i32, {params}, {DESCRIPTOR_TY}, i32, i32)"
        ));
        self.inst(&format!(
            "call void @{name}({}, i32 {}, {}, {}, i32 0, i32 0)",
            data.typed(),
            (1u32 << n) - 1,
            address.join(", "),
            rsrc.typed()
        ));
        Ok(())
    }

    /// `textureAtomicAdd`/`Min`/`Max`/`And`/`Or`/`Xor` on an r32uint or
    /// r32sint storage texture: one `llvm.amdgcn.image.atomic.*` of the
    /// texel (signed or unsigned min and max after the format). WGSL's
    /// texture atomics return nothing, so the intrinsic's result is unused;
    /// LLVM 19 still selects the returning form (GLC set), whose pre-op
    /// value lands in a VGPR nothing reads.
    pub(crate) fn image_atomic(
        &mut self,
        image: Handle<Expression>,
        coordinate: Handle<Expression>,
        array_index: Option<Handle<Expression>>,
        fun: AtomicFunction,
        value: Handle<Expression>,
        span: naga::Span,
    ) -> EmitResult<()> {
        let shape = self.image_shape(image)?;
        let signed = match shape.class {
            ImageClass::Storage {
                format: StorageFormat::R32Sint,
                ..
            } => true,
            ImageClass::Storage {
                format: StorageFormat::R32Uint,
                ..
            } => false,
            _ => {
                return unsupported_as(
                    UnsupportedKind::TextureClass,
                    "texture atomics on textures other than r32uint or r32sint storage",
                    span,
                );
            }
        };
        let op = match fun {
            AtomicFunction::Add => "add",
            AtomicFunction::And => "and",
            AtomicFunction::InclusiveOr => "or",
            AtomicFunction::ExclusiveOr => "xor",
            AtomicFunction::Min if signed => "smin",
            AtomicFunction::Min => "umin",
            AtomicFunction::Max if signed => "smax",
            AtomicFunction::Max => "umax",
            // naga's validator allows no other function on textures.
            AtomicFunction::Subtract | AtomicFunction::Exchange { .. } => {
                return unsupported_as(
                    UnsupportedKind::TextureClass,
                    format!("texture atomic {fun:?}"),
                    span,
                );
            }
        };
        let rsrc = self.val(image)?;
        let address = self.image_address(&shape, coordinate, array_index, None)?;
        let v = self.val(value)?;
        let name = format!("llvm.amdgcn.image.atomic.{op}.{}.i32.i32", shape.dim);
        let params = vec!["i32"; address.len()].join(", ");
        self.m.declare(format!(
            "declare i32 @{name}(i32, {params}, {DESCRIPTOR_TY}, i32, i32)"
        ));
        self.inst(&format!(
            "call i32 @{name}(i32 {}, {}, {}, i32 0, i32 0)",
            v.v,
            address.join(", "),
            rsrc.typed()
        ));
        Ok(())
    }

    /// The sample count of the multisampled texture whose descriptor is
    /// `rsrc`: a multisampled image's LAST_LEVEL (T# dword 3 bits 19:16)
    /// holds log2 of its samples (Mesa `ac_nir_lower_resinfo.c`,
    /// `query_samples`).
    fn image_samples(&mut self, rsrc: &Val) -> String {
        let word = self.def(&format!("extractelement {}, i32 3", rsrc.typed()));
        let shifted = self.def(&format!("lshr i32 {word}, 16"));
        let log2 = self.def(&format!("and i32 {shifted}, 15"));
        self.def(&format!("shl i32 1, {log2}"))
    }

    /// `textureDimensions`, `textureNumLevels`, `textureNumLayers`:
    /// `image_get_resinfo`, whose components are width, height, depth or
    /// layers, and the level count (AMD RDNA3 ISA guide, IMAGE_GET_RESINFO);
    /// `textureNumSamples` from the descriptor.
    pub(crate) fn image_query(
        &mut self,
        image: Handle<Expression>,
        query: ImageQuery,
    ) -> EmitResult<Val> {
        let shape = self.image_shape(image)?;
        let rsrc = self.val(image)?;
        let (dmask, level) = match query {
            ImageQuery::Size { level } => {
                let level = match level {
                    Some(l) => self.val(l)?.v,
                    None => "0".into(),
                };
                ((1u32 << shape.coords) - 1, level)
            }
            ImageQuery::NumLevels => (0b1000, "0".into()),
            // The layer count sits after the coordinates (y for 1D arrays,
            // z for 2D arrays).
            ImageQuery::NumLayers => (1 << shape.coords, "0".into()),
            ImageQuery::NumSamples => return Ok(Val::new("i32", self.image_samples(&rsrc))),
        };
        let n = dmask.count_ones();
        let data_ty = float_data_ty(n);
        let suffix = if n == 1 {
            "f32".into()
        } else {
            format!("v{n}f32")
        };
        let name = format!("llvm.amdgcn.image.getresinfo.{}.{suffix}.i32", shape.dim);
        self.m.declare(format!(
            "declare {data_ty} @{name}(i32, i32, {DESCRIPTOR_TY}, i32, i32)"
        ));
        let raw = self.def(&format!(
            "call {data_ty} @{name}(i32 {dmask}, i32 {level}, {}, i32 0, i32 0)",
            rsrc.typed()
        ));
        let int_ty = if n == 1 {
            "i32".into()
        } else {
            format!("<{n} x i32>")
        };
        let v = self.def(&format!("bitcast {data_ty} {raw} to {int_ty}"));
        if shape.cube && matches!(query, ImageQuery::NumLayers) {
            // The T# counts a cube array's faces; WGSL counts cubes (Mesa
            // divides resinfo's layer count by 6 the same way).
            let cubes = self.def(&format!("udiv i32 {v}, 6"));
            return Ok(Val::new(int_ty, cubes));
        }
        Ok(Val::new(int_ty, v))
    }

    /// An `f32` operand from a scalar expression: floats as they are,
    /// integers converted (layers and depth-texture levels are integers).
    fn float_operand(&mut self, e: Handle<Expression>) -> EmitResult<String> {
        let v = self.val(e)?;
        let kind = match self.inner_of(e) {
            TypeInner::Scalar(s) => s.kind,
            _ => return unsupported("a sampling operand that is not a scalar", self.span_of(e)),
        };
        Ok(match kind {
            ScalarKind::Float => format!("float {}", v.v),
            ScalarKind::Sint => format!(
                "float {}",
                self.def(&format!("sitofp {} to float", v.typed()))
            ),
            _ => format!(
                "float {}",
                self.def(&format!("uitofp {} to float", v.typed()))
            ),
        })
    }

    /// `v_cubeid/sc/tc/ma_f32` (`llvm.amdgcn.cube*`) of direction `dir` (a
    /// `<3 x float>`): the face, its two coordinates and the major axis.
    fn cube_face(&mut self, dir: &Val) -> (String, String, String, String) {
        let xyz: Vec<String> = (0..3)
            .map(|i| {
                let v = self.def(&format!("extractelement {}, i32 {i}", dir.typed()));
                format!("float {v}")
            })
            .collect();
        let args = xyz.join(", ");
        let mut part = |name: &str| {
            self.m.declare(format!(
                "declare float @llvm.amdgcn.{name}(float, float, float)"
            ));
            self.def(&format!("call float @llvm.amdgcn.{name}({args})"))
        };
        (
            part("cubeid"),
            part("cubesc"),
            part("cubetc"),
            part("cubema"),
        )
    }

    /// The (s, t, slice) address of a cube sample in direction `dir` (a
    /// `<3 x float>`), `layer` the cube of a cube array: the face and its
    /// coordinates from `v_cubeid/sc/tc/ma_f32` (`llvm.amdgcn.cube*`), as
    /// `sc / |ma| + 1.5`, `tc / |ma| + 1.5` and `8 * layer + face`, the
    /// form Mesa's drivers give the texture unit (`ac_nir_lower_tex.c`,
    /// `prepare_cube_coords`; gfxsim's `sample_cube.rs`).
    fn cube_address(&mut self, dir: &Val, layer: Option<String>) -> Vec<String> {
        let (id, sc, tc, ma) = self.cube_face(dir);
        let f = |v: String| Val::new("float", v);
        let abs = self.call_intrinsic("fabs", "float", &[&f(ma)]);
        self.m
            .declare("declare float @llvm.amdgcn.rcp.f32(float)".to_string());
        let inv = f(self.def(&format!("call float @llvm.amdgcn.rcp.f32({})", abs.typed())));
        let half3 = f("1.5".into());
        let s = self
            .call_intrinsic("fma", "float", &[&f(sc), &inv, &half3])
            .v;
        let t = self
            .call_intrinsic("fma", "float", &[&f(tc), &inv, &half3])
            .v;
        let slice = match layer {
            Some(l) => {
                let l = f(l.trim_start_matches("float ").to_string());
                self.call_intrinsic("fma", "float", &[&l, &f("8.0".into()), &f(id)])
                    .v
            }
            None => id,
        };
        vec![
            format!("float {s}"),
            format!("float {t}"),
            format!("float {slice}"),
        ]
    }

    /// The packed offset dword of the `_o` intrinsics from a WGSL const
    /// offset (`vec2<i32>` or `vec3<i32>`): 6 bits per coordinate at bits
    /// 5:0, 13:8 and 21:16 (AMD RDNA3 ISA guide, "Image Instructions", the
    /// offset address component); LLVM folds the constant.
    fn packed_offset(&mut self, offset: Handle<Expression>) -> EmitResult<String> {
        let v = self.val(offset)?;
        let n = match self.inner_of(offset) {
            TypeInner::Vector { size, .. } => *size as u32,
            _ => 1,
        };
        let mut packed = "0".to_string();
        for i in 0..n {
            let c = if n == 1 {
                v.v.clone()
            } else {
                self.def(&format!("extractelement {}, i32 {i}", v.typed()))
            };
            let bits = self.def(&format!("and i32 {c}, 63"));
            let placed = self.def(&format!("shl i32 {bits}, {}", 8 * i));
            packed = self.def(&format!("or i32 {packed}, {placed}"));
        }
        Ok(format!("i32 {packed}"))
    }

    /// The `n` f32 components of a coordinate-shaped value (a scalar or a
    /// vector), as intrinsic operands.
    fn float_components(&mut self, e: Handle<Expression>, n: u32) -> EmitResult<Vec<String>> {
        let v = self.val(e)?;
        if n == 1 {
            return Ok(vec![format!("float {}", v.v)]);
        }
        Ok((0..n)
            .map(|i| {
                let x = self.def(&format!("extractelement {}, i32 {i}", v.typed()));
                format!("float {x}")
            })
            .collect())
    }

    /// The face derivatives (∂s/∂x, ∂t/∂x, ∂s/∂y, ∂t/∂y) of a cube sample in
    /// direction `dir` whose direction derivatives are `x` and `y`: the
    /// chain rule through the face coordinates `sc / |ma|` and `tc / |ma|`
    /// that `cube_address` passes (`ma` twice the major component), on the
    /// face `v_cubeid_f32` picks for `dir`, so the derivatives are in the
    /// same normalised face units as the coordinates (the form Mesa's
    /// drivers give `image_sample_d` on cube images, `ac_nir_lower_tex.c`).
    fn cube_gradient(
        &mut self,
        dir: &Val,
        x: Handle<Expression>,
        y: Handle<Expression>,
    ) -> EmitResult<Vec<String>> {
        let (id, sc, tc, ma) = self.cube_face(dir);
        let face = self.def(&format!("fptoui float {id} to i32"));
        let abs = self
            .call_intrinsic("fabs", "float", &[&Val::new("float", ma)])
            .v;
        let ma2 = self.def(&format!("fmul float {abs}, {abs}"));
        let mut out = Vec::new();
        for g in [x, y] {
            let g = self.val(g)?;
            let c: Vec<String> = (0..3)
                .map(|i| self.def(&format!("extractelement {}, i32 {i}", g.typed())))
                .collect();
            let n: Vec<String> = c
                .iter()
                .map(|v| self.def(&format!("fneg float {v}")))
                .collect();
            let (gx, gy, gz) = (&c[0], &c[1], &c[2]);
            let (nx, ny, nz) = (&n[0], &n[1], &n[2]);
            // Per face (+X, -X, +Y, -Y, +Z, -Z): sc, tc and the signed
            // major component of a direction (Vulkan "Cube Map Face
            // Selection"), applied to the derivative, which is linear.
            let dsc = self.face_select(&face, [nz, gz, gx, gx, gx, nx]);
            let dtc = self.face_select(&face, [ny, ny, gz, nz, ny, ny]);
            let dmajor = self.face_select(&face, [gx, nx, gy, ny, gz, nz]);
            let dma = self.def(&format!("fmul float {dmajor}, 2.0"));
            for (num, coord) in [(dsc, &sc), (dtc, &tc)] {
                // d(u / |ma|) = (du |ma| - u d|ma|) / ma².
                let a = self.def(&format!("fmul float {num}, {abs}"));
                let b = self.def(&format!("fmul float {coord}, {dma}"));
                let diff = self.def(&format!("fsub float {a}, {b}"));
                let q = self.def(&format!("fdiv float {diff}, {ma2}"));
                out.push(q);
            }
        }
        // Order: ∂s/∂x, ∂t/∂x, ∂s/∂y, ∂t/∂y.
        Ok(out.into_iter().map(|v| format!("float {v}")).collect())
    }

    /// `values[face]` for an i32 `face` in 0..6, as a select chain.
    fn face_select(&mut self, face: &str, values: [&String; 6]) -> String {
        let mut v = values[5].clone();
        for f in (0..5).rev() {
            let is = self.def(&format!("icmp eq i32 {face}, {f}"));
            v = self.def(&format!("select i1 {is}, float {}, float {v}", values[f]));
        }
        v
    }

    /// `textureSampleBaseClampToEdge`'s coordinate: each component clamped
    /// to [0.5 / size, 1 - 0.5 / size] of level 0 (WGSL), the size from
    /// `image_get_resinfo`.
    fn clamp_to_edge(&mut self, rsrc: &Val, c: &Val) -> String {
        let name = "llvm.amdgcn.image.getresinfo.2d.v2f32.i32";
        self.m.declare(format!(
            "declare <2 x float> @{name}(i32, i32, {DESCRIPTOR_TY}, i32, i32)"
        ));
        let raw = self.def(&format!(
            "call <2 x float> @{name}(i32 3, i32 0, {}, i32 0, i32 0)",
            rsrc.typed()
        ));
        let size = self.def(&format!("bitcast <2 x float> {raw} to <2 x i32>"));
        let size = Val::new(
            "<2 x float>",
            self.def(&format!("uitofp <2 x i32> {size} to <2 x float>")),
        );
        let half = Val::new(
            "<2 x float>",
            self.def(&format!(
                "fdiv <2 x float> <float 0.5, float 0.5>, {}",
                size.v
            )),
        );
        let high = Val::new(
            "<2 x float>",
            self.def(&format!(
                "fsub <2 x float> <float 1.0, float 1.0>, {}",
                half.v
            )),
        );
        let low = self.call_intrinsic("maxnum", "<2 x float>", &[c, &half]);
        self.call_intrinsic("minnum", "<2 x float>", &[&low, &high])
            .v
    }

    /// `textureSampleLevel`, `textureSampleCompareLevel`, `textureGather`,
    /// `textureGatherCompare`, `textureSampleGrad` and
    /// `textureSampleBaseClampToEdge` (see the module comment).
    pub(crate) fn image_sample(
        &mut self,
        h: Handle<Expression>,
        o: SampleOperands,
    ) -> EmitResult<Val> {
        let span = self.span_of(h);
        let shape = self.image_shape(o.image)?;
        let mut gradient = None;
        let lod = match o.level {
            SampleLevel::Zero => None,
            SampleLevel::Exact(l) => Some(l),
            SampleLevel::Gradient { x, y } => {
                gradient = Some((x, y));
                None
            }
            SampleLevel::Auto | SampleLevel::Bias(_) => {
                return unsupported_as(
                    UnsupportedKind::Sampling,
                    "sampling with implicit derivatives or a bias \
                     (textureSample, textureSampleBias, textureSampleCompare)",
                    span,
                );
            }
        };
        let rsrc = self.val(o.image)?;
        let samp = self.val(o.sampler)?;
        let mut address = Vec::new();
        if let Some(offset) = o.offset {
            address.push(self.packed_offset(offset)?);
        }
        if let Some(r) = o.depth_ref {
            address.push(self.float_operand(r)?);
        }
        let mut c = self.val(o.coordinate)?;
        if let Some((x, y)) = gradient {
            if shape.cube {
                let face = self.cube_gradient(&c, x, y)?;
                address.extend(face);
            } else {
                address.extend(self.float_components(x, shape.coords)?);
                address.extend(self.float_components(y, shape.coords)?);
            }
        }
        if o.clamp_to_edge {
            let v = self.clamp_to_edge(&rsrc, &c);
            c = Val::new(c.ty.clone(), v);
        }
        if shape.cube {
            let layer = match (shape.arrayed, o.array_index) {
                (true, Some(layer)) => Some(self.float_operand(layer)?),
                (true, None) => {
                    return unsupported("an arrayed texture sample without a layer", span);
                }
                (false, _) => None,
            };
            let face = self.cube_address(&c, layer);
            address.extend(face);
        } else if shape.coords == 1 {
            address.push(format!("float {}", c.v));
        } else {
            for i in 0..shape.coords {
                let x = self.def(&format!("extractelement {}, i32 {i}", c.typed()));
                address.push(format!("float {x}"));
            }
        }
        if shape.arrayed && !shape.cube {
            let Some(layer) = o.array_index else {
                return unsupported("an arrayed texture sample without a layer", span);
            };
            address.push(self.float_operand(layer)?);
        }
        if let Some(l) = lod {
            address.push(self.float_operand(l)?);
        }
        let depth_class = matches!(shape.class, ImageClass::Depth { .. });
        let compare = if o.depth_ref.is_some() { ".c" } else { "" };
        let offset = if o.offset.is_some() { ".o" } else { "" };
        let (op, dmask, scalar) = match o.gather {
            Some(component) => {
                let dmask = if depth_class {
                    1
                } else {
                    1u32 << component as u32
                };
                (format!("gather4{compare}.lz{offset}"), dmask, false)
            }
            None => {
                let level = match (gradient, lod) {
                    (Some(_), _) => ".d",
                    (None, Some(_)) => ".l",
                    (None, None) => ".lz",
                };
                let level = format!("{level}{offset}");
                let scalar = depth_class;
                (
                    format!("sample{compare}{level}"),
                    if scalar { 1 } else { 15 },
                    scalar,
                )
            }
        };
        let (data_ty, suffix) = if scalar {
            ("float", "f32")
        } else {
            ("<4 x float>", "v4f32")
        };
        // The derivative forms are overloaded on the gradient type too.
        let grad_ty = if gradient.is_some() { ".f32" } else { "" };
        let name = format!("llvm.amdgcn.image.{op}.{}.{suffix}{grad_ty}.f32", shape.dim);
        let params = address
            .iter()
            .map(|a| a.split(' ').next().unwrap_or("float"))
            .collect::<Vec<_>>()
            .join(", ");
        self.m.declare(format!(
            "declare {data_ty} @{name}(i32, {params}, {DESCRIPTOR_TY}, {SAMPLER_TY}, i1, i32, i32)"
        ));
        let v = self.def(&format!(
            "call {data_ty} @{name}(i32 {dmask}, {}, {}, {}, i1 false, i32 0, i32 0)",
            address.join(", "),
            rsrc.typed(),
            samp.typed()
        ));
        // Integer textures gather their texels' bits.
        if let TypeInner::Vector { scalar, .. } = self.inner_of(h)
            && scalar.kind != ScalarKind::Float
        {
            let b = self.def(&format!("bitcast {data_ty} {v} to <4 x i32>"));
            return Ok(Val::new("<4 x i32>", b));
        }
        Ok(Val::new(data_ty, v))
    }
}
