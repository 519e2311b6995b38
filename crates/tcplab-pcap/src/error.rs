//! Fatal reader errors: the file cannot be opened, or it is not a capture at all.
//!
//! Everything else (damaged records, truncation, unknown link types, ...) is *not* an error:
//! it is counted in [`crate::Anomalies`] and reading goes on with what can be analysed.
//! Each error renders as one line that names the file (escaped by [`show_path`]) and the
//! cause in words, never an OS error number.

use std::io::ErrorKind;
use std::path::Path;

/// A fatal error while opening a capture.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("{path}: cannot read: {}", io_reason(.source))]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The path names a directory (captures are files; the CLI does not recurse).
    #[error("{path}: is a directory, not a capture file")]
    Directory { path: String },
    /// The bytes are not a pcap or pcapng capture (or too short to tell).
    #[error("{path}: not a pcap or pcapng capture ({reason})")]
    NotACapture { path: String, reason: String },
    /// A capture whose header is damaged beyond reading (a truncated or impossible section
    /// header, an impossible first record length).
    #[error("{path}: damaged capture: {reason}")]
    Damaged { path: String, reason: String },
    /// A compressed file this build cannot decompress.
    #[error("{path}: compressed with {format}: decompress it first")]
    Compressed { path: String, format: &'static str },
}

/// `path` for a message: the bytes as typed, except bytes that are not UTF-8 and control
/// characters (a newline in a name), which are shown as `\xNN` (the same escape Python's
/// `backslashreplace` uses, so both layers name a file alike).
pub fn show_path(path: &Path) -> String {
    use std::fmt::Write as _;
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() {
                let _ = write!(out, "\\x{:02x}", c as u32);
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// An I/O error in words, without the "(os error N)" suffix of its `Display`.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        ErrorKind::NotFound => "no such file".into(),
        ErrorKind::PermissionDenied => "permission denied".into(),
        ErrorKind::IsADirectory => "is a directory".into(),
        _ => {
            let s = e.to_string();
            match s.rfind(" (os error ") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_escaped_and_io_errors_have_no_errno() {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let p = Path::new(std::ffi::OsStr::from_bytes(b"caf\xe9\n.pcap"));
            assert_eq!(show_path(p), "caf\\xe9\\x0a.pcap");
        }
        assert_eq!(show_path(Path::new("a/é.pcap")), "a/é.pcap");
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(io_reason(&e), "no such file");
        let e = std::io::Error::from_raw_os_error(5);
        assert!(!io_reason(&e).contains("os error"), "{}", io_reason(&e));
    }
}
