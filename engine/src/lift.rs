//! A unit try's way to the system level, the same in a campaign's unit
//! rounds and for units explored on their own (`bridge fuzz-unit`,
//! `bridge explore`): the try is counted ([`admit`]); when it failed, or
//! reached unit-level edges that no system run covered, and its values can
//! stand in the system input, the caller lifts them (plainly, or with
//! provenance labels); the lifted test runs on the whole program and is
//! classified, with the key of its failure ([`check`]); a true alarm is
//! described as [`alarm`] says and kept by [`save_alarm`].

use crate::campaign::signatures;
use crate::unit_loop::Try;
use crate::{FileContext, Result};
use exec::{Coverage, ForkServer, Outcome};
use lifter::Class;
use model::alarm::{describe_site, Alarm, ALARM_VERSION};
use model::layout::{ALARM_INPUT, ALARM_ORIGINAL, ALARM_REPORT, ALARM_UNIT};
use model::unit::{Encoding, Param, Unit, Value};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What the unit level tried and what lifting made of it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct LiftCounts {
    pub unit_tries: u64,
    pub unit_failures: u64,
    /// Tries that reached unit-level edges no earlier try of their unit
    /// reached, without failing.
    pub unit_new_coverage: u64,
    pub lifted: u64,
    pub true_alarms: u64,
    pub coverage_lifts: u64,
    pub false_alarms: u64,
    /// Values that cannot stand in the system input (a digit array given
    /// a byte that is no digit, a quoted literal that is none): counted,
    /// not run. Also lifts whose test no longer derives from the grammar
    /// and that neither failed nor found coverage.
    pub unliftable: u64,
    /// Lifts of a digit array's values, and those that were true alarms
    /// or coverage lifts.
    pub digit_lifts: u64,
    pub digit_lifts_effective: u64,
}

/// Counts try `t` of a unit whose parameters are `params`; whether its
/// values are worth lifting (see [`Try::worth_lifting`]; `branches` as
/// there) and can be. A `muted` unit (its lifts have kept coming to
/// nothing) lifts nothing.
pub fn admit(
    counts: &mut LiftCounts,
    t: &Try<'_>,
    params: &[Param],
    system: &Coverage,
    branches: Option<&[bool]>,
    muted: bool,
) -> bool {
    let failed = t.failed();
    counts.unit_tries += 1;
    counts.unit_failures += u64::from(failed);
    counts.unit_new_coverage += u64::from(t.new && !failed);
    if muted || !t.worth_lifting(system, branches) {
        return false;
    }
    if t.candidate.values.iter().any(|(k, v)| !params[*k].liftable(v)) {
        counts.unliftable += 1;
        return false;
    }
    true
}

/// How a lifted test ran on the whole program.
pub struct Checked {
    pub class: Class,
    pub outcome: Outcome,
    /// Its failure's key (see `signatures::failure_key`), taken whatever
    /// the class, so that no later run is given this run's stack.
    pub key: Option<String>,
}

/// Where a failing system run's stack is written, and how many of its
/// frames tell failures apart.
#[derive(Clone, Copy)]
pub struct Stacks<'a> {
    pub dir: &'a Path,
    pub depth: usize,
}

/// Runs `lifted`, made of try `t`'s values, on the whole program, and
/// counts what it was. A lift that is no valid derivation any more (not
/// `derived`) and neither fails nor finds coverage counts as unliftable,
/// not as a false alarm.
pub fn check(
    counts: &mut LiftCounts,
    system: &mut ForkServer,
    cov: &mut Coverage,
    stacks: Stacks<'_>,
    (t, params): (&Try<'_>, &[Param]),
    lifted: &[u8],
    derived: bool,
) -> Result<Checked> {
    let (class, outcome) = lifter::check(system, cov, lifted)?;
    let key = signatures::failure_key(stacks.dir, stacks.depth, system);
    counts.lifted += 1;
    if t.candidate.values.iter().any(|(k, _)| matches!(params[*k].encoding, Encoding::Digits { .. })) {
        counts.digit_lifts += 1;
        counts.digit_lifts_effective += u64::from(class != Class::FalseAlarm);
    }
    match class {
        Class::TrueAlarm => counts.true_alarms += 1,
        Class::CoverageLift => counts.coverage_lifts += 1,
        Class::FalseAlarm if !derived => counts.unliftable += 1,
        Class::FalseAlarm => counts.false_alarms += u64::from(t.failed()),
    }
    Ok(Checked { class, outcome, key })
}

/// The report of a true alarm that parameter `k` of `unit` made with
/// `value` (try `t`), by `found_by`; where it was found and its key are
/// the caller's to fill in.
pub fn alarm(
    found_by: &str,
    unit: &Unit,
    params: &[Param],
    (t, k, value): (&Try<'_>, usize, &Value),
    outcome: &Outcome,
) -> Alarm {
    let p = &params[k];
    Alarm {
        version: ALARM_VERSION,
        found_by: found_by.into(),
        function: unit.meta.function.clone(),
        call: unit.meta.call_index,
        parameter: k,
        site: describe_site(&p.site),
        original_value: p.shown(&p.original),
        new_value: p.shown(&p.text(value)),
        parameters_changed: t.candidate.values.len(),
        generator_op: t.candidate.op.to_string(),
        outcome: outcome.to_string(),
        system_test: None,
        unit_file: None,
        found_after_s: None,
        key: None,
    }
}

/// What a kept alarm's directory holds: the lifted test (`input`), the
/// system test it was lifted into (`original`), the unit that failed
/// (`unit`), the report (`report.json`) and, in a campaign, its trail
/// record. Each file is written whole (a temporary file renamed into
/// place), the record first.
pub struct AlarmFiles<'a> {
    pub report: &'a Alarm,
    pub input: &'a [u8],
    pub original: &'a [u8],
    pub unit: &'a [u8],
    pub record: Option<provenance::Record>,
}

/// Keeps alarm `id` in `root/alarms/NNNNNN/`.
pub fn save_alarm(root: &Path, id: u64, files: AlarmFiles<'_>) -> Result<()> {
    let rel = model::layout::alarm(id);
    let dir = root.join(&rel);
    std::fs::create_dir_all(&dir).at("create", &dir)?;
    if let Some(record) = files.record {
        let record = provenance::Record { test: rel.clone(), ..record };
        driver::files::write_atomic(&root.join(provenance::record_path(&rel)), &record.to_json())?;
    }
    let report = serde_json::to_string_pretty(files.report)?;
    let parts = [(ALARM_INPUT, files.input), (ALARM_ORIGINAL, files.original), (ALARM_UNIT, files.unit)];
    for (name, bytes) in parts.into_iter().chain([(ALARM_REPORT, report.as_bytes())]) {
        driver::files::write_atomic(&dir.join(name), bytes)?;
    }
    Ok(())
}
