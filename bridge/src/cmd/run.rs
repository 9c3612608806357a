//! `bridge run`: a campaign (`engine::campaign`), put together from the
//! command line and summed up when it ends.

use crate::cli::RunArgs;
use engine::campaign::setup;
use engine::campaign::state::Config;

pub fn run(args: RunArgs) -> anyhow::Result<i32> {
    let output = output_dir(&args)?;
    anyhow::ensure!(args.batch > 0, "--batch must be at least 1");
    match args.unit.as_str() {
        "none" | "fuzz" | "symbolic" => {}
        other => anyhow::bail!("unknown unit generator '{other}' (known: none, fuzz, symbolic)"),
    }
    let target = super::target(&args.target)?;
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        // GNAST's networks (`--system gnast`, also when a campaign resumes)
        // train on the campaign's one core, not on a thread per core (set
        // before any thread starts).
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
    if !args.no_bind {
        match crate::affinity::bind_to_free_core() {
            Ok(crate::affinity::Bound::Core(c)) => println!("bridge run: bound to core {c}"),
            Ok(crate::affinity::Bound::Kept) => {}
            Ok(crate::affinity::Bound::NoneFree) => {
                println!("bridge run: every core is taken by a process bound to it; running unbound (slower; --no-bind to choose so)")
            }
            Err(e) => println!("bridge run: could not bind to a core ({e}); running unbound"),
        }
    }
    let mut campaign = if args.resume {
        let how = setup::Resume { budget_s: args.time, command: args.target.command.clone() };
        setup::resume(&output, target, how)?
    } else {
        let grammar = match &args.grammar {
            Some(p) => Some(std::path::absolute(p)?),
            None => None,
        };
        let config = Config {
            system: args.system.clone(),
            unit: args.unit.clone(),
            seed: args.seed,
            time_budget_s: args.time,
            command: args.target.command.clone(),
            args_in_input: args.target.args_in_input,
            timeout_ms: args.target.timeout_ms(),
            calibrate: args.target.timeout_ms.is_none(),
            mem_limit_mb: args.target.mem_limit_mb,
            input_dir: args.input.clone().expect("clap requires --input"),
            batch: args.batch,
            parents: args.parents,
            signature_depth: usize::from(args.signature_depth),
            grammar_mode: grammar.as_ref().map(|_| args.mode.clone()),
            grammar,
            sync: args.sync.as_deref().map(std::path::absolute).transpose()?,
            sync_name: args.sync.as_ref().map(|_| args.name.clone()),
            cwd: std::env::current_dir().ok(),
            detect_leaks: args.target.detect_leaks,
            functions: args.functions.clone(),
            trim: !args.no_trim,
            auto_dict: !args.no_auto_dict,
            dict: args.dict.iter().map(std::path::absolute).collect::<Result<_, _>>()?,
            gnast: args.gnast.options(),
        };
        setup::start(&output, config, target)?
    };
    let s = campaign.run()?.clone();
    if s.units_carved > 0 {
        println!(
            "bridge run: {} units carved, {} with parameters; {} analysed ({} of main with room for numbers to grow), {} not replayable, {} given up (hung on every try), {} unit rounds failed",
            s.units_carved, s.units_with_params, s.units_analysed, s.main_grown, s.units_unreplayable, s.units_given_up, s.unit_errors
        );
    }
    if s.units_analysed > 0 {
        println!(
            "bridge run: {} units analysed, {} unit tries ({} failures); lifted {}: {} true alarms ({} kept in alarms/), {} coverage lifts, {} false alarms filtered{}",
            s.units_analysed,
            s.lifts.unit_tries,
            s.lifts.unit_failures,
            s.lifts.lifted,
            s.lifts.true_alarms,
            s.unique_true_alarms,
            s.lifts.coverage_lifts,
            s.lifts.false_alarms,
            if s.lifts.unliftable > 0 { format!("; {} values not liftable", s.lifts.unliftable) } else { String::new() }
        );
        if let Some(p) = engine::campaign::status::pinned_summary(&s.unit_generator, 5) {
            println!("bridge run: symbolic values {p} (unmodelled calls keep them concrete)");
        }
    }
    let not_repeated = match s.crashes_not_repeated {
        0 => String::new(),
        n => format!("; {n} crashes of a persistent child not repeated in a fresh one (not counted)"),
    };
    println!(
        "bridge run: {} execs in {:.0} s; {} of {} branch outcomes ({:.1} %), {} edges; corpus {}; {} crashes ({} kept), {} hangs ({} kept){not_repeated}{}",
        s.execs,
        s.elapsed_s,
        s.branches,
        s.branches_total,
        s.branch_pct(),
        s.edges,
        s.queue,
        s.crashes,
        s.unique_crashes,
        s.hangs,
        s.unique_hangs,
        if s.finished { "" } else { "; stopped early, continue with --resume" }
    );
    if s.trim_runs > 0 {
        println!(
            "bridge run: {} kept tests trimmed by {} bytes in {} runs ({:.1} % of the execs)",
            s.trimmed,
            s.trim_cut_bytes,
            s.trim_runs,
            100.0 * s.trim_runs as f64 / s.execs.max(1) as f64
        );
    }
    if !s.generator.is_empty() {
        let figures: Vec<String> = s.generator.iter().map(|(k, v)| format!("{k} {}", figure(*v))).collect();
        println!("bridge run: {}: {}", args.system, figures.join(", "));
    }
    println!("bridge run: {}", engine::campaign::status::time_spent(&s));
    Ok(0)
}

/// A figure as short as it can be said: whole numbers without decimals.
fn figure(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// The campaign directory: `-o`, or the instance's directory in the sync
/// directory.
fn output_dir(args: &RunArgs) -> anyhow::Result<std::path::PathBuf> {
    if args.system == systemgen::EXTERNAL {
        anyhow::ensure!(
            args.sync.is_some(),
            "--system afl++ takes its tests from an AFL++ sync directory: give --sync DIR"
        );
    }
    let Some(sync) = &args.sync else {
        return Ok(args.output.clone().expect("clap requires --output without --sync"));
    };
    if args.target.args_in_input {
        eprintln!(
            "bridge run: --args-in-input with --sync: run the AFL++ instances with {}=1, so that they read a test's first line as its command line too",
            model::env::ARGS_IN_INPUT
        );
    }
    anyhow::ensure!(
        !args.name.is_empty() && !args.name.starts_with('.') && !args.name.contains('/'),
        "--name must be a plain directory name, not '{}'",
        args.name
    );
    anyhow::ensure!(sync.is_dir() || !sync.exists(), "{} is not a directory", sync.display());
    std::fs::create_dir_all(sync)?;
    let mine = sync.join(&args.name);
    if let Some(o) = &args.output {
        anyhow::ensure!(
            std::path::absolute(o)? == std::path::absolute(&mine)?,
            "with --sync the campaign directory is {}: leave out -o",
            mine.display()
        );
    }
    Ok(mine)
}
