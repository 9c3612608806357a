//! `bridge run`: a campaign (see `campaign/`).

use crate::campaign::outdir::OutDir;
use crate::campaign::state::{CampaignFile, Config};
use crate::campaign::Campaign;
use crate::cli::RunArgs;

pub fn run(args: RunArgs) -> anyhow::Result<i32> {
    let budget = args.time;
    anyhow::ensure!(args.batch > 0, "--batch must be at least 1");
    match args.unit.as_str() {
        "none" | "fuzz" | "symbolic" => {}
        other => anyhow::bail!("unknown unit generator '{other}' (known: none, fuzz, symbolic)"),
    }
    let target = super::target(&args.target)?;
    let generator = |seed: u64| {
        systemgen::by_name(&args.system, seed).ok_or_else(|| {
            anyhow::anyhow!("unknown system generator '{}' (known: {})", args.system, systemgen::GENERATORS.join(", "))
        })
    };
    // A resumed campaign keeps its unit generator.
    let mut unit = args.unit.clone();
    let mut campaign = if args.resume {
        let out = OutDir::open(&args.output)?;
        let mut file = CampaignFile::decode(&out.read("campaign.json")?)?;
        if file.config.command != args.target.command {
            eprintln!(
                "bridge run: warning: resuming with '{}' where the campaign ran '{}'",
                args.target.command.join(" "),
                file.config.command.join(" ")
            );
        }
        file.config.time_budget_s = budget;
        unit = file.config.unit.clone();
        // Another stream of randomness than the one already spent.
        let seed = file.config.seed ^ (u64::from(file.stats.resumes) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let g = generator(seed)?;
        let fs = ::exec::ForkServer::start(with_stacks(target.clone(), &out))?;
        eprintln!("bridge run: resuming {} at {:.0} s of {budget:.0} s", args.output.display(), file.stats.elapsed_s);
        Campaign::resume(out, file, fs, g)?
    } else {
        let input = args.input.clone().expect("clap requires --input");
        let g = generator(args.seed)?;
        let out = OutDir::create(&args.output)?;
        let config = Config {
            system: args.system.clone(),
            unit: args.unit.clone(),
            seed: args.seed,
            time_budget_s: budget,
            command: args.target.command.clone(),
            args_in_input: args.target.args_in_input,
            timeout_ms: args.target.timeout_ms,
            mem_limit_mb: args.target.mem_limit_mb,
            input_dir: input,
            batch: args.batch,
            parents: args.parents,
            signature_depth: usize::from(args.signature_depth),
        };
        let fs = ::exec::ForkServer::start(with_stacks(target.clone(), &out))?;
        Campaign::start(out, CampaignFile::new(config), fs, g)?
    };
    if unit != "none" {
        let program = campaign_program(&args)?;
        let g = unitgen::by_name(&unit, args.seed).expect("a unit generator");
        let mut uw = crate::campaign::units::UnitWork::new(program, g)?;
        uw.remember(crate::campaign::alarms::known_alarms(&args.output));
        campaign.with_units(uw);
    }
    let s = campaign.run()?.clone();
    if s.units_carved > 0 {
        println!(
            "bridge run: {} units carved, {} with parameters; {} analysed ({} of main with room for numbers to grow), {} not replayable, {} given up (hung on every try), {} unit rounds failed",
            s.units_carved, s.units_with_params, s.units_analysed, s.main_grown, s.units_unreplayable, s.units_given_up, s.unit_errors
        );
    }
    if s.units_analysed > 0 {
        println!(
            "bridge run: {} units analysed, {} unit tries ({} failures); lifted {}: {} true alarms ({} kept in alarms/), {} coverage lifts, {} false alarms filtered",
            s.units_analysed, s.unit_tries, s.unit_failures, s.lifted, s.true_alarms, s.unique_true_alarms, s.coverage_lifts, s.false_alarms
        );
        if let Some(p) = crate::campaign::status::pinned_summary(&s.unit_generator, 5) {
            println!("bridge run: symbolic values {p} (unmodelled calls keep them concrete)");
        }
    }
    println!(
        "bridge run: {} execs in {:.0} s; {} of {} branch outcomes ({:.1} %), {} edges; corpus {}; {} crashes ({} kept), {} hangs ({} kept){}",
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
    Ok(0)
}

/// The target program, absolute.
/// `target` asked to write the stack of every crashing run where the
/// campaign reads it (`campaign/signatures.rs`).
fn with_stacks(mut target: ::exec::Target, out: &OutDir) -> ::exec::Target {
    let path = crate::campaign::signatures::stack_file(out.root());
    let path = std::path::absolute(&path).unwrap_or(path);
    target.env.push((model::env::STACK_OUT.into(), path.to_string_lossy().into_owned()));
    target
}

fn campaign_program(args: &RunArgs) -> anyhow::Result<std::path::PathBuf> {
    let prog = args.target.command.first().ok_or_else(|| anyhow::anyhow!("no target given after --"))?;
    let p = std::path::Path::new(prog);
    let found = if p.components().count() > 1 {
        std::fs::canonicalize(p).ok()
    } else {
        std::env::var_os("PATH").and_then(|path| std::env::split_paths(&path).map(|d| d.join(p)).find(|c| c.is_file()))
    };
    found.ok_or_else(|| anyhow::anyhow!("target {prog} not found"))
}
