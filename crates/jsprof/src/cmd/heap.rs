//! `jsprof heap …`: heap snapshot commands.

use std::process::ExitCode;

use clap::Subcommand;

#[derive(Subcommand)]
pub enum HeapCommand {}

pub fn run(command: HeapCommand) -> anyhow::Result<ExitCode> {
    match command {}
}
