//! `--system afl++`: no generator of the campaign's own. Its system tests
//! are what other fuzzers queue in a sync directory, which the campaign
//! imports itself; this generator makes none.

use crate::{Seed, SystemGenerator, TestCase};

pub const NAME: &str = "afl++";

/// Generates nothing: the tests come from elsewhere.
#[derive(Debug, Default)]
pub struct External;

impl SystemGenerator for External {
    fn name(&self) -> &'static str {
        NAME
    }

    fn generates(&self) -> bool {
        false
    }

    fn generate(&mut self, _corpus: &[Seed<'_>], _parents: &mut dyn crate::Parents, _n: usize) -> Vec<TestCase> {
        Vec::new()
    }

    fn feedback(&mut self, _case: &TestCase, _map: Option<&[u8]>, _interesting: bool) {}
}
