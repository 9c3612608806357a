//! The System V shared-memory coverage map (AFL-compatible layout).
//!
//! The segment is marked for removal as soon as it is attached, so it never
//! outlives this process, however it dies; Linux still lets the target
//! attach it by id while we hold it.

use model::{MAP_SIZE, MAP_TAIL};

pub struct SharedMap {
    id: i32,
    ptr: *mut u8,
}

// SAFETY: the mapping is owned by this value; access goes through &/&mut.
unsafe impl Send for SharedMap {}

impl SharedMap {
    pub fn new() -> std::io::Result<SharedMap> {
        // SAFETY: plain System V calls; every result is checked.
        unsafe {
            let id = libc::shmget(libc::IPC_PRIVATE, MAP_SIZE + MAP_TAIL, libc::IPC_CREAT | libc::IPC_EXCL | 0o600);
            if id < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let ptr = libc::shmat(id, std::ptr::null(), 0);
            let err = std::io::Error::last_os_error();
            libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut());
            if ptr as isize == -1 {
                return Err(err);
            }
            Ok(SharedMap { id, ptr: ptr.cast() })
        }
    }

    /// The id the target attaches (`CARVE_SHM_ID`).
    pub fn id(&self) -> i32 {
        self.id
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: the mapping is MAP_SIZE (+ MAP_TAIL) bytes and lives as long as self.
        unsafe { std::slice::from_raw_parts(self.ptr, MAP_SIZE) }
    }

    /// Zeroes the first `len` bytes (at most the map's).
    pub fn clear(&mut self, len: usize) {
        // SAFETY: as above, exclusive through &mut self.
        unsafe { std::ptr::write_bytes(self.ptr, 0, len.min(MAP_SIZE)) }
    }

    /// The end of the map's used part a module registered late announced
    /// (`MAP_TAIL`), if one did since the last call; the announcement is
    /// cleared.
    pub fn take_late_end(&mut self) -> Option<usize> {
        // SAFETY: the segment is MAP_SIZE + MAP_TAIL bytes; the target
        // wrote the word, if at all, before it stopped or exited.
        unsafe {
            let at = self.ptr.add(MAP_SIZE).cast::<u32>();
            let end = at.read_volatile();
            if end == 0 {
                return None;
            }
            at.write_volatile(0);
            Some(end as usize)
        }
    }
}

impl Drop for SharedMap {
    fn drop(&mut self) {
        // SAFETY: detaching our own mapping.
        unsafe { libc::shmdt(self.ptr.cast()) };
    }
}
