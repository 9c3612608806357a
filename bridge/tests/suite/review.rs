//! Reviewing failures: the runtime's stack at a crash or a hang,
//! signatures that tell bugs apart (inlined functions named), reductions
//! that keep the bug, and the table and SARIF of `bridge review`.

use crate::util::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `examples/interp` at `-O2 -g`: its bugs are in functions the optimiser
/// inlines into `main`.
fn interp(dir: &Path) -> PathBuf {
    let out = dir.join("interp");
    let src = repo().join("examples/interp/interp.c");
    let o =
        Command::new(tools_dir().join("carve-clang")).args(["-O2", "-g", "-o"]).arg(&out).arg(&src).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

const SHOW_BIN: &[u8] = b"set x 5\nshow x bin\n";
const SHOW_BIN_2: &[u8] = b"# another\nset other 7\nget other\nshow other bin\n";
const PUSH_WRAP: &[u8] = b"push 1\nset a 3\nprint\npush 7 4294967295\n";
const POKE: &[u8] = b"push 2\npoke -1000000000 5\n";

#[test]
fn review_groups_failures_by_signature_reduces_them_and_writes_sarif() {
    let dir = tempfile::tempdir().unwrap();
    let prog = interp(dir.path());
    let p = prog.to_str().unwrap();
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    let seeds = seeds_of("interp", dir.path());
    let run =
        bridge(&["run", "--unit", "none", "--time", "2s", "-i", seeds.to_str().unwrap(), "-o", o, "--", p, "@@"], b"");
    assert!(run.status.success(), "{}", stderr(&run));
    // Failures as a campaign keeps them (those it found stay too).
    let crashes = out.join("crashes");
    for (k, t) in [SHOW_BIN, SHOW_BIN_2, PUSH_WRAP, POKE].iter().enumerate() {
        std::fs::write(crashes.join(format!("id:9{k:05},sig:00,src:000000,op:test")), t).unwrap();
    }
    let sarif = dir.path().join("r.sarif");
    let v = bridge_json(&["review", "--json", "--sarif", sarif.to_str().unwrap(), o], b"");
    let sigs = v["signatures"].as_array().unwrap();
    let by_top = |f: &str| {
        sigs.iter()
            .find(|s| {
                s["signature"]["frames"].as_array().unwrap().iter().any(|fr| fr["function"] == f && fr["module"] == "-")
            })
            .unwrap_or_else(|| panic!("no signature in {f}: {v:#}"))
    };
    let show = by_top("cmd_show");
    let push = by_top("push_one");
    let poke = by_top("cmd_poke");
    assert!(
        show["key"].as_str().unwrap().starts_with("SIGSEGV | cmd_show (")
            && show["key"].as_str().unwrap().contains("interp.c:"),
        "{show}"
    );
    assert!(push["key"].as_str().unwrap().starts_with("SIGABRT | push_one ("), "{push}");
    assert!(poke["key"].as_str().unwrap().starts_with("SIGSEGV | cmd_poke ("), "{poke}");
    // Both `show ... bin` tests are one bug, whatever the campaign kept.
    let ours = |s: &serde_json::Value| {
        s["findings"].as_array().unwrap().iter().filter(|f| f.as_str().unwrap().contains(",op:test")).count()
    };
    assert_eq!((ours(show), ours(push), ours(poke)), (2, 1, 1), "{v:#}");
    // Each reduced reproducer is smaller and fails the same way.
    for s in [show, push, poke] {
        let reduced = std::fs::read(s["reduced"].as_str().unwrap()).unwrap();
        let first = s["findings"][0].as_str().unwrap();
        assert!(reduced.len() < std::fs::read(out.join(first)).unwrap().len(), "{s}");
        let r = dir.path().join("reduced");
        std::fs::write(&r, &reduced).unwrap();
        let again = Command::new(&prog).arg(&r).output().unwrap();
        let want = if s == push { 6 } else { 11 };
        assert_eq!(std::os::unix::process::ExitStatusExt::signal(&again.status), Some(want), "{s}");
    }
    // SARIF: one result per signature, at the failing line, with the
    // fingerprints the review printed; a second review (signatures read
    // back from the campaign directory) gives the same.
    let log: serde_json::Value = serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
    let schema = std::fs::read(repo().join("review/tests/sarif-schema-2.1.0.json")).unwrap();
    let schema = jsonschema::draft7::new(&serde_json::from_slice(&schema).unwrap()).unwrap();
    let errors: Vec<String> = schema.iter_errors(&log).map(|e| format!("{e} at {}", e.instance_path)).collect();
    assert!(errors.is_empty(), "not SARIF 2.1.0: {errors:?}");
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = serde_json::json!("fatal");
    assert!(!schema.is_valid(&broken), "the schema check must catch a bad level");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!((log["version"].as_str(), results.len()), (Some("2.1.0"), sigs.len()));
    let fp = |r: &serde_json::Value| r["partialFingerprints"]["primaryLocationLineHash"].as_str().unwrap().to_string();
    let show_result = results.iter().find(|r| fp(r) == show["fingerprint"].as_str().unwrap()).unwrap();
    let region = &show_result["locations"][0]["physicalLocation"];
    assert!(region["artifactLocation"]["uri"].as_str().unwrap().ends_with("examples/interp/interp.c"), "{show_result}");
    assert!(region["region"]["startLine"].as_u64().unwrap() > 0);
    let again = bridge_json(&["review", "--json", o], b"");
    let prints = |v: &serde_json::Value| {
        let mut f: Vec<String> =
            v["signatures"].as_array().unwrap().iter().map(|s| s["fingerprint"].to_string()).collect();
        f.sort();
        f
    };
    assert_eq!(prints(&v), prints(&again));
    // The HTML report, opened in a real browser: a reproducer full of
    // markup, NUL, 0xFF and ANSI escapes (an alarm found first) is text.
    let hostile = b"push 2\npoke -1000000000 5 </textarea><script>alert(1)</script>\0\xff\x1b[31m\n";
    let alarm = out.join("alarms/000099");
    std::fs::create_dir_all(&alarm).unwrap();
    std::fs::write(alarm.join("input"), hostile).unwrap();
    std::fs::write(alarm.join("original"), POKE).unwrap();
    let record = model::alarm::Alarm {
        version: model::alarm::ALARM_VERSION,
        found_by: "run".into(),
        function: "main".into(),
        call: 0,
        parameter: 0,
        site: "the input file".into(),
        original_value: String::from_utf8_lossy(POKE).into_owned(),
        new_value: String::from_utf8_lossy(hostile).into_owned(),
        parameters_changed: 1,
        generator_op: "<b>solved</b>".into(),
        outcome: "crash (signal 11, SIGSEGV)".into(),
        system_test: Some(0),
        unit_file: None,
        found_after_s: Some(0.0),
        key: None,
    };
    std::fs::write(alarm.join("report.json"), serde_json::to_vec(&record).unwrap()).unwrap();
    let html = dir.path().join("html");
    let r = bridge(&["review", "--html", html.to_str().unwrap(), o], b"");
    assert!(r.status.success(), "{}", stderr(&r));
    let page = std::fs::read(html.join("index.html")).unwrap();
    assert!(!page.iter().any(|&b| b == 0 || b == 0x1b || b == 0xff), "raw control bytes in the page");
    let dom = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", html.join("index.html").display()))
        .output()
        .expect("chromium (scripts/install-deps.sh installs it)");
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.contains("cmd_poke") && dom.contains("&lt;/textarea&gt;&lt;script&gt;alert(1)"), "{dom}");
    assert!(dom.contains("Branch outcomes per function") && dom.contains("<td>cmd_push</td>"), "{dom}");
    // Each signature's first failure with its trail back to a seed.
    assert!(dom.contains("Where it came from") && dom.contains("(a seed)"), "{dom}");
    for tag in ["<script", "<textarea", "<b>"] {
        assert!(!dom.contains(tag), "{tag} survived in the DOM");
    }
    assert!(dom.contains("\\x00") && dom.contains("\\xff") && dom.contains("\\x1b"), "escapes shown");
    // The table: a row per signature.
    let table = bridge(&["review", "--no-reduce", o], b"");
    assert!(table.status.success(), "{}", stderr(&table));
    assert!(stdout(&table).lines().any(|l| l.contains("SIGABRT") && l.contains("push_one")), "{}", stdout(&table));
}

