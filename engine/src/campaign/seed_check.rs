//! What the seeds do, said at the start of a campaign: one line per way a
//! seed run ended (how many, how long, which seeds), and a warning when no
//! seed runs through. A campaign whose every seed fails fuzzes the
//! program's error path: a command line the program rejects is the usual
//! cause, and it shows here first.

use exec::Outcome;
use std::collections::BTreeMap;
use std::time::Duration;

/// One seed's run.
pub struct SeedRun {
    pub name: String,
    pub outcome: Outcome,
    pub time: Duration,
}

/// The lines to print: the table, then any warnings.
pub fn report(runs: &[SeedRun]) -> Vec<String> {
    let mut by: BTreeMap<String, Vec<&SeedRun>> = BTreeMap::new();
    for r in runs {
        by.entry(kind(r.outcome)).or_default().push(r);
    }
    let mut out = vec![format!("the seeds, each run once ({}):", runs.len())];
    for (k, v) in &by {
        let mut times: Vec<Duration> = v.iter().map(|r| r.time).collect();
        times.sort();
        let median = times[times.len() / 2];
        let max = times[times.len() - 1];
        let names: Vec<&str> = v.iter().take(3).map(|r| r.name.as_str()).collect();
        let more = if v.len() > 3 { format!(", and {} more", v.len() - 3) } else { String::new() };
        out.push(format!(
            "  {k:<24} {:>5} seed{}  median {}, max {}  ({}{more})",
            v.len(),
            if v.len() == 1 { " " } else { "s" },
            ms(median),
            ms(max),
            names.join(", ")
        ));
    }
    let through = runs.iter().filter(|r| r.outcome == Outcome::Exit(0)).count();
    if !runs.is_empty() && through == 0 {
        let failing = if runs.iter().all(|r| r.outcome.is_crash()) { "crashes" } else { "fails" };
        out.push(format!(
            "warning: every seed {failing}: the campaign would explore how the program rejects its input. Check the command line (run one seed by hand with the same arguments) and the seeds; start anyway if the failure is what you are after"
        ));
    }
    out
}

fn kind(o: Outcome) -> String {
    match o {
        Outcome::Exit(0) => "exit 0".into(),
        Outcome::Exit(c) => format!("exit {c} (non-zero)"),
        other => other.to_string(),
    }
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, outcome: Outcome, ms: u64) -> SeedRun {
        SeedRun { name: name.into(), outcome, time: Duration::from_millis(ms) }
    }

    #[test]
    fn one_line_per_outcome_and_a_warning_when_nothing_runs_through() {
        let runs = [run("a", Outcome::Exit(3), 2), run("b", Outcome::Exit(3), 4), run("c", Outcome::Crash(11), 20)];
        let lines = report(&runs);
        assert_eq!(lines.len(), 4, "{lines:#?}");
        assert!(lines[1].contains("crash (signal 11, SIGSEGV)") && lines[1].contains("(c)"), "{lines:#?}");
        assert!(lines[2].contains("exit 3 (non-zero)") && lines[2].contains("2 seeds") && lines[2].contains("(a, b)"));
        assert!(lines[2].contains("median 4.0 ms, max 4.0 ms"), "{}", lines[2]);
        assert!(lines[3].starts_with("warning: every seed fails"), "{}", lines[3]);
        let ok = [run("a", Outcome::Exit(0), 1), run("b", Outcome::Exit(1), 1)];
        assert!(!report(&ok).iter().any(|l| l.starts_with("warning")));
        let many: Vec<SeedRun> = (0..5).map(|k| run(&format!("s{k}"), Outcome::Exit(0), k)).collect();
        assert!(report(&many)[1].contains("(s0, s1, s2, and 2 more)"), "{:?}", report(&many));
        let crashes = [run("a", Outcome::Crash(6), 1)];
        assert!(report(&crashes)[2].starts_with("warning: every seed crashes"));
    }
}
