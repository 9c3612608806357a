//! A unit round's try lifted into the system input and run through the
//! whole program: true alarms kept once per signature, coverage lifts
//! queued, false alarms counted; with a grammar, whether the lift left a
//! test it derives.

use super::{schedule, Current};
use crate::campaign::alarms::Found;
use crate::campaign::outdir::{sanitize, NEW_WORD_OP};
use crate::campaign::{trails, Campaign, Entry};
use crate::lift::{self, Stacks};
use crate::unit_loop::Try;
use lifter::Class;
use std::collections::BTreeMap;

impl Campaign {
    /// One try of a unit round: counted, and lifted when it failed or
    /// found unit-level coverage (`lift.rs`); a true alarm kept once per
    /// signature, a coverage lift queued.
    pub(super) fn unit_try(
        &mut self,
        alarms: &mut BTreeMap<String, u64>,
        fruitless: &mut u32,
        cur: &Current,
        t: Try<'_>,
    ) -> crate::Result<()> {
        let (entry, input, unit, params) = (cur.entry, &cur.input[..], &cur.unit, &cur.params[..]);
        let muted = *fruitless >= schedule::MAX_FRUITLESS;
        if !lift::admit(&mut self.file.stats.lifts, &t, params, &self.cov, Some(&self.branch_mask), muted) {
            return Ok(());
        }
        let c = t.candidate;
        let subs: Vec<_> = c.values.iter().map(|(k, v)| (&params[*k], v)).collect();
        let unit_name = format!("{}#{}", unit.meta.function, unit.meta.call_index);
        let labels = self.input_labels(entry, input);
        let args_in_input = self.fs.target().args_in_input;
        let (lifted, labels) = lifter::lift_labelled(input, &labels, &subs, args_in_input, &unit_name);
        let on_nodes: Vec<(usize, &model::unit::Param, &model::unit::Value)> = (c.values.iter())
            .filter_map(|(k, v)| cur.nonterminals.get(*k).copied().flatten().map(|nt| (nt, &params[*k], v)))
            .collect();
        // (The lifted test's tree, kept beside it if it joins the queue.)
        let lifted_tree = self.grammar.as_ref().and_then(|g| grammar::parse(g, &lifted).ok());
        let derived = self.node_lift(cur, &t, &on_nodes, lifted_tree.is_some());
        let edges_before = self.cov.edges();
        let root = self.out.root().to_path_buf();
        let stacks = Stacks { dir: &root, depth: self.file.config.signature_depth };
        let s = &mut self.file.stats;
        let checked = lift::check(&mut s.lifts, &mut self.fs, &mut self.cov, stacks, (&t, params), &lifted, derived)?;
        s.edges_by_units += (self.cov.edges() - edges_before) as u64;
        s.execs += 1;
        let class = checked.class;
        if class != Class::FalseAlarm && derived {
            // Values that lift well: the grammar generator may use them.
            for (nt, p, v) in &on_nodes {
                let name = self.grammar.as_ref().map(|g| g.rules[*nt].name.clone()).unwrap_or_default();
                self.generator.offer(&name, &lifter::written(input, p, v, args_in_input));
                self.file.stats.values_offered += 1;
            }
        }
        let lift = provenance::Lift {
            function: unit.meta.function.clone(),
            call: u64::from(unit.meta.call_index),
            params: c.values.iter().map(|(k, _)| model::alarm::describe_site(&params[*k].site)).collect(),
            found_by: c.op.to_string(),
        };
        let function = unit.meta.function.clone();
        *fruitless = if class == Class::FalseAlarm { *fruitless + 1 } else { 0 };
        match (class, c.changed(params)) {
            (Class::TrueAlarm, Some((k, value))) => {
                let sys = checked.outcome;
                let key = checked.key.unwrap_or_else(|| format!("{function} parameter {k}: {sys}"));
                let op = format!("lift_{}", sanitize(&function));
                let record = trails::lift(entry, &op, lift, labels);
                let found = Found { cur, t: &t, k: *k, value, lifted: &lifted, outcome: sys, record };
                self.keep_alarm(alarms, key, found)?;
            }
            (Class::CoverageLift, _) => {
                let id = self.next_id;
                self.next_id += 1;
                let new_word = c.values.iter().any(|(k, v)| {
                    matches!(params[*k].site, model::unit::Site::NewWord { .. }) && !params[*k].text(v).is_empty()
                });
                let suffix = if new_word { NEW_WORD_OP } else { "" };
                let op = format!("lift_{}{suffix}", sanitize(&function));
                let name = model::layout::test_name(model::layout::QUEUE, id, &format!("src:{entry:06},op:{op}"));
                let mut labels = labels;
                labels.adopt(id);
                let mut record = trails::lift(entry, &op, lift, labels.clone());
                record.test = name.clone();
                // Its tree, when the grammar derives it.
                if let (Some(g), Some(t)) = (&self.grammar, &lifted_tree) {
                    self.out.write_tree(&name, &t.to_json(g).to_string())?;
                }
                self.out.write_test(&name, &lifted, &record)?;
                let (hits, run_us, trimmed) = (self.hits(), self.run_us(), lifted_tree.is_some());
                let data = lifted;
                self.corpus.push(Entry { id, name, data, hits, new_word, seed: false, labels, run_us, trimmed });
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether a lift that puts values in place of derivation nodes
    /// (`on_nodes`) leaves a test the grammar derives (`parsed`), counted
    /// (true without a grammar or such values). One that does not is
    /// still run: it may fail or reach new code all the same, but when it
    /// does neither it is counted as not liftable, not as a false alarm.
    fn node_lift(
        &mut self,
        cur: &Current,
        t: &Try<'_>,
        on_nodes: &[(usize, &model::unit::Param, &model::unit::Value)],
        parsed: bool,
    ) -> bool {
        let Some(g) = self.grammar.as_ref().filter(|_| !on_nodes.is_empty()) else { return true };
        let (input, params) = (&cur.input[..], &cur.params[..]);
        let args_in_input = self.fs.target().args_in_input;
        // Each value on its own, as its nonterminal. A lift is valid when
        // every value it changes is on a node and parses as its
        // nonterminal (not a new word, not the whole file; an argv word
        // with room is among the values unchanged).
        let on_node = |k: &usize| cur.nonterminals.get(*k).copied().flatten().is_some();
        let changes = |k: &usize, v: &model::unit::Value| params[*k].text(v) != params[*k].original;
        let mut valid = t.candidate.values.iter().all(|(k, v)| on_node(k) || !changes(k, v));
        let s = &mut self.file.stats;
        for (nt, p, v) in on_nodes {
            let parses = grammar::parse(&g.with_start(*nt), &lifter::written(input, p, v, args_in_input)).is_ok();
            valid &= parses;
            s.leaf_lifts += 1;
            s.leaf_lifts_parsed += u64::from(parses);
        }
        s.node_lifts += 1;
        s.node_lifts_unparsed += u64::from(!parsed);
        // Valid lifts: the test should parse again.
        s.node_lifts_valid += u64::from(valid);
        s.node_lifts_valid_reparsed += u64::from(valid && parsed);
        parsed
    }
}

impl Campaign {
    /// The labels of `input`, a unit round's system test made from entry
    /// `entry`: the entry's, or, when the round changed it (`main`'s
    /// numbers padded, see `carver::grow`), relabelled from them.
    fn input_labels(&self, entry: u64, input: &[u8]) -> provenance::Labels {
        match self.corpus.iter().find(|e| e.id == entry) {
            Some(e) if e.data == input => e.labels.clone(),
            Some(e) => provenance::relabel(&e.data, &e.labels, input, "grow", &[]),
            None => provenance::Labels::inserted("grow", input.len()),
        }
    }
}