#[test]
fn a_hang_is_signed_where_it_loops_and_reduce_keeps_the_bug() {
    let dir = tempfile::tempdir().unwrap();
    let hang = fixture("hang", dir.path());
    let t = dir.path().join("t");
    std::fs::write(&t, b"loop forever\n").unwrap();
    let mut target = exec::Target::new(&hang, Vec::new());
    target.timeout = std::time::Duration::from_millis(200);
    let (sig, _) =
        review::signature::of_test(&target, b"loop forever\n", target.timeout, review::symbolize::find().as_deref())
            .unwrap()
            .expect("it hangs");
    assert_eq!(sig.kind, model::alarm::FailureKind::Hang);
    assert_eq!(sig.top().map(|f| f.function.as_str()), Some("main"), "{sig:?}");
    // `bridge reduce` on a crash: smaller, and the same signal.
    let prog = interp(dir.path());
    std::fs::write(&t, PUSH_WRAP).unwrap();
    let r = dir.path().join("r");
    let o =
        bridge(&["reduce", t.to_str().unwrap(), "-o", r.to_str().unwrap(), "--", prog.to_str().unwrap(), "@@"], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    let reduced = std::fs::read(&r).unwrap();
    assert!(reduced.len() < PUSH_WRAP.len(), "{}", String::from_utf8_lossy(&reduced));
    let again = Command::new(&prog).arg(&r).output().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&again.status), Some(6));
    // A wild `memset` (hexdump's wrapped length) runs through the
    // program's data, the runtime's included, and faults inside libc where
    // the unwinder stops: the signature still names the program's caller.
    let hexdump = example("hexdump", dir.path());
    std::fs::write(&t, b"addr=0x10 len=0xfffffffffffffff0 fill=0x21\n").unwrap();
    let o = bridge(&["signature", "--json", t.to_str().unwrap(), "--", hexdump.to_str().unwrap(), "@@"], b"");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", stderr(&o)));
    // (Built without -g: `apply`, inlined, is named by its caller `main`.)
    let key = v["key"].as_str().unwrap();
    assert!(key.starts_with("SIGSEGV | main") || key.starts_with("SIGSEGV | apply"), "{v}");
    // A test that does not fail is refused, clearly.
    std::fs::write(&t, b"print\n").unwrap();
    let o =
        bridge(&["reduce", t.to_str().unwrap(), "-o", r.to_str().unwrap(), "--", prog.to_str().unwrap(), "@@"], b"");
    assert!(!o.status.success() && stderr(&o).contains("does not crash"), "{}", stderr(&o));
}

