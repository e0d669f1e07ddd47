//! `jsprof top FILE`.
use std::process::ExitCode;
#[derive(clap::Args)]
pub struct Args {}
pub fn run(_args: Args) -> anyhow::Result<ExitCode> { Ok(ExitCode::SUCCESS) }
