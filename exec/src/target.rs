//! What to run and under which limits.

use std::path::PathBuf;
use std::time::Duration;

/// Where the target takes its input from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputMode {
    /// A file whose path replaces `@@` in the arguments.
    File,
    /// Standard input.
    Stdin,
}

/// A program and how to run it.
#[derive(Debug, Clone)]
pub struct Target {
    pub program: PathBuf,
    /// Arguments; `@@` stands for the input file.
    pub args: Vec<String>,
    /// Per-run wall-clock limit.
    pub timeout: Duration,
    /// Address-space limit of the target, in MiB.
    pub mem_limit_mb: Option<u64>,
    /// Let the target's stdout and stderr through (default: /dev/null).
    pub show_output: bool,
    /// Extra environment for the target.
    pub env: Vec<(String, String)>,
}

impl Target {
    pub fn new(program: impl Into<PathBuf>, args: Vec<String>) -> Target {
        Target {
            program: program.into(),
            args,
            timeout: Duration::from_millis(1000),
            mem_limit_mb: Some(1024),
            show_output: false,
            env: Vec::new(),
        }
    }

    pub fn input_mode(&self) -> InputMode {
        if self.args.iter().any(|a| a.contains("@@")) {
            InputMode::File
        } else {
            InputMode::Stdin
        }
    }

    /// The arguments with `@@` replaced by `input`.
    pub fn args_for(&self, input: &str) -> Vec<String> {
        self.args.iter().map(|a| a.replace("@@", input)).collect()
    }
}
