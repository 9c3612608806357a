//! Fidelity: a replay is faithful when it returns what the original call
//! returned and hits the same edges within the call's dynamic extent.

use model::unit::CallOutcome;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fidelity {
    pub same_return: bool,
    /// Edges of the original call the replay did not hit.
    pub missing: Vec<u32>,
    /// Edges the replay hit that the original call did not.
    pub extra: Vec<u32>,
}

impl Fidelity {
    pub fn faithful(&self) -> bool {
        self.same_return && self.missing.is_empty() && self.extra.is_empty()
    }
}

pub fn compare(recorded: &CallOutcome, replayed: &CallOutcome) -> Fidelity {
    let missing = recorded.edges.iter().filter(|e| replayed.edges.binary_search(e).is_err()).copied().collect();
    let extra = replayed.edges.iter().filter(|e| recorded.edges.binary_search(e).is_err()).copied().collect();
    let same_return = if recorded.returns_pointer {
        (recorded.ret == 0) == (replayed.ret == 0)
    } else {
        !recorded.returns_value || recorded.ret == replayed.ret
    };
    Fidelity { same_return, missing, extra }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_named() {
        let a = CallOutcome { ret: 1, returns_value: true, returns_pointer: false, edges: vec![1, 2, 3] };
        let b = CallOutcome { ret: 1, returns_value: true, returns_pointer: false, edges: vec![1, 3, 4] };
        let f = compare(&a, &b);
        assert!(!f.faithful());
        assert_eq!((f.missing, f.extra), (vec![2], vec![4]));
        assert!(compare(&a, &a).faithful());
        let c = CallOutcome { ret: 2, ..a.clone() };
        assert!(!compare(&a, &c).same_return);
        let p = CallOutcome { ret: 0x5555_0000, returns_pointer: true, ..a.clone() };
        let q = CallOutcome { ret: 0x7777_0000, ..p.clone() };
        assert!(compare(&p, &q).same_return, "pointers compare by null-ness");
        assert!(!compare(&p, &CallOutcome { ret: 0, ..q }).same_return);
    }
}
