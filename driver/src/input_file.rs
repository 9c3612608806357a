//! The carving run's input file, put back for replays: a unit whose
//! function opens the `@@` file by name (`main`, a function given the path)
//! finds what the carving run read.

/// The carving run's input file, put back where it was for the replay (and
/// removed after it) when nothing is there now.
pub struct InputFile {
    dir: Option<std::path::PathBuf>,
    file: Option<std::path::PathBuf>,
}

impl InputFile {
    pub fn recreate(meta: &model::unit::Meta) -> InputFile {
        use std::os::unix::fs::PermissionsExt;
        let mut made = InputFile { dir: None, file: None };
        if meta.input_path.is_empty() {
            return made;
        }
        let path = std::path::PathBuf::from(&meta.input_path);
        if path.exists() {
            return made;
        }
        if let Some(dir) = path.parent().filter(|d| !d.exists()) {
            if std::fs::create_dir_all(dir).is_ok() {
                let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
                made.dir = Some(dir.to_path_buf());
            }
        }
        if std::fs::write(&path, &meta.input_content).is_ok() {
            let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644));
            made.file = Some(path);
        }
        made
    }
}

impl InputFile {
    /// Puts `bytes` in the file when this replay made it (a file that was
    /// there already is left as it is): false when it could not.
    pub fn rewrite(&self, bytes: &[u8]) -> bool {
        self.file.as_ref().is_some_and(|f| std::fs::write(f, bytes).is_ok())
    }
}

impl Drop for InputFile {
    fn drop(&mut self) {
        if let Some(f) = &self.file {
            let _ = std::fs::remove_file(f);
        }
        if let Some(d) = &self.dir {
            let _ = std::fs::remove_dir(d);
        }
    }
}
