//! What tells one failure from another before symbolization: its kind
//! (the signal, a hang, a sanitizer report's type) and the innermost
//! places of the program's own code, by offset. A campaign keeps one
//! crash, hang and alarm per identity ([`Identity::key`]); a reduction
//! keeps the test's identity; `bridge review` symbolizes the places into a
//! [`model::alarm::Signature`], whose kind is the same [`FailureKind`].

use crate::stack::Dump;
use model::alarm::FailureKind;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Identity {
    pub kind: FailureKind,
    /// Innermost first: `0x1a2b` in the program, `libfoo.so+0x30` in
    /// another module.
    pub places: Vec<String>,
}

impl Identity {
    /// From the runtime's stack of a failing run: a signal by the
    /// interrupted instruction and the return addresses, a hang (the fork
    /// server's `SIGUSR2`) by the function it was in; `depth` places of
    /// the program's own. `None` when the run left no signal.
    pub fn of_stack(dump: &Dump, depth: usize) -> Option<Identity> {
        let signal = dump.signal?;
        if signal == libc::SIGUSR2 {
            return Some(Identity { kind: FailureKind::Hang, places: dump.own_hang(depth) });
        }
        Some(Identity { kind: FailureKind::Signal(crate::signature::signal_name(signal)), places: dump.own(depth) })
    }

    /// From a sanitizer's report: its type (with the access and size) and
    /// its `depth` innermost frames (the report's stack starts where the
    /// error is, while the runtime's stack of the abort that ends it
    /// starts inside the sanitizer). `None` when `report` is none.
    pub fn of_report(report: &str, program: &Path, depth: usize) -> Option<Identity> {
        let r = crate::report::parse(report)?;
        let places = r
            .frames
            .iter()
            .take(depth)
            .map(|p| {
                if Path::new(&p.module) == program {
                    format!("{:#x}", p.offset)
                } else {
                    format!("{}+{:#x}", p.module.rsplit('/').next().unwrap_or(&p.module), p.offset)
                }
            })
            .collect();
        Some(Identity { kind: FailureKind::Sanitizer(r.kind), places })
    }

    /// The report's identity when the run ended in one, else the stack's.
    pub fn of_run(dump: &Dump, report: Option<&str>, program: &Path, depth: usize) -> Option<Identity> {
        report.and_then(|r| Identity::of_report(r, program, depth)).or_else(|| Identity::of_stack(dump, depth))
    }

    /// `SIGABRT at 0x6482 0x5601`, `hang at 0x40`,
    /// `heap-buffer-overflow WRITE 1 at 0x1a2b librec.so+0x30`.
    pub fn key(&self) -> String {
        format!("{} at {}", self.kind, self.places.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_names_its_signal_and_the_programs_places() {
        let stack =
            "signal 6\npc /lib/libc.so.6 8aeec\nframe /lib/libc.so.6 26472\nframe - 6482\nframe - 5601\nframe - 10\n";
        let id = Identity::of_stack(&Dump::parse(stack), 2).unwrap();
        assert_eq!(id.key(), "SIGABRT at 0x6482 0x5601");
        let hang = Identity::of_stack(&Dump::parse("signal 12\npc - 5c\nfunc - 40\nframe - 90\n"), 3).unwrap();
        assert_eq!((hang.kind.clone(), hang.key()), (FailureKind::Hang, "hang at 0x40 0x90".to_string()));
        assert_eq!(Identity::of_stack(&Dump::parse(""), 3), None);
    }

    #[test]
    fn a_report_names_its_type_access_and_places() {
        let report = "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1 at pc 0x2 bp 0x3 sp 0x4\n\
                      WRITE of size 1 at 0x1 thread T0\n    #0 0x5  (/b/prog+0x1a2b)\n    #1 0x6  (/b/.libs/librec.so+0x30)\n    #2 0x7  (/b/prog+0x99)\n";
        let id = Identity::of_report(report, Path::new("/b/prog"), 2).unwrap();
        assert_eq!(id.key(), "heap-buffer-overflow WRITE 1 at 0x1a2b librec.so+0x30");
        assert_eq!(Identity::of_report("no report here", Path::new("/b/prog"), 2), None);
        // The report wins over the stack of the abort that ends it.
        let dump = Dump::parse("signal 6\nframe - 6482\n");
        assert_eq!(Identity::of_run(&dump, Some(report), Path::new("/b/prog"), 2), Some(id));
        assert_eq!(Identity::of_run(&dump, None, Path::new("/b/prog"), 2).unwrap().key(), "SIGABRT at 0x6482");
    }
}
