//! The end-to-end suites, one module per area.

mod bridging;
mod campaign;
mod carving;
mod commands;
mod input_file;
mod modules;
mod symbolic;
