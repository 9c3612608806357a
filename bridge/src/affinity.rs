//! `bridge run` (unless `--no-bind`): a campaign and the targets it forks
//! on one core of their own, as AFL++ binds to a free core: a run is a
//! hand-over between the bridge, the fork server and the child, and across
//! cores every hand-over waits for a wake-up (on png-fuzz, 14k execs/s
//! unbound against 40k on one core).

use std::collections::BTreeSet;

/// What binding did, for the user to see.
pub enum Bound {
    /// To this core.
    Core(usize),
    /// Left as it was: already on one core (`taskset`).
    Kept,
    /// Every allowed core is taken by a process bound to it alone.
    NoneFree,
}

/// Binds this process (and what it forks from now on) to the first core
/// it may run on that no other process is bound to alone. Campaigns
/// starting together take turns (a lock file in `/dev/shm`, or the
/// temporary directory), so that two of them do not pick the same core.
pub fn bind_to_free_core() -> std::io::Result<Bound> {
    let allowed = allowed_cores()?;
    if allowed.len() <= 1 {
        return Ok(Bound::Kept);
    }
    // Held until this process is bound, when the others can see it; a
    // lock that cannot be had only loses the turn-taking.
    let _turn = take_turn();
    let taken = cores_taken();
    let Some(&core) = allowed.iter().find(|c| !taken.contains(c)) else { return Ok(Bound::NoneFree) };
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET stays in bounds
    // for core numbers below CPU_SETSIZE, which `allowed_cores` ensures.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(Bound::Core(core))
}

/// The lock campaigns bind under, one at a time; released when dropped.
fn take_turn() -> Option<std::fs::File> {
    let dir = std::path::Path::new("/dev/shm");
    let dir = if dir.is_dir() { dir.to_path_buf() } else { std::env::temp_dir() };
    let file = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("carve-bridge-bind.lock")).ok()?;
    file.lock().ok()?;
    Some(file)
}

/// The cores this process may run on.
fn allowed_cores() -> std::io::Result<Vec<usize>> {
    // SAFETY: sched_getaffinity fills the set it is given.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect())
    }
}

/// Cores that some other process is bound to alone (`Cpus_allowed_list`
/// of one core in its `/proc` status): another campaign, an AFL++
/// instance, a `taskset -c N` job.
fn cores_taken() -> BTreeSet<usize> {
    let me = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc") else { return BTreeSet::new() };
    dir.filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_str().is_some_and(|n| n != me && n.bytes().all(|b| b.is_ascii_digit())))
        .filter_map(|e| std::fs::read_to_string(e.path().join("status")).ok())
        .filter_map(|s| single_core(&s))
        .collect()
}

/// The one core a `/proc/PID/status` text allows, if it allows one and
/// is a user process (kernel threads, bound to their core, have no
/// memory of their own: no `VmSize`).
fn single_core(status: &str) -> Option<usize> {
    status.lines().any(|l| l.starts_with("VmSize:")).then_some(())?;
    let list = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?.trim();
    list.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_names_its_single_core() {
        assert_eq!(single_core("Name:\tx\nVmSize:\t1 kB\nCpus_allowed_list:\t3\n"), Some(3));
        assert_eq!(single_core("VmSize:\t1 kB\nCpus_allowed_list:\t0-1\n"), None);
        assert_eq!(single_core("VmSize:\t1 kB\nCpus_allowed_list:\t0,2\n"), None);
        assert_eq!(single_core("Name:\tx\nVmSize:\t1 kB\n"), None);
        // A kernel thread.
        assert_eq!(single_core("Name:\tksoftirqd/3\nCpus_allowed_list:\t3\n"), None);
    }
}