/// A hang is signed by the function it loops in, found from the unwind
/// tables: the program exports none of its functions, so the loader alone
/// does not know them, and each instruction of the loop would be a hang of
/// its own.
#[test]
fn a_hang_names_the_start_of_the_function_it_loops_in() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let spin = fixture("spin", dir.path());
    let nm = Command::new("llvm-nm-19").arg(&spin).output().unwrap();
    let main = stdout(&nm)
        .lines()
        .find_map(|l| l.strip_suffix(" T main").map(|a| u64::from_str_radix(a, 16).unwrap()))
        .unwrap_or_else(|| panic!("no main in {}", stdout(&nm)));
    let mut starts = std::collections::BTreeSet::new();
    let mut pcs = std::collections::BTreeSet::new();
    for wait_ms in [30, 70, 110, 150, 190] {
        let out = dir.path().join(format!("stack{wait_ms}"));
        let mut child = Command::new(&spin)
            .env("CARVE_STACK_OUT", &out)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"spin and spin\n").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(wait_ms));
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGUSR2) };
        let status = child.wait().unwrap();
        assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(libc::SIGUSR2));
        let dump = review::stack::Dump::parse(&std::fs::read_to_string(&out).unwrap());
        let func = dump.func.clone().unwrap_or_else(|| panic!("no function in {dump:?}"));
        assert_eq!(func.module, "-");
        starts.insert(func.offset);
        pcs.insert(dump.pc.unwrap().offset);
    }
    // `churn`, called once, is inlined into `main`.
    assert_eq!(starts, [main].into(), "interrupted at {pcs:x?}");
}
