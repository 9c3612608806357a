//! `bridge carve`: one run of the target with carving on; its snapshots
//! become unit tests.

use crate::cli::CarveArgs;
use anyhow::Context;
use model::env;
use model::unit::Meta;
use std::path::{Path, PathBuf};

pub fn run(args: CarveArgs) -> anyhow::Result<i32> {
    let target = super::target(&args.target)?;
    let input = super::read_input(args.input.as_deref())?;
    let program = std::fs::canonicalize(&target.program)
        .with_context(|| format!("target {} not found", target.program.display()))?;
    let functions = list_functions(&program)?;
    let selected: Vec<&str> = match &args.functions {
        Some(re) => {
            let re = regex::Regex::new(re).with_context(|| format!("bad --functions regex '{re}'"))?;
            functions.iter().map(|f| f.name.as_str()).filter(|f| re.is_match(f)).collect()
        }
        None => Vec::new(),
    };
    if args.functions.is_some() && selected.is_empty() {
        anyhow::bail!(
            "no function of {} matches --functions {}",
            program.display(),
            args.functions.unwrap_or_default()
        );
    }
    let caps = Caps {
        functions: selected.iter().map(|s| s.to_string()).collect(),
        max_per_function: args.max_per_function,
        budget: args.budget,
    };
    let (outcome, carved) = carve_run(target, &program, &input, &caps)?;
    std::fs::create_dir_all(&args.output).with_context(|| format!("cannot create {}", args.output.display()))?;
    let (mut written, mut bytes, mut truncated) = (0, 0, 0);
    let bad = carved.skipped;
    let mut per_function = std::collections::BTreeMap::<String, u32>::new();
    for unit in carved.units {
        bytes += unit.snapshot.bytes();
        truncated += usize::from(unit.snapshot.truncated());
        *per_function.entry(unit.meta.function.clone()).or_default() += 1;
        let name = free_name(&args.output, &unit.meta.function);
        write_atomic(&args.output.join(name), &unit.encode())?;
        written += 1;
    }
    eprintln!(
        "bridge carve: {outcome}; {written} calls of {} functions carved into {} ({bytes} bytes of memory, {truncated} cut at the budget{})",
        per_function.len(),
        args.output.display(),
        if bad > 0 { format!(", {bad} unreadable snapshots skipped") } else { String::new() }
    );
    Ok(0)
}

/// What to carve in a run.
pub struct Caps {
    /// Function names (empty: all).
    pub functions: Vec<String>,
    pub max_per_function: u32,
    pub budget: u64,
}

/// The units of one carving run, and how many snapshots were unreadable.
pub struct Carved {
    pub units: Vec<model::unit::Unit>,
    pub skipped: usize,
}

/// Runs `target` once on `input` with carving on; the carved calls as units.
pub fn carve_run(
    mut target: ::exec::Target,
    program: &Path,
    input: &[u8],
    caps: &Caps,
) -> anyhow::Result<(::exec::Outcome, Carved)> {
    let snaps = tempfile::Builder::new().prefix("carve-snaps").tempdir()?;
    // The target may run as another user: it must be able to write here.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(snaps.path(), std::fs::Permissions::from_mode(0o777))?;
    target.env.push((env::CARVE_DIR.into(), snaps.path().display().to_string()));
    target.env.push((env::CARVE_FUNCS.into(), caps.functions.join(",")));
    target.env.push((env::CARVE_MAX.into(), caps.max_per_function.to_string()));
    target.env.push((env::CARVE_BYTES.into(), caps.budget.to_string()));
    let args_in_input = target.args_in_input;
    let input_on_stdin = target.input_mode() == ::exec::InputMode::Stdin;
    let mut fs = ::exec::ForkServer::start(target)?;
    let outcome = fs.run(input)?;
    let input_path = fs.input_path().display().to_string();
    let input_content = if args_in_input { ::exec::split_test(input).1.to_vec() } else { input.to_vec() };
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(snaps.path())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| sequence(&p).map(|s| (s, p)))
        .collect();
    files.sort();
    let mut carved = Carved { units: Vec::new(), skipped: 0 };
    for (k, (_, path)) in files.iter().enumerate() {
        let raw = std::fs::read(path)?;
        let meta = Meta {
            program: program.display().to_string(),
            system_input: input.to_vec(),
            call_index: k as u32,
            input_path: input_path.clone(),
            input_content: input_content.clone(),
            input_on_stdin,
            ..Meta::default()
        };
        match carver::unit_from_snapshot(&raw, meta) {
            Ok(u) => carved.units.push(u),
            Err(e) => {
                eprintln!("bridge: warning: skipping snapshot {}: {e}", path.display());
                carved.skipped += 1;
            }
        }
    }
    Ok((outcome, carved))
}

/// An instrumented function: its branch-outcome slots and its name.
#[derive(Debug, Clone)]
pub struct FunctionInfo {
    pub first_branch: u32,
    pub branches: u32,
    pub name: String,
}

/// The instrumented functions of `program`.
pub fn list_functions(program: &Path) -> anyhow::Result<Vec<FunctionInfo>> {
    let out = tempfile::NamedTempFile::new()?;
    let status = std::process::Command::new(program)
        .env(env::LIST, out.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .status()
        .with_context(|| format!("cannot run {}", program.display()))?;
    let text = std::fs::read_to_string(out.path()).unwrap_or_default();
    anyhow::ensure!(
        status.success() && !text.is_empty(),
        "{} did not list its functions: is it built with this carve-clang?",
        program.display()
    );
    let list: Vec<FunctionInfo> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.splitn(4, ' ');
            let _id: u32 = w.next()?.parse().ok()?;
            let (first, n, name) = (w.next()?.parse().ok()?, w.next()?.parse().ok()?, w.next()?);
            Some(FunctionInfo { first_branch: first, branches: n, name: name.to_string() })
        })
        .collect();
    anyhow::ensure!(
        !list.is_empty(),
        "{} lists its functions in another format: rebuild it with this carve-clang",
        program.display()
    );
    Ok(list)
}

/// `name.PID.SEQ.snap` -> SEQ.
fn sequence(p: &Path) -> Option<u64> {
    let name = p.file_name()?.to_str()?.strip_suffix(".snap")?;
    name.rsplit('.').next()?.parse().ok()
}

/// `FUNCTION.N.unit` with the first N not taken.
fn free_name(dir: &Path, function: &str) -> String {
    let safe: String =
        function.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '.' { c } else { '_' }).collect();
    (0..).map(|n| format!("{safe}.{n}.unit")).find(|n| !dir.join(n).exists()).expect("a free name")
}

pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut tmp, bytes)?;
    tmp.persist(path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
