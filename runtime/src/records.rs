//! Records libc returns in buffers of its own: the utmp API's `struct
//! utmpx` (read whole from the utmp file a program names with
//! `utmpxname`), `struct passwd` and `struct group` (parsed from
//! `/etc/passwd`, `/etc/group`, or a file `fgetpwent` reads), `struct
//! hostent` and `struct servent` (from `/etc/hosts`, `/etc/services`),
//! with their strings, lists and addresses. The program holds pointers into them, and libc is not
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
        } else if name.contains("host") {
            let h = &*(p as *const libc::hostent);
            o.insert_heap(p as usize, size_of::<libc::hostent>(), false);
            string(o, h.h_name);
            list(o, h.h_aliases, |o, s| string(o, s));
            let len = usize::try_from(h.h_length).unwrap_or(0);
            list(o, h.h_addr_list, |o, a| o.insert_heap(a as usize, len, false));
        } else if name.contains("serv") {
            let sv = &*(p as *const libc::servent);
            o.insert_heap(p as usize, size_of::<libc::servent>(), false);
            string(o, sv.s_name);
            string(o, sv.s_proto);
            list(o, sv.s_aliases, |o, s| string(o, s));
        } else {
            let gr = &*(p as *const libc::group);
            o.insert_heap(p as usize, size_of::<libc::group>(), false);
            string(o, gr.gr_name);
            string(o, gr.gr_passwd);
            list(o, gr.gr_mem, |o, s| string(o, s));
        }
    });
}

/// A NULL-terminated list of a record (members, aliases, addresses) as an
/// object, and each of its items by `item`.
unsafe fn list(o: &mut Objects, l: *mut *mut c_char, item: impl Fn(&mut Objects, *mut c_char)) {
    if l.is_null() {
        return;
    }
    let mut n = 0;
    while !(*l.add(n)).is_null() {
        item(o, *l.add(n));
        n += 1;
    }
    o.insert_heap(l as usize, (n + 1) * size_of::<*mut c_char>(), false);
}

/// String `s` of a record (NUL included) as an object.
unsafe fn string(o: &mut Objects, s: *mut c_char) {
    if !s.is_null() {
        o.insert_heap(s as usize, libc::strlen(s) + 1, false);
    }
}
