//! `bridge fuzz-unit` and `bridge explore`: carved units explored on
//! their own, what they find lifted into the system input and kept when it
//! reproduces on the whole program (`engine::alone`); a summary printed.

use crate::cli::{ExploreArgs, FuzzUnitArgs};
use driver::files::unit_files;
use driver::Restore;
use engine::alone::{Kept, Options};

/// `bridge explore`: the units, explored by the symbolic generator.
pub fn explore(args: ExploreArgs) -> anyhow::Result<i32> {
    let (timeout, log) = (args.solver_timeout, args.smt_log.clone());
    let fuzz = FuzzUnitArgs {
        unit: args.unit,
        tries: args.tries,
        unit_gen: "symbolic".into(),
        seed: 0,
        output: args.output,
        json: args.json,
        restore_each_try: false,
        target: args.target,
    };
    run_with(fuzz, "explore", &|_| Box::new(unitgen::Symbolic::new(timeout, log.clone())))
}

pub fn run(args: FuzzUnitArgs) -> anyhow::Result<i32> {
    let name = args.unit_gen.clone();
    anyhow::ensure!(
        unitgen::NAMES.contains(&name.as_str()),
        "unknown unit generator '{name}' (known: {})",
        unitgen::NAMES.join(", ")
    );
    run_with(args, "fuzz-unit", &|seed| unitgen::by_name(&name, seed).expect("a known name"))
}

fn run_with(
    args: FuzzUnitArgs,
    found_by: &str,
    generator: &dyn Fn(u64) -> Box<dyn unitgen::UnitGenerator>,
) -> anyhow::Result<i32> {
    let files = unit_files(&args.unit)?;
    anyhow::ensure!(!files.is_empty(), "no unit in {}", args.unit.display());
    let target = super::target(&args.target)?;
    let opts = Options {
        generator,
        seed: args.seed,
        tries: args.tries,
        restore: if args.restore_each_try { Restore::EachTry } else { Restore::Once },
        output: args.output.as_deref(),
        found_by,
    };
    let sum = engine::alone::explore(&files, target, &opts)?;
    let l = &sum.lifts;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&sum)?);
    } else {
        println!(
            "{} units ({} with parameters, {} not replayable), {} tries: {} unit failures, {} with new unit coverage",
            sum.units,
            sum.units_with_params,
            sum.units_unreplayable,
            l.unit_tries,
            l.unit_failures,
            l.unit_new_coverage
        );
        println!(
            "lifted {}: {} true alarms ({} kept), {} coverage lifts, {} false alarms filtered{}",
            l.lifted,
            l.true_alarms,
            sum.unique_true_alarms,
            l.coverage_lifts,
            l.false_alarms,
            if l.unliftable > 0 { format!("; {} values not liftable", l.unliftable) } else { String::new() }
        );
        if let Some(p) = sum.generator.last().and_then(|g| engine::campaign::status::pinned_summary(&g["stats"], 5)) {
            println!("symbolic values {p} (unmodelled calls keep them concrete)");
        }
        for Kept { id, alarm: a } in &sum.alarms {
            println!(
                "alarm {id}: {}() parameter {} {:?} -> {:?} ({}): {}",
                a.function, a.parameter, a.original_value, a.new_value, a.generator_op, a.outcome
            );
        }
    }
    Ok(0)
}
