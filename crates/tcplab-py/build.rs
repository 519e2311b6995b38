//! Bakes the git revision of the source tree into the module (`_core.__git_revision__`,
//! `_core.__git_dirty__`), for the provenance every result directory records.
//!
//! `git rev-parse HEAD` when the crate is built inside a git checkout with `git` on the PATH,
//! else "unknown" (an sdist, a tarball). Dirty = `git status --porcelain --untracked-files=no`
//! printed anything: tracked files differ from HEAD *at build time* (a later edit to Python
//! files alone does not rebuild the module, so the flag describes the Rust build).

use std::process::Command;

/// Output of a git command run in this crate's directory, if it succeeded.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let revision = git(&["rev-parse", "HEAD"]).filter(|r| !r.is_empty());
    let dirty = match &revision {
        Some(_) => git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty()),
        None => None,
    };
    println!("cargo:rustc-env=TCPLAB_GIT_REVISION={}", revision.as_deref().unwrap_or("unknown"));
    println!(
        "cargo:rustc-env=TCPLAB_GIT_DIRTY={}",
        match dirty {
            Some(true) => "true",
            Some(false) => "false",
            None => "unknown",
        }
    );
    // Rebuild when HEAD moves or the index changes (commits, checkouts, `git add`).
    for path in ["HEAD", "index"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&["rev-parse", "--git-path", &r]) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
