//! Aqueduct facade (issue #6).
