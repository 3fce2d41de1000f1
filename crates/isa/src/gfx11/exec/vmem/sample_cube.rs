//! Cube addressing of the sampling instructions (`dim:SQ_RSRC_IMG_CUBE` on
//! a cube T#): which texels of which face a lane's footprint reads.
//!
//! The address (after the depth reference for `_c`) is (s, t, slice):
//! the compiler has already chosen the face with `v_cubeid_f32` and
//! projected the direction with `v_cubesc_f32`/`v_cubetc_f32`/
//! `v_cubema_f32` (valu/cube.rs). Mesa's drivers, the public reference for
//! what the texture unit expects (`ac_nir_lower_tex.c`,
//! `prepare_cube_coords`), pass `sc / |ma| + 1.5` and `tc / |ma| + 1.5`
//! (`ma` being twice the major component, so both lie in [1, 2]) and the
//! slice `8 * cube + face` for cube arrays. gfxsim reads them so:
//! - the face coordinate is `s - 1` (and `t - 1`) times the face's extent,
//!   then point or linear taps exactly as for 2D (sample.rs);
//! - the slice is `floor(slice + 0.5)`; its bits 2:0 are the face and the
//!   rest the cube, clamped to the view's cubes. Faces 6 and 7 do not come
//!   out of `v_cubeid_f32`; gfxsim reads face 5 for them (an assumption:
//!   no public document says what the texture unit does).
//!
//! Edges. A linear footprint (or a gather) near a face's edge has taps off
//! the face. With the S#'s DISABLE_CUBE_WRAP clear (wgpu's samplers and
//! Mesa's), the texture unit filters across the edge ("cube wrap"), as
//! Vulkan requires for cube views ("Cube Map Edge Handling"): a tap one
//! texel off the face reads the adjacent face's texel there. gfxsim finds
//! it by turning the tap's texel centre back into a direction (the
//! inverse of the face table in valu/cube.rs) and choosing the face and
//! texel of that direction again, which gives Vulkan's edge mapping. A
//! corner tap (off the face in both axes), for which Vulkan lets an
//! implementation average three texels, reads the one texel of the face
//! the direction selects with the `v_cubeid_f32` tie rule (z before y
//! before x); whether the texture unit does the same is not documented,
//! so results at the one-texel corners may differ from a GPU. With
//! DISABLE_CUBE_WRAP set, taps clamp to the face's edge. The S#'s address
//! modes do not apply to cube sampling (Vulkan: cube views always clamp
//! to the edge, before the edge handling), nor do border colours.

use super::sample::{Tap, axis_taps};
use crate::gfx11::exec::valu::cube::{CubeResult, cube};
use crate::gfx11::image_desc::ImageDescriptor;
use crate::gfx11::sampler_desc::{SamplerDescriptor, XyFilter};

/// Faces of one cube.
const FACES: u32 = 6;

/// The direction of the point at face coordinates (sc, tc) in [-1, 1] of
/// `face` (the inverse of the face-selection table).
fn direction(face: u32, sc: f64, tc: f64) -> [f64; 3] {
    match face {
        0 => [1.0, -tc, -sc],
        1 => [-1.0, -tc, sc],
        2 => [sc, 1.0, tc],
        3 => [sc, -1.0, -tc],
        4 => [sc, -tc, 1.0],
        _ => [-sc, -tc, -1.0],
    }
}

/// The face and texel a tap (i, j) of `face` reads when the texture unit
/// wraps across edges: the tap's centre as a direction, projected again.
fn wrap_across(face: u32, i: i64, j: i64, w: u32, h: u32) -> (u32, u32, u32) {
    let sc = 2.0 * (i as f64 + 0.5) / w as f64 - 1.0;
    let tc = 2.0 * (j as f64 + 0.5) / h as f64 - 1.0;
    let [x, y, z] = direction(face, sc, tc);
    // f32 is exact for these directions' selection (only the comparison of
    // magnitudes matters); the projection stays in f64.
    let pick = |r| cube(r, x as f32, y as f32, z as f32);
    let new_face = pick(CubeResult::Id) as u32;
    let (axis_sc, axis_tc, ma) = match new_face {
        0 => (-z, -y, x),
        1 => (z, -y, -x),
        2 => (x, z, y),
        3 => (x, -z, -y),
        4 => (x, -y, z),
        _ => (-x, -y, -z),
    };
    let s = 0.5 * (axis_sc / ma + 1.0);
    let t = 0.5 * (axis_tc / ma + 1.0);
    let texel = |u: f64, n: u32| ((u * n as f64).floor() as i64).clamp(0, n as i64 - 1) as u32;
    (new_face, texel(s, w), texel(t, h))
}

