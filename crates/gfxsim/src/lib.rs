//! aqueduct-gfxsim: a simulated AMD GPU below the KFD boundary.

pub mod isa;
