//! Loading and writing the JSON form: Fuzzing Book files, errors with
//! their lines, the round trip.

use crate::{Error, Grammar, Sym};

/// The Fuzzing Book's `EXPR_GRAMMAR`, as `json.dumps(..., indent=2)`.
pub(crate) const EXPR: &str = r#"{
  "<start>": [
    "<expr>"
  ],
  "<expr>": [
    "<term> + <expr>",
    "<term> - <expr>",
    "<term>"
  ],
  "<term>": [
    "<factor> * <term>",
    "<factor> / <term>",
    "<factor>"
  ],
  "<factor>": [
    "+<factor>",
    "-<factor>",
    "(<expr>)",
    "<integer>.<integer>",
    "<integer>"
  ],
  "<integer>": [
    "<digit><integer>",
    "<digit>"
  ],
  "<digit>": ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
}"#;

fn load(text: &str) -> Result<Grammar, Error> {
    Grammar::from_json(text, "g.json")
}

/// The error's line and its message.
fn fails(text: &str) -> (usize, String) {
    match load(text) {
        Ok(_) => panic!("loaded: {text}"),
        Err(e @ (Error::Format { line, .. } | Error::Rule { line, .. })) => (line, e.to_string()),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn loads_a_fuzzing_book_grammar() {
    let g = load(EXPR).unwrap();
    assert_eq!(g.rules.len(), 6);
    assert_eq!(g.rules[g.start].name, "<start>");
    let lines: Vec<usize> = g.rules.iter().map(|r| r.line).collect();
    assert_eq!(lines, [2, 5, 10, 15, 22, 26]);
    let expr = &g.rules[g.index("<expr>").unwrap()];
    let term = g.index("<term>").unwrap();
    assert_eq!(expr.alts[0].symbols, [Sym::N(term), Sym::T(b" + ".to_vec()), Sym::N(1)]);
    let factor = &g.rules[g.index("<factor>").unwrap()];
    let int = g.index("<integer>").unwrap();
    assert_eq!(factor.alts[3].symbols, [Sym::N(int), Sym::T(b".".to_vec()), Sym::N(int)]);
    assert_eq!(g.rules[5].alts.len(), 10);
}

#[test]
fn reads_probabilities_and_literal_angle_brackets() {
    let g = load(
        r#"{"<start>": [["<a>", {"prob": 0.25}], "x", ["y <", {}], ["<>z"], ["", {"prob": 0.5, "order": [1]}]],
            "<a>": ["< a><<a>>", "b"]}"#,
    )
    .unwrap();
    let start = &g.rules[0];
    let probs: Vec<Option<f64>> = start.alts.iter().map(|a| a.prob).collect();
    assert_eq!(probs, [Some(0.25), None, None, None, Some(0.5)]);
    assert_eq!(g.probabilities(0), [0.25, 0.25 / 3.0, 0.25 / 3.0, 0.25 / 3.0, 0.5]);
    assert_eq!(start.alts[2].symbols, [Sym::T(b"y <".to_vec())]);
    assert_eq!(start.alts[3].symbols, [Sym::T(b"<>z".to_vec())]);
    assert!(start.alts[4].symbols.is_empty());
    let a = &g.rules[1].alts[0].symbols;
    assert_eq!(*a, [Sym::T(b"< a><".to_vec()), Sym::N(1), Sym::T(b">".to_vec())]);
}

#[test]
fn errors_name_the_line_and_the_nonterminal() {
    let (line, msg) = fails("{\n  \"<start>\": [\"<a>\"],\n  \"<a>\": [\"x\",]\n}");
    assert_eq!(line, 3, "{msg}");
    assert!(msg.contains("column"), "{msg}");

    let (line, msg) = fails("{\n  \"<begin>\": [\"x\"]\n}");
    assert!(msg.contains("<start>") && msg.contains("no start symbol"), "{line} {msg}");

    let (line, msg) = fails("{\n  \"<start>\": [\"<a>\"],\n  \"<a>\": [\n    \"x\",\n    \"<b> y\"\n  ]\n}");
    assert_eq!(line, 5, "{msg}");
    assert!(msg.contains("<a>: refers to <b>, which is not defined"), "{msg}");

    let (line, msg) = fails("{\n  \"<start>\": [\"x\"],\n  \"<lost>\": [\"y\"]\n}");
    assert_eq!(line, 3);
    assert!(msg.contains("<lost>: is not reachable"), "{msg}");

    let (line, msg) = fails("{\n  \"<start>\": [\"<a>\", \"<b>\"],\n  \"<a>\": [\"x\"],\n  \"<b>\": [\"<b>y\"]\n}");
    assert_eq!(line, 4);
    assert!(msg.contains("<b>: derives no finite string"), "{msg}");

    let (line, msg) = fails("{\n  \"<start>\": [[\"x\", {\"prob\": 1.5}], \"y\"]\n}");
    assert_eq!(line, 2);
    assert!(msg.contains("not in [0, 1]"), "{msg}");
    let (_, msg) = fails(r#"{"<start>": [["x", {"prob": 0.7}], ["y", {"prob": 0.6}], "z"]}"#);
    assert!(msg.contains("sum to 1.3") && msg.contains("at most 1"), "{msg}");
    let (_, msg) = fails(r#"{"<start>": [["x", {"prob": 0.2}], ["y", {"prob": 0.6}]]}"#);
    assert!(msg.contains("not 1"), "{msg}");
    let (_, msg) = fails(r#"{"<start>": [["x", {"prob": "high"}]]}"#);
    assert!(msg.contains("not a number"), "{msg}");

    let (line, msg) = fails("{\n  \"<start>\": [\"<a>\"],\n  \"<a>\": []\n}");
    assert_eq!(line, 3);
    assert!(msg.contains("<a>: has no alternatives"), "{msg}");

    let (line, msg) = fails("{\n  \"<start>\": [\"x\"],\n  \"<start>\": [\"y\"]\n}");
    assert_eq!(line, 3);
    assert!(msg.contains("defined twice"), "{msg}");

    for bad in [r#"["<start>"]"#, r#"{"start": ["x"]}"#, r#"{"<start>": "x"}"#, r#"{"<start>": [1]}"#, "", "{} x"] {
        assert!(matches!(load(bad), Err(Error::Format { .. })), "{bad}");
    }
}

#[test]
fn load_reads_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("expr.json");
    std::fs::write(&path, EXPR).unwrap();
    assert_eq!(Grammar::load(&path).unwrap().rules.len(), 6);
    assert!(matches!(Grammar::load(&dir.path().join("none.json")), Err(Error::Read { .. })));
}

#[test]
fn to_json_round_trips() {
    let texts = [
        EXPR,
        r#"{"<start>": [["<a>", {"prob": 0.1}], "x\"\\\n\u00e9", ["y <", {}], "<>z", ["", {"prob": 0.3333333333333333}]],
            "<a>": ["< a><<a>>", "b"]}"#,
    ];
    for text in texts {
        let g = load(text).unwrap();
        let json = g.to_json().unwrap();
        let mut back = load(&json).unwrap();
        for (i, r) in back.rules.iter_mut().enumerate() {
            assert_eq!(r.line, i + 2, "one nonterminal a line");
            r.line = g.rules[i].line;
        }
        assert_eq!(back, g, "{json}");
    }
}

#[test]
fn to_json_refuses_what_the_form_cannot_hold() {
    let mut g = load(r#"{"<start>": ["x"]}"#).unwrap();
    g.rules[0].alts[0].symbols = vec![Sym::T(vec![0xff])];
    assert!(g.to_json().is_err());
    g.rules[0].alts[0].symbols = vec![Sym::T(b"<a".to_vec()), Sym::T(b">".to_vec())];
    assert!(g.to_json().is_err());
}

#[test]
fn check_refuses_a_made_grammar_with_bad_references() {
    let mut g = load(r#"{"<start>": ["x"]}"#).unwrap();
    g.rules[0].alts[0].symbols = vec![Sym::N(7)];
    assert!(g.check("made").is_err());
    g.start = 3;
    assert!(g.check("made").is_err());
}
