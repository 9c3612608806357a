//! The System V shared-memory coverage map (AFL-compatible layout).
//!
//! The segment is marked for removal as soon as it is attached, so it never
//! outlives this process, however it dies; Linux still lets the target
//! attach it by id while we hold it.

use model::MAP_SIZE;

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
            let id = libc::shmget(libc::IPC_PRIVATE, MAP_SIZE, libc::IPC_CREAT | libc::IPC_EXCL | 0o600);
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
        // SAFETY: the mapping is MAP_SIZE bytes and lives as long as self.
        unsafe { std::slice::from_raw_parts(self.ptr, MAP_SIZE) }
    }

    pub fn clear(&mut self) {
        // SAFETY: as above, exclusive through &mut self.
        unsafe { std::ptr::write_bytes(self.ptr, 0, MAP_SIZE) }
    }
}

impl Drop for SharedMap {
    fn drop(&mut self) {
        // SAFETY: detaching our own mapping.
        unsafe { libc::shmdt(self.ptr.cast()) };
    }
}
