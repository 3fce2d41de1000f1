//! The cube-map VOP3 operations `v_cubeid_f32`, `v_cubesc_f32`,
//! `v_cubetc_f32` and `v_cubema_f32`: from a direction (S0, S1, S2) =
//! (x, y, z), the face its major axis points at and the face coordinates
//! a compiler turns into an image address for `dim:SQ_RSRC_IMG_CUBE`.
//!
//! Semantics (AMD RDNA3 ISA guide, "VOP3 Opcodes", V_CUBEID_F32 ..
//! V_CUBEMA_F32; the same table as Vulkan's "Cube Map Face Selection"):
//! z is the major axis when |z| >= |x| and |z| >= |y|, else y when
//! |y| >= |x|, else x. Faces are +x 0, -x 1, +y 2, -y 3, +z 4, -z 5; the
//! results per major axis are
//!
//! | major | id     | sc            | tc            | ma  |
//! |-------|--------|---------------|---------------|-----|
//! | z     | 4 / 5  | z<0 ? -x : x  | -y            | 2z  |
//! | y     | 2 / 3  | x             | y<0 ? -z : z  | 2y  |
//! | x     | 0 / 1  | x<0 ? z : -z  | -y            | 2x  |
//!
//! (the face is the negative one when the major component is below 0).
//! A NaN compares false, so it falls through to the x branch, as the
//! guide's pseudocode reads.

/// Which of the four results an instruction returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CubeResult {
    Id,
    Sc,
    Tc,
    Ma,
}

/// The `which` result for direction (x, y, z).
pub(crate) fn cube(which: CubeResult, x: f32, y: f32, z: f32) -> f32 {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    if az >= ax && az >= ay {
        match which {
            CubeResult::Id => {
                if z < 0.0 {
                    5.0
                } else {
                    4.0
                }
            }
            CubeResult::Sc => {
                if z < 0.0 {
                    -x
                } else {
                    x
                }
            }
            CubeResult::Tc => -y,
            CubeResult::Ma => 2.0 * z,
        }
    } else if ay >= ax {
        match which {
            CubeResult::Id => {
                if y < 0.0 {
                    3.0
                } else {
                    2.0
                }
            }
            CubeResult::Sc => x,
            CubeResult::Tc => {
                if y < 0.0 {
                    -z
                } else {
                    z
                }
            }
            CubeResult::Ma => 2.0 * y,
        }
    } else {
        match which {
            CubeResult::Id => {
                if x < 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            CubeResult::Sc => {
                if x < 0.0 {
                    z
                } else {
                    -z
                }
            }
            CubeResult::Tc => -y,
            CubeResult::Ma => 2.0 * x,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each face's centre direction and a point off-centre on it give the
    /// face, the major axis doubled and the Vulkan face coordinates.
    #[test]
    fn faces_follow_the_selection_table() {
        // (direction, id, sc, tc, ma)
        let cases: [([f32; 3], f32, f32, f32, f32); 6] = [
            ([2.0, 0.5, 0.25], 0.0, -0.25, -0.5, 4.0),
            ([-2.0, 0.5, 0.25], 1.0, 0.25, -0.5, -4.0),
            ([0.5, 2.0, 0.25], 2.0, 0.5, 0.25, 4.0),
            ([0.5, -2.0, 0.25], 3.0, 0.5, -0.25, -4.0),
            ([0.5, 0.25, 2.0], 4.0, 0.5, -0.25, 4.0),
            ([0.5, 0.25, -2.0], 5.0, -0.5, -0.25, -4.0),
        ];
        for ([x, y, z], id, sc, tc, ma) in cases {
            let got = [
                cube(CubeResult::Id, x, y, z),
                cube(CubeResult::Sc, x, y, z),
                cube(CubeResult::Tc, x, y, z),
                cube(CubeResult::Ma, x, y, z),
            ];
            assert_eq!(got, [id, sc, tc, ma], "direction {x} {y} {z}");
        }
        // Ties go to z, then y.
        assert_eq!(cube(CubeResult::Id, 1.0, 1.0, 1.0), 4.0);
        assert_eq!(cube(CubeResult::Id, 1.0, -1.0, 0.5), 3.0);
        assert_eq!(cube(CubeResult::Id, f32::NAN, 1.0, 1.0), 0.0);
    }
}