/// A lane's cube footprint on chain level `level`: the 2D taps of (s, t)
/// on the slice's face, x fastest, each tap's texel as (x, y, layer of the
/// view, level).
pub(crate) fn cube_footprint(
    desc: &ImageDescriptor,
    samp: &SamplerDescriptor,
    coord: [f32; 2],
    slice: f32,
    filter: XyFilter,
    level: u32,
) -> Vec<Tap> {
    let [w, h, _] = desc.level_extent(level);
    let r = (slice as f64 + 0.5).floor();
    let r = if r.is_nan() {
        0
    } else {
        r.clamp(0.0, u32::MAX as f64) as u32
    };
    let cubes = (desc.layers() / FACES).max(1);
    let cube_index = (r >> 3).min(cubes - 1);
    let face = (r & 7).min(FACES - 1);
    let layer = |f: u32| (cube_index * FACES + f).min(desc.layers() - 1);
    let (xi, xw, xn) = axis_taps((coord[0] as f64 - 1.0) * w as f64, filter);
    let (yi, yw, yn) = axis_taps((coord[1] as f64 - 1.0) * h as f64, filter);
    let mut taps = Vec::with_capacity(xn * yn);
    for b in 0..yn {
        for a in 0..xn {
            let (i, j) = (xi[a], yi[b]);
            let inside = (0..w as i64).contains(&i) && (0..h as i64).contains(&j);
            let (f, x, y) = if inside {
                (face, i as u32, j as u32)
            } else if samp.disable_cube_wrap {
                let clamp = |v: i64, n: u32| v.clamp(0, n as i64 - 1) as u32;
                (face, clamp(i, w), clamp(j, h))
            } else {
                wrap_across(face, i, j, w, h)
            };
            taps.push(Tap {
                texel: Some((x, y, layer(f), level)),
                weight: xw[a] * yw[b],
            });
        }
    }
    taps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vulkan's "Cube Map Edge Handling": one texel off each edge of face
    /// +X (0) of a 4x4 cube lands on the adjacent face's edge texel.
    #[test]
    fn edge_taps_land_on_the_adjacent_face() {
        // Left of +X (sc = -z below -1, so z above 1): +Z, its right
        // column, the same row.
        assert_eq!(wrap_across(0, -1, 2, 4, 4), (4, 3, 2));
        // Right of +X (z < -1): -Z, its left column.
        assert_eq!(wrap_across(0, 4, 1, 4, 4), (5, 0, 1));
        // Above +X (tc = -y below -1, so y above 1): +Y, its right column.
        assert_eq!(wrap_across(0, 1, -1, 4, 4), (2, 3, 2));
        // Below +X (y < -1): -Y, its right column.
        assert_eq!(wrap_across(0, 1, 4, 4, 4), (3, 3, 1));
        // Every tap one texel off any face's edge lands on a face texel
        // touching the edge, and coming back across that edge returns.
        for face in 0..6 {
            for k in 0..4i64 {
                for (i, j) in [(-1, k), (4, k), (k, -1), (k, 4)] {
                    let (f, x, y) = wrap_across(face, i, j, 4, 4);
                    assert_ne!(f, face);
                    assert!(x == 0 || x == 3 || y == 0 || y == 3);
                    // The neighbour of (x, y) across the same edge.
                    let back = [(-1, y as i64), (4, y as i64), (x as i64, -1), (x as i64, 4)]
                        .into_iter()
                        .map(|(a, b)| wrap_across(f, a, b, 4, 4))
                        .filter(|&(g, _, _)| g == face)
                        .map(|(_, a, b)| (a as i64, b as i64))
                        .collect::<Vec<_>>();
                    let from = (i.clamp(0, 3), j.clamp(0, 3));
                    assert!(
                        back.contains(&from),
                        "face {face} tap ({i}, {j}) -> {f} ({x}, {y})"
                    );
                }
            }
        }
    }
}
