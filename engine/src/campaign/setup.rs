//! A campaign put together from its configuration: a new one in a new
//! directory (its seeds read, their derivation trees kept beside them when
//! a grammar drives it), or one resumed from its directory with the
//! configuration it started with; then its grammar, its sync directory and
//! its unit level, as the configuration asks.

use super::outdir::{sanitize, OutDir};
use super::state::{CampaignFile, Config};
use super::{alarms, signatures, sync, units, Campaign};
use crate::{Error, Result};
use exec::{ForkServer, Target};
use model::layout;
use std::path::Path;

/// What the resumed campaign is told about the run at hand.
pub struct Resume {
    /// Its new time budget, in seconds (the time spent counts against it).
    pub budget_s: f64,
    /// The command line it is resumed with, as given.
    pub command: Vec<String>,
}

/// A new campaign in `output` (which must not hold one), with `target`
/// as the program it runs.
pub fn start(output: &Path, config: Config, target: Target) -> Result<Campaign> {
    let grammar = config.grammar.as_ref().map(|p| (p.clone(), config.grammar_mode.clone()));
    let grammar_at = grammar.as_ref().map(|(p, m)| (p.as_path(), m.as_deref()));
    let g = generator(&config.system, grammar_at, config.gnast.clone(), config.seed)?;
    let seed_trees = match (g.grammar(), &config.grammar) {
        (Some(grammar), Some(path)) => {
            if !config.args_in_input && grammar.writes(b"@@") {
                eprintln!(
                    "bridge run: warning: {} writes `@@`: its tests begin with a command line, which is one only with --args-in-input; without it, the line is input to the program",
                    path.display()
                );
            }
            seeds_parse(&grammar, path, &config.input_dir)?
        }
        _ => Vec::new(),
    };
    // A dictionary with errors is refused before anything is written.
    for path in &config.dict {
        systemgen::dict::load(path).map_err(|e| Error::Refused(e.to_string()))?;
    }
    let out = OutDir::create(output)?;
    let fs = ForkServer::start(with_stacks(target, &out))?;
    let c = Campaign::start(out, CampaignFile::new(config), fs, g)?;
    // The seeds' trees, beside them.
    let out = OutDir::open(output)?;
    for e in std::fs::read_dir(output.join(layout::QUEUE))?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let tree = seed_trees.iter().find(|(seed, _)| name.ends_with(&format!(",orig:{seed}")));
        if let Some((_, json)) = tree {
            out.write_tree(&format!("{}/{name}", layout::QUEUE), json)?;
        }
    }
    finish(c, output)
}

