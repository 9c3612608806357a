//! The true alarms a campaign keeps: one per signature (the stack of the
//! lifted run's crash, see `signatures.rs`; for a run that left none, one
//! per function, parameter and outcome), in `alarms/<id>/`, with the
//! others of its signature counted against it.

use super::units::Current;
use super::Campaign;
use crate::unit_loop::Try;
use model::alarm::{describe_site, Alarm, ALARM_VERSION};
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
    pub outcome: String,
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
    ) -> anyhow::Result<()> {
        if let Some(id) = alarms.get(&key) {
            *self.file.stats.alarm_counts.entry(format!("{id:06}")).or_insert(1) += 1;
            return Ok(());
        }
        let id = self.file.stats.unique_true_alarms;
        self.file.stats.unique_true_alarms += 1;
        alarms.insert(key.clone(), id);
        self.file.stats.alarm_counts.insert(format!("{id:06}"), 1);
        let (unit, p) = (&f.cur.unit, &f.cur.params[f.k]);
        let c = f.t.candidate;
        let report = Alarm {
            version: ALARM_VERSION,
            found_by: "run".into(),
            function: unit.meta.function.clone(),
            call: unit.meta.call_index,
            parameter: f.k,
            site: describe_site(&p.site),
            original_value: String::from_utf8_lossy(&p.original).into_owned(),
            new_value: String::from_utf8_lossy(&p.text(f.value)).into_owned(),
            parameters_changed: c.values.len(),
            generator_op: c.op.to_string(),
            outcome: f.outcome,
            system_test: Some(f.cur.entry),
            unit_file: None,
            found_after_s: Some(self.elapsed()),
            key: Some(key),
        };
        let dir = format!("alarms/{id:06}");
        std::fs::create_dir_all(self.out.root().join(&dir))?;
        let record = provenance::Record { test: dir.clone(), ..f.record };
        self.out.write(&provenance::record_path(&dir), &record.to_json())?;
        self.out.write(&format!("{dir}/input"), f.lifted)?;
        self.out.write(&format!("{dir}/original"), &f.cur.input)?;
        self.out.write(&format!("{dir}/unit"), &f.t.unit.encode())?;
        self.out.write(&format!("{dir}/report.json"), serde_json::to_string_pretty(&report)?.as_bytes())?;
        Ok(())
    }
}

/// The alarms a resumed campaign kept, by key, so none is kept twice.
/// (Records without a key, from before keys, are keyed by function,
/// parameter and outcome.)
pub fn known_alarms(root: &std::path::Path) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(root.join("alarms")).into_iter().flatten().flatten() {
        let Some(id) = e.file_name().to_str().and_then(|n| n.parse::<u64>().ok()) else { continue };
        let Ok(bytes) = std::fs::read(e.path().join("report.json")) else { continue };
        if let Ok(a) = Alarm::from_json(&bytes) {
            let key = a.key.unwrap_or_else(|| format!("{} parameter {}: {}", a.function, a.parameter, a.outcome));
            out.insert(key, id);
        }
    }
    out
}
