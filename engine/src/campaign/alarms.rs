//! The true alarms a campaign keeps: one per signature (the stack of the
//! lifted run's crash, see `signatures.rs`; for a run that left none, one
//! per function, parameter and outcome), in `alarms/<id>/`, with the
//! others of its signature counted against it.

use super::units::Current;
use super::Campaign;
use crate::lift::{self, AlarmFiles};
use crate::unit_loop::Try;
use model::alarm::Alarm;
use model::unit::Value;
use std::collections::BTreeMap;

/// A lifted true alarm: the unit's try, the parameter and value that
/// made it, and the system test it lifted to.
pub(super) struct Found<'a> {
    pub cur: &'a Current,
    pub t: &'a Try<'a>,
    pub k: usize,
    pub value: &'a Value,
    pub lifted: &'a [u8],
    pub outcome: exec::Outcome,
    /// Its trail record (the lift and the lifted test's labels).
    pub record: provenance::Record,
}

impl Campaign {
    /// Keeps `f` in `alarms/<id>/` when `key` is new; counts it against
    /// the alarm kept for `key` otherwise.
    pub(super) fn keep_alarm(
        &mut self,
        alarms: &mut BTreeMap<String, u64>,
        key: String,
        f: Found<'_>,
    ) -> crate::Result<()> {
        if let Some(id) = alarms.get(&key) {
            *self.file.stats.alarm_counts.entry(format!("{id:06}")).or_insert(1) += 1;
            return Ok(());
        }
        let id = self.file.stats.unique_true_alarms;
        self.file.stats.unique_true_alarms += 1;
        alarms.insert(key.clone(), id);
        self.file.stats.alarm_counts.insert(format!("{id:06}"), 1);
        let mut report = lift::alarm("run", &f.cur.unit, &f.cur.params, (f.t, f.k, f.value), &f.outcome);
        report.system_test = Some(f.cur.entry);
        report.found_after_s = Some(self.elapsed());
        report.key = Some(key);
        let unit = f.t.unit.encode();
        let files = AlarmFiles {
            report: &report,
            input: f.lifted,
            original: &f.cur.input,
            unit: &unit,
            record: Some(f.record),
        };
        lift::save_alarm(self.out.root(), id, files)
    }
}

/// The alarms a resumed campaign kept, by key, so none is kept twice.
/// (Records without a key, from before keys, are keyed by function,
/// parameter and outcome.)
pub fn known_alarms(root: &std::path::Path) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(root.join(model::layout::ALARMS)).into_iter().flatten().flatten() {
        let Some(id) = e.file_name().to_str().and_then(|n| n.parse::<u64>().ok()) else { continue };
        let Ok(bytes) = std::fs::read(e.path().join(model::layout::ALARM_REPORT)) else { continue };
        if let Ok(a) = Alarm::from_json(&bytes) {
            let key = a.key.unwrap_or_else(|| format!("{} parameter {}: {}", a.function, a.parameter, a.outcome));
            out.insert(key, id);
        }
    }
    out
}
