//! Records libc returns in buffers of its own: the utmp API's `struct
//! utmpx` (read whole from the utmp file a program names with
//! `utmpxname`), `struct passwd` and `struct group` (parsed from
//! `/etc/passwd`, `/etc/group`, or a file `fgetpwent` reads), with their
//! strings. The program holds pointers into them, and libc is not
//! instrumented: without this probe they are no object, and a carved call
//! on one has nothing of it to replay or map.

use crate::model::abi::Id;
use crate::objects::Objects;
use crate::state;
use core::ffi::c_char;
use core::mem::size_of;

/// After a call of the `kind`-th libc function of the probe's list
/// (`model/src/abi.rs`) returned `p`. The record and its parts become
/// heap objects in place of those they overlap (the last call's, or the
/// whole buffer libc parses into: see `Objects::insert_heap`).
///
/// # Safety
/// `p` is what that function returned.
#[no_mangle]
pub unsafe extern "C" fn __carve_on_record(p: *mut u8, kind: i32) {
    if !state::registers() || p.is_null() {
        return;
    }
    let Some(name) = Id::OnRecord.entry().libc.get(kind as usize) else { return };
    state::with(|st| {
        let o = &mut st.objects;
        if name.starts_with("getut") {
            o.insert_heap(p as usize, size_of::<libc::utmpx>(), false);
        } else if name.contains("pw") {
            let pw = &*(p as *const libc::passwd);
            o.insert_heap(p as usize, size_of::<libc::passwd>(), false);
            for s in [pw.pw_name, pw.pw_passwd, pw.pw_gecos, pw.pw_dir, pw.pw_shell] {
                string(o, s);
            }
        } else {
            let gr = &*(p as *const libc::group);
            o.insert_heap(p as usize, size_of::<libc::group>(), false);
            string(o, gr.gr_name);
            string(o, gr.gr_passwd);
            if !gr.gr_mem.is_null() {
                let mut n = 0;
                while !(*gr.gr_mem.add(n)).is_null() {
                    string(o, *gr.gr_mem.add(n));
                    n += 1;
                }
                o.insert_heap(gr.gr_mem as usize, (n + 1) * size_of::<*mut c_char>(), false);
            }
        }
    });
}

/// String `s` of a record (NUL included) as an object.
unsafe fn string(o: &mut Objects, s: *mut c_char) {
    if !s.is_null() {
        o.insert_heap(s as usize, libc::strlen(s) + 1, false);
    }
}
