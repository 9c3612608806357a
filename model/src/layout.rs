//! A campaign directory (DESIGN §9), named once: what a campaign writes,
//! and what `bridge review`, `bridge provenance`, the sync with AFL++ and
//! the CLI read. Tests are named as AFL++ names them
//! (`queue/id:000042,src:000007,op:num`).

/// The campaign's configuration and counters.
pub const CAMPAIGN_FILE: &str = "campaign.json";
/// Tests kept for new coverage, the seeds among them.
pub const QUEUE: &str = "queue";
/// Tests that crashed the program, one per signature.
pub const CRASHES: &str = "crashes";
/// Tests that hung it, one per signature.
pub const HANGS: &str = "hangs";
/// Lifted true alarms, a directory each (see [`alarm`]).
pub const ALARMS: &str = "alarms";
/// A row per status update: coverage over time.
pub const COVERAGE_CSV: &str = "coverage.csv";
/// A row per unit round.
pub const UNITS_CSV: &str = "units.csv";
/// What `bridge review` made: signatures, reduced reproducers, reports.
pub const REVIEW: &str = "review";
/// The trail records of the tests (`trails/queue/NAME.json`...).
pub const TRAILS: &str = "trails";
/// Derivation trees of the tests a grammar made (`trees/queue/NAME.json`).
pub const TREES: &str = "trees";
/// Files being written, renamed into place when whole.
pub const TMP: &str = ".tmp";
/// How far the campaign has read each other instance of a sync directory.
pub const SYNCED: &str = ".synced";
/// Where `bridge fuzz-unit -o` and `bridge explore -o` keep the system
/// tests of coverage lifts.
pub const LIFTS: &str = "lifts";
/// What an alarm's directory holds: the lifted test, the system test it
/// was lifted into, the unit that failed, the report (JSON).
pub const ALARM_INPUT: &str = "input";
pub const ALARM_ORIGINAL: &str = "original";
pub const ALARM_UNIT: &str = "unit";
pub const ALARM_REPORT: &str = "report.json";
/// A reduced reproducer in a signature's review directory.
pub const REDUCED: &str = "reduced";
/// The directories of tests, the ones a campaign keeps by name.
pub const TEST_DIRS: [&str; 3] = [QUEUE, CRASHES, HANGS];
/// The end of the name of a lift that added a word to the command line
/// (`op:lift_FUNCTION+word`).
pub const NEW_WORD_OP: &str = "+word";

/// The directory of alarm `id` (`alarms/000003`).
pub fn alarm(id: u64) -> String {
    format!("{ALARMS}/{id:06}")
}

/// Where the trail record of the test at `test` (a path in the campaign
/// directory) is kept: `trails/queue/NAME.json`, or an alarm's
/// `alarms/NNNNNN/trail.json`.
pub fn record_path(test: &str) -> String {
    match test.strip_prefix("alarms/") {
        Some(rest) => format!("{ALARMS}/{}/trail.json", rest.trim_end_matches('/').split('/').next().unwrap_or(rest)),
        None => format!("{TRAILS}/{test}.json"),
    }
}

/// Where the derivation tree of test `rel` is kept (`trees/queue/NAME.json`).
pub fn tree_path(rel: &str) -> String {
    format!("{TREES}/{rel}.json")
}

/// The name of a test kept in `dir` as `id`, its other fields after
/// (`src:000007,op:num`).
pub fn test_name(dir: &str, id: u64, fields: &str) -> String {
    format!("{dir}/id:{id:06},{fields}")
}

/// A test name's `src:` field: its parent, and the other entries it took
/// bytes from (`000007+000012`, as AFL names a splice).
pub fn src_field(parent: u64, donors: &[u64]) -> String {
    let mut s = format!("{parent:06}");
    for d in donors {
        s.push_str(&format!("+{d:06}"));
    }
    s
}

/// The id of an AFL-style name: `id:000042,...`.
pub fn parse_id(name: &str) -> Option<u64> {
    name.strip_prefix("id:")?.split(',').next()?.parse().ok()
}

/// Keeps what is safe in a file name.
pub fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || "+-_.".contains(c) { c } else { '_' }).take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_tests_records_and_trees() {
        assert_eq!(parse_id("id:000042,src:000007,op:num"), Some(42));
        assert_eq!(parse_id("README"), None);
        assert_eq!(sanitize("a b/c:d+e"), "a_b_c_d+e");
        assert_eq!(
            test_name(QUEUE, 42, &format!("src:{},op:num", src_field(7, &[12]))),
            "queue/id:000042,src:000007+000012,op:num"
        );
        assert_eq!(
            record_path("queue/id:000001,src:000000,op:od_bf"),
            "trails/queue/id:000001,src:000000,op:od_bf.json"
        );
        assert_eq!(record_path(&alarm(3)), "alarms/000003/trail.json");
        assert_eq!(tree_path("queue/id:000001,orig:a"), "trees/queue/id:000001,orig:a.json");
    }
}
