//! AMDGPU code objects (issue #2, being written).
