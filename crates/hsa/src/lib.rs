//! aqueduct-hsa: Aqueduct's HSA core over the KfdDevice boundary.

pub mod code_object;
