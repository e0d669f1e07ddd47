//! The command line and the exit of the bench generators (heapgen, tracegen, lakegen), each of
//! which includes this file (`#[path]`): they are separate crates outside the workspace, with no
//! dependency to share it through.

use std::iter::Skip;
use std::process::ExitCode;
use std::str::FromStr;

/// A generator's `main`: runs `run`, and on an error prints it on stderr after the generator's
/// `name` and exits with status 2 (bad input or usage).
pub fn main(name: &str, run: fn() -> Result<(), String>) -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::from(2)
        }
    }
}

/// The arguments after the program's name, read one at a time; a flag's value is the argument
/// after it.
pub struct Args(Skip<std::env::Args>);

impl Args {
    pub fn new() -> Args {
        Args(std::env::args().skip(1))
    }

    /// The value after `flag`, a number ("FLAG needs a number" when it is absent or not one).
    pub fn number<T: FromStr>(&mut self, flag: &str) -> Result<T, String> {
        self.0
            .next()
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{flag} needs a number"))
    }

    /// The value after `flag`, as it is ("FLAG needs a WHAT" when it is absent).
    #[allow(dead_code)] // tracegen takes none
    pub fn text(&mut self, flag: &str, what: &str) -> Result<String, String> {
        self.0
            .next()
            .ok_or_else(|| format!("{flag} needs a {what}"))
    }
}

impl Iterator for Args {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        self.0.next()
    }
}
