//! A run with carving on, its snapshots read back as units; and the
//! functions an instrumented program lists.

use crate::{Error, Result};
use model::env;
use model::unit::{Meta, Unit};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What to carve in a run.
pub struct Caps {
    /// Function names (empty: all).
    pub functions: Vec<String>,
    pub max_per_function: u32,
    pub budget: u64,
}

/// The units of one carving run, and the snapshots that could not be
/// read (each with what was wrong).
pub struct Carved {
    pub units: Vec<Unit>,
    pub skipped: Vec<(PathBuf, String)>,
}

/// Runs `target` once on `input` with carving on; the carved calls as
/// units, in the order they were made.
pub fn carve_run(
    mut target: exec::Target,
    program: &Path,
    input: &[u8],
    caps: &Caps,
) -> Result<(exec::Outcome, Carved)> {
    let snaps = tempfile::Builder::new().prefix("carve-snaps").tempdir()?;
    // The target may run as another user: it must be able to write here.
    std::fs::set_permissions(snaps.path(), std::fs::Permissions::from_mode(0o777))?;
    target.env.push((env::CARVE_DIR.into(), snaps.path().display().to_string()));
    target.env.push((env::CARVE_FUNCS.into(), caps.functions.join(",")));
    target.env.push((env::CARVE_MAX.into(), caps.max_per_function.to_string()));
    target.env.push((env::CARVE_BYTES.into(), caps.budget.to_string()));
    let args_in_input = target.args_in_input;
    let program_args = exec::absolute_args(&target.args);
    let input_on_stdin = target.input_mode() == exec::InputMode::Stdin;
    let mut fs = exec::ForkServer::start(target).map_err(|e| Error::Start(program.to_path_buf(), e))?;
    let outcome = fs.run(input)?;
    let input_path = fs.input_path().display().to_string();
    let input_content = if args_in_input { exec::split_test(input).1.to_vec() } else { input.to_vec() };
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(snaps.path())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| sequence(&p).map(|s| (s, p)))
        .collect();
    files.sort();
    let mut carved = Carved { units: Vec::new(), skipped: Vec::new() };
    for (k, (_, path)) in files.into_iter().enumerate() {
        let raw = std::fs::read(&path).map_err(|e| Error::Read(path.clone(), e))?;
        match Unit::decode(&raw) {
            Ok(mut u) => {
                u.meta = Meta {
                    function: u.snapshot.name.clone(),
                    program: program.display().to_string(),
                    system_input: input.to_vec(),
                    call_index: k as u32,
                    input_path: input_path.clone(),
                    input_content: input_content.clone(),
                    input_on_stdin,
                    program_args: program_args.clone(),
                    ..Meta::default()
                };
                carved.units.push(u)
            }
            Err(e) => carved.skipped.push((path, e.to_string())),
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

/// What a program built with carve-clang says of itself when asked
/// (`CARVE_LIST`): its instrumented functions and its dictionary (the
/// constants its code compares with, `instrument::tokens`).
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub functions: Vec<FunctionInfo>,
    pub tokens: Vec<Vec<u8>>,
}

/// The instrumented functions of `program`, started with `args` (see
/// [`start_args`]).
pub fn list_functions(program: &Path, args: &[String]) -> Result<Vec<FunctionInfo>> {
    Ok(list_program(program, args)?.functions)
}

/// The functions and dictionary of `program`, started with `args` (see
/// [`start_args`]).
pub fn list_program(program: &Path, args: &[String]) -> Result<Listing> {
    let out = tempfile::NamedTempFile::new()?;
    let (real, lib_env) = exec::libtool::unwrap(program)?;
    let status = std::process::Command::new(real)
        .args(start_args(args))
        .envs(lib_env)
        .env(env::LIST, out.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| Error::Run(program.to_path_buf(), e))?;
    let text = std::fs::read_to_string(out.path()).unwrap_or_default();
    if !status.success() || text.is_empty() {
        return Err(Error::NotListed(program.to_path_buf()));
    }
    let functions = parse_list(&text);
    if functions.is_empty() {
        return Err(Error::ListFormat(program.to_path_buf()));
    }
    Ok(Listing { functions, tokens: parse_tokens(&text) })
}

/// `token HEX` lines, each token once, in their order.
fn parse_tokens(text: &str) -> Vec<Vec<u8>> {
    let mut seen = std::collections::HashSet::new();
    text.lines()
        .filter_map(|l| {
            let hex = l.strip_prefix("token ")?;
            if hex.is_empty() || hex.len() % 2 == 1 {
                return None;
            }
            (0..hex.len()).step_by(2).map(|k| u8::from_str_radix(hex.get(k..k + 2)?, 16).ok()).collect()
        })
        .filter(|t: &Vec<u8>| seen.insert(t.clone()))
        .collect()
}

/// The arguments a program is started with to list its functions or
/// replay a unit: the campaign's, `@@` being `/dev/null` (the runtime
/// does either before a program built with carve-clang reads them; a
/// host such as Python needs them to load the instrumented library).
pub fn start_args(args: &[String]) -> Vec<String> {
    args.iter().map(|a| if a == "@@" { "/dev/null".to_string() } else { a.clone() }).collect()
}

/// `id first_branch branches name` per line; other lines are skipped.
fn parse_list(text: &str) -> Vec<FunctionInfo> {
    text.lines()
        .filter_map(|l| {
            let mut w = l.splitn(4, ' ');
            let _id: u32 = w.next()?.parse().ok()?;
            let (first, n, name) = (w.next()?.parse().ok()?, w.next()?.parse().ok()?, w.next()?);
            Some(FunctionInfo { first_branch: first, branches: n, name: name.to_string() })
        })
        .collect()
}

/// `name.PID.SEQ.snap` -> SEQ.
fn sequence(p: &Path) -> Option<u64> {
    let name = p.file_name()?.to_str()?.strip_suffix(".snap")?;
    name.rsplit('.').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_read_once_each_and_bad_lines_are_skipped() {
        let t = parse_tokens("0 0 4 main\ntoken 5f\ntoken 6966\ntoken 5f\ntoken 5\ntoken zz\ntoken \n");
        assert_eq!(t, vec![b"_".to_vec(), b"if".to_vec()]);
        assert!(parse_list("token 5f\n").is_empty());
    }

    #[test]
    fn the_function_list_keeps_names_with_spaces_and_skips_what_it_cannot_read() {
        let l = parse_list("0 0 4 main\n1 4 2 operator new(unsigned long)\nx 1 2 bad\n2 6\n");
        let got: Vec<_> = l.iter().map(|f| (f.first_branch, f.branches, f.name.as_str())).collect();
        assert_eq!(got, [(0, 4, "main"), (4, 2, "operator new(unsigned long)")]);
    }

    #[test]
    fn snapshots_are_ordered_by_their_sequence_number() {
        assert_eq!(sequence(Path::new("/d/scale_row.1234.17.snap")), Some(17));
        assert_eq!(sequence(Path::new("/d/a.b.12.x.snap")), None);
        assert_eq!(sequence(Path::new("/d/f.1.2.tmp")), None);
    }
}