/// The campaign in `output`, resumed with `target`: its tests carry their
/// command line or not as they did, whatever `target` says.
pub fn resume(output: &Path, mut target: Target, how: Resume) -> Result<Campaign> {
    let out = OutDir::open(output)?;
    let mut file = CampaignFile::decode(&out.read(layout::CAMPAIGN_FILE)?)?;
    if file.config.command != how.command {
        eprintln!(
            "bridge run: warning: resuming with '{}' where the campaign ran '{}'",
            how.command.join(" "),
            file.config.command.join(" ")
        );
    }
    file.config.time_budget_s = how.budget_s;
    // Another stream of randomness than the one already spent.
    let seed = file.config.seed ^ (u64::from(file.stats.resumes) + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let grammar = file.config.grammar.as_deref().map(|p| (p, file.config.grammar_mode.as_deref()));
    let g = generator(&file.config.system, grammar, file.config.gnast.clone(), seed)?;
    if target.args_in_input != file.config.args_in_input {
        eprintln!(
            "bridge run: the campaign's tests {} their command line: resuming {} --args-in-input",
            if file.config.args_in_input { "carry" } else { "do not carry" },
            if file.config.args_in_input { "with" } else { "without" }
        );
        target.args_in_input = file.config.args_in_input;
    }
    let fs = ForkServer::start(with_stacks(target, &out))?;
    eprintln!("bridge run: resuming {} at {:.0} s of {:.0} s", output.display(), file.stats.elapsed_s, how.budget_s);
    finish(Campaign::resume(out, file, fs, g)?, output)
}

/// The grammar, sync directory and unit level its configuration asks for.
fn finish(mut campaign: Campaign, output: &Path) -> Result<Campaign> {
    let config = CampaignFile::decode(&OutDir::open(output)?.read(layout::CAMPAIGN_FILE)?)?.config;
    if let (Some(root), Some(name)) = (&config.sync, &config.sync_name) {
        let sync = sync::SyncDir::open(root, name, &OutDir::open(output)?)?;
        eprintln!("bridge run: instance {name} of {}: importing the other instances' queues", root.display());
        campaign.with_sync(sync);
    }
    // What the program says of itself, when its fork server said it was
    // built with carve-clang (the unit level refuses it otherwise, below).
    let (program, args) = campaign.command();
    let listing = if campaign.instrumented() || config.unit != "none" {
        driver::carve::list_program(&program, &args)
    } else {
        Err(driver::Error::NotListed(program.clone()))
    };
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    if config.auto_dict {
        if let Ok(l) = &listing {
            tokens.extend(l.tokens.iter().filter(|t| seen.insert(t.to_vec())).cloned());
        }
    }
    let auto = tokens.len();
    for path in &config.dict {
        let given = systemgen::dict::load(path).map_err(|e| Error::Refused(e.to_string()))?;
        tokens.extend(given.into_iter().filter(|t| seen.insert(t.clone())));
    }
    if !tokens.is_empty() {
        if campaign.add_tokens(&tokens, auto as u64) {
            eprintln!(
                "bridge run: a dictionary of {} tokens ({auto} from the program's comparisons, {} from --dict)",
                tokens.len(),
                tokens.len() - auto
            );
        } else if !config.dict.is_empty() {
            eprintln!("bridge run: warning: --system {} takes no dictionary: --dict is ignored", config.system);
        }
    }
    if config.unit != "none" {
        let g = unitgen::by_name(&config.unit, config.seed)
            .ok_or_else(|| Error::Refused(format!("unknown unit generator '{}'", config.unit)))?;
        let only = match &config.functions {
            Some(re) => {
                Some(regex::Regex::new(re).map_err(|e| Error::Refused(format!("bad --functions regex '{re}': {e}")))?)
            }
            None => None,
        };
        let mut uw = units::UnitWork::new(program, listing?.functions, only.as_ref(), g)?;
        uw.remember(alarms::known_alarms(output));
        campaign.with_units(uw);
    }
    Ok(campaign)
}

/// The system generator `system`, driven by the grammar at `grammar` in
/// its mode when it has one, or of GNAST's `gnast` options.
fn generator(
    system: &str,
    grammar: Option<(&Path, Option<&str>)>,
    gnast: Option<systemgen::GnastOptions>,
    seed: u64,
) -> Result<Box<dyn systemgen::SystemGenerator>> {
    let grammar = match grammar {
        Some((path, mode)) => {
            let mode: systemgen::Mode = mode.unwrap_or("mixed").parse().map_err(Error::Refused)?;
            Some((grammar::Grammar::load(path)?, mode))
        }
        None => None,
    };
    (systemgen::Config::new(system, grammar).and_then(|c| c.with_gnast(gnast)))
        .and_then(|c| c.build(seed))
        .map_err(Error::Refused)
}

/// Says which seeds the grammar does not derive (and where parsing
/// stopped): the generator learns from those that parse, and edits them.
/// Returns the trees of those that parse, by name as the queue has it.
fn seeds_parse(g: &grammar::Grammar, grammar_path: &Path, input: &Path) -> Result<Vec<(String, String)>> {
    let parser = grammar::Parser::new(g)?;
    let files = driver::files::files_in(input)?;
    let mut trees = Vec::new();
    for f in &files {
        match std::fs::read(f).map(|d| parser.parse(&d)) {
            Ok(Ok(t)) => {
                let name = sanitize(&f.file_name().unwrap_or_default().to_string_lossy());
                trees.push((name, t.to_json(g).to_string()));
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

/// `target` asked to write the stack of every crashing run where the
/// campaign reads it (`signatures.rs`).
fn with_stacks(mut target: Target, out: &OutDir) -> Target {
    let path = signatures::stack_file(out.root());
    let path = std::path::absolute(&path).unwrap_or(path);
    target.env.push((model::env::STACK_OUT.into(), path.to_string_lossy().into_owned()));
    target
}
