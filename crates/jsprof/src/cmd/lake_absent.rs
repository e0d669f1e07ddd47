//! `jsprof lake …` in a build without the `lake` feature: the profile lake links DataFusion,
//! Arrow and Parquet, most of a full build's time, so `cargo install` leaves it out unless asked
//! (`--features lake`; the npm package's binaries have it). Every lake command, and `check
//! --lake`, says so and how to get it, instead of clap's "unrecognized subcommand".

use anyhow::{bail, Result};

/// Whatever follows `jsprof lake`, taken as it is: the answer is the same.
#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    rest: Vec<String>,
}

pub fn run(_args: Args) -> Result<std::process::ExitCode> {
    bail!("{}", jsprof_server::WITHOUT_LAKE)
}
