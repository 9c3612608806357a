//! The end-to-end suites, one module per area.

mod campaign;
mod carving;
mod commands;
