//! A campaign's imports from its sync directory (`sync.rs`): each new
//! entry of another instance runs once, and is kept under AFL++'s name for
//! an import (`id:N,sync:INSTANCE,src:ID`) when it reaches new code.

use super::outdir::{self, sanitize};
use super::sync::Import;
use super::{Campaign, Entry, STOP};
use exec::Newness;
use provenance::{Labels, Maker, Record, RECORD_VERSION};
use std::sync::atomic::Ordering;

impl Campaign {
    /// Runs what the other instances queued since the last look; returns
    /// how many entries were run.
    pub(super) fn import(&mut self) -> crate::Result<usize> {
        let Some(sync) = self.sync.as_mut() else { return Ok(0) };
        let found = sync.scan(&self.out)?;
        let n = found.len();
        for imp in found {
            if self.elapsed() >= self.file.config.time_budget_s || STOP.load(Ordering::Relaxed) {
                break;
            }
            self.run_import(imp)?;
        }
        Ok(n)
    }

    fn run_import(&mut self, imp: Import) -> crate::Result<()> {
        let outcome = self.fs.run(&imp.data)?;
        self.file.stats.execs += 1;
        self.file.stats.imported += 1;
        let edges_before = self.cov.edges();
        let newness = self.cov.add(self.fs.map());
        self.file.stats.edges_by_system += (self.cov.edges() - edges_before) as u64;
        let instance = sanitize(&imp.instance);
        let src = format!("{instance}:{:06}", imp.id);
        let record = || Record {
            version: RECORD_VERSION,
            test: String::new(),
            parents: Vec::new(),
            maker: Maker::Imported(imp.instance.clone()),
            ops: vec![imp.name.clone()],
            lift: None,
            labels: None,
        };
        let made = super::Made { data: &imp.data, src: &src, op: "sync", tree: None };
        let failed = self.record_failure(outcome, made, record)?;
        if newness == Newness::Nothing || failed {
            return Ok(());
        }
        let id = self.next_id;
        self.next_id += 1;
        let name = model::layout::test_name(model::layout::QUEUE, id, &format!("sync:{instance},src:{:06}", imp.id));
        let labels = Labels::own(id, imp.data.len());
        let rec = Record { test: name.clone(), labels: Some(labels.clone()), ..record() };
        outdir::write_kept(&self.out, None, &name, &imp.data, &rec)?;
        self.file.stats.imported_kept += 1;
        let hits = self.hits();
        let run_us = self.run_us();
        let (data, trimmed) = (imp.data, false);
        self.corpus.push(Entry { id, name, data, hits, new_word: false, seed: false, labels, run_us, trimmed });
        if newness == Newness::NewEdges {
            self.refresh_stats();
            self.out.append_line(model::layout::COVERAGE_CSV, outdir::CSV_HEADER, &self.csv_row())?;
        }
        Ok(())
    }
}
