//! `bridge run`: a campaign (see `campaign/`).

use crate::cli::RunArgs;
use engine::campaign::outdir::OutDir;
use engine::campaign::state::{CampaignFile, Config};
use engine::campaign::Campaign;

pub fn run(args: RunArgs) -> anyhow::Result<i32> {
    let budget = args.time;
    let output = output_dir(&args)?;
    anyhow::ensure!(args.batch > 0, "--batch must be at least 1");
    match args.unit.as_str() {
        "none" | "fuzz" | "symbolic" => {}
        other => anyhow::bail!("unknown unit generator '{other}' (known: none, fuzz, symbolic)"),
    }
    let target = super::target(&args.target)?;
    let generator = |system: &str, grammar: Option<(&std::path::Path, &str)>, seed: u64| {
        let grammar = match grammar {
            Some((path, mode)) => {
                let mode: systemgen::Mode = mode.parse().map_err(|e: String| anyhow::anyhow!(e))?;
                Some((grammar::Grammar::load(path)?, mode))
            }
            None => None,
        };
        systemgen::by_name(system, seed, grammar).map_err(|e| anyhow::anyhow!(e))
    };
    // A resumed campaign keeps its unit generator.
    let mut unit = args.unit.clone();
    let (mut campaign, grammar_file) = if args.resume {
        let out = OutDir::open(&output)?;
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
        let grammar_file = file.config.grammar.clone();
        let grammar =
            file.config.grammar.as_deref().map(|p| (p, file.config.grammar_mode.as_deref().unwrap_or("mixed")));
        let g = generator(&file.config.system, grammar, seed)?;
        // Its tests carry their command line or they do not, whatever
        // this command line says.
        let mut target = target.clone();
        if target.args_in_input != file.config.args_in_input {
            eprintln!(
                "bridge run: the campaign's tests {} their command line: resuming {} --args-in-input",
                if file.config.args_in_input { "carry" } else { "do not carry" },
                if file.config.args_in_input { "with" } else { "without" }
            );
            target.args_in_input = file.config.args_in_input;
        }
        let fs = ::exec::ForkServer::start(with_stacks(target, &out))?;
        eprintln!("bridge run: resuming {} at {:.0} s of {budget:.0} s", output.display(), file.stats.elapsed_s);
        (Campaign::resume(out, file, fs, g)?, grammar_file)
    } else {
        let input = args.input.clone().expect("clap requires --input");
        let grammar_path = match &args.grammar {
            Some(p) => Some(std::path::absolute(p)?),
            None => None,
        };
        let g = generator(&args.system, grammar_path.as_deref().map(|p| (p, &args.mode[..])), args.seed)?;
        let seed_trees = match &grammar_path {
            Some(p) => seeds_parse(p, &input)?,
            None => Vec::new(),
        };
        let out = OutDir::create(&output)?;
        let config = Config {
            system: args.system.clone(),
            unit: args.unit.clone(),
            seed: args.seed,
            time_budget_s: budget,
            command: args.target.command.clone(),
            args_in_input: args.target.args_in_input,
            timeout_ms: args.target.timeout_ms(),
            calibrate: args.target.timeout_ms.is_none(),
            mem_limit_mb: args.target.mem_limit_mb,
            input_dir: input,
            batch: args.batch,
            parents: args.parents,
            signature_depth: usize::from(args.signature_depth),
            grammar: grammar_path.clone(),
            grammar_mode: grammar_path.as_ref().map(|_| args.mode.clone()),
            sync: args.sync.as_deref().map(std::path::absolute).transpose()?,
            sync_name: args.sync.as_ref().map(|_| args.name.clone()),
            cwd: std::env::current_dir().ok(),
            detect_leaks: args.target.detect_leaks,
            functions: args.functions.clone(),
        };
        let fs = ::exec::ForkServer::start(with_stacks(target.clone(), &out))?;
        let c = Campaign::start(out, CampaignFile::new(config), fs, g)?;
        // The seeds' trees, beside them.
        let out = OutDir::open(&output)?;
        for e in std::fs::read_dir(output.join("queue"))?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let tree = seed_trees.iter().find(|(seed, _)| name.ends_with(&format!(",orig:{seed}")));
            if let Some((_, json)) = tree {
                out.write_tree(&format!("queue/{name}"), json)?;
            }
        }
        (c, grammar_path)
    };
    if let Some(p) = grammar_file {
        campaign.with_grammar(grammar::Grammar::load(&p)?);
    }
    let config = CampaignFile::decode(&OutDir::open(&output)?.read("campaign.json")?)?.config;
    if let (Some(root), Some(name)) = (&config.sync, &config.sync_name) {
        let sync = engine::campaign::sync::SyncDir::open(root, name, &OutDir::open(&output)?)?;
        eprintln!("bridge run: instance {name} of {}: importing the other instances' queues", root.display());
        campaign.with_sync(sync);
    }
    if unit != "none" {
        let program = campaign_program(&args)?;
        let g = unitgen::by_name(&unit, args.seed).expect("a unit generator");
        let only = match &config.functions {
            Some(re) => {
                Some(anyhow::Context::with_context(regex::Regex::new(re), || format!("bad --functions regex '{re}'"))?)
            }
            None => None,
        };
        let mut uw = engine::campaign::units::UnitWork::new(program, &args.target.command[1..], only.as_ref(), g)?;
        uw.remember(engine::campaign::alarms::known_alarms(&output));
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
    println!("bridge run: {}", engine::campaign::status::time_spent(&s));
    Ok(0)
}

/// Says which seeds the grammar does not derive (and where parsing
/// stopped): the generator learns from those that parse, and edits them.
/// Returns the trees of those that parse, by name as the queue has it.
fn seeds_parse(grammar_path: &std::path::Path, input: &std::path::Path) -> anyhow::Result<Vec<(String, String)>> {
    let g = grammar::Grammar::load(grammar_path)?;
    let parser = grammar::Parser::new(&g)?;
    let files = super::files_in(input)?;
    let mut trees = Vec::new();
    for f in &files {
        match std::fs::read(f).map(|d| parser.parse(&d)) {
            Ok(Ok(t)) => {
                let name = engine::campaign::outdir::sanitize(&f.file_name().unwrap_or_default().to_string_lossy());
                trees.push((name, t.to_json(&g).to_string()));
            }
            Ok(Err(e)) => eprintln!("bridge run: warning: seed {} is not derived by the grammar: {e}", f.display()),
            Err(_) => {}
        }
    }
    let parsed = trees.len();
    eprintln!("bridge run: {parsed} of {} seeds parse with {}", files.len(), grammar_path.display());
    if parsed == 0 {
        eprintln!("bridge run: warning: no seed parses: nothing is learned until a test does, and tests are whole derivations");
    }
    Ok(trees)
}

/// The target program, absolute.
/// `target` asked to write the stack of every crashing run where the
/// campaign reads it (`campaign/signatures.rs`).
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

fn with_stacks(mut target: ::exec::Target, out: &OutDir) -> ::exec::Target {
    let path = engine::campaign::signatures::stack_file(out.root());
    let path = std::path::absolute(&path).unwrap_or(path);
    target.env.push((model::env::STACK_OUT.into(), path.to_string_lossy().into_owned()));
    target
}

fn campaign_program(args: &RunArgs) -> anyhow::Result<std::path::PathBuf> {
    let prog = args.target.command.first().ok_or_else(|| anyhow::anyhow!("no target given after --"))?;
    Ok(::exec::forkserver::resolve(std::path::Path::new(prog))?)
}
