//! `lanes fmt`: parse a `.lir` file and print it in canonical form.
//!
//! The canonical printer does not know comments. The leading comment block of a file (its
//! header, where files describe themselves) is kept; any other comment would be lost, so
//! `--in-place` refuses to rewrite such a file rather than silently dropping text.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::input::read_module;

/// Print a .lir file in canonical form
#[derive(Args, Debug)]
pub struct FmtArgs {
    /// The .lir file (`-` for standard input)
    pub file: PathBuf,
    /// Rewrite the file in place instead of printing
    #[arg(short, long, conflicts_with = "check")]
    pub in_place: bool,
    /// Exit with status 1 if the file is not in canonical form
    #[arg(long)]
    pub check: bool,
}

/// The file's leading comment and blank lines, and the number of comment lines after them.
fn split_header(text: &str) -> (String, usize) {
    let mut header = String::new();
    let mut lines = text.lines();
    let mut rest_comments = 0;
    for line in lines.by_ref() {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with(';') {
            header.push_str(line);
            header.push('\n');
        } else {
            rest_comments += usize::from(line.contains(';'));
            break;
        }
    }
    // A ';' can only start a comment: the text format has no ';' inside names or strings
    // except quoted names, which are rare enough to err on the safe side for.
    rest_comments += lines.filter(|l| l.contains(';')).count();
    (header, rest_comments)
}

pub fn run(args: &FmtArgs) -> Result<()> {
    let module = read_module(&args.file)?;
    let original = if args.file.as_os_str() == "-" {
        String::new()
    } else {
        std::fs::read_to_string(&args.file)
            .with_context(|| format!("cannot read {}", args.file.display()))?
    };
    let (header, lost_comments) = split_header(&original);
    let text = format!("{header}{}", lanes_ir::write::module_to_string(&module));
    if args.check {
        if original != text {
            bail!(
                "{}: not in canonical form (run `lanes fmt -i` to fix)",
                args.file.display()
            );
        }
        return Ok(());
    }
    if args.in_place {
        if lost_comments > 0 {
            bail!(
                "{}: {lost_comments} comment line(s) after the header would be lost; \
                 not rewriting (print to standard output instead)",
                args.file.display()
            );
        }
        std::fs::write(&args.file, text)
            .with_context(|| format!("cannot write {}", args.file.display()))?;
    } else {
        print!("{text}");
    }
    Ok(())
}
