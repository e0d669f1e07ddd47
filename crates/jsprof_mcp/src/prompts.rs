//! The two investigations agents are asked for most, as prompts that name the tools in the
//! order that answers the question with the least reading.

use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
use rmcp::ErrorData;
use serde_json::{Map, Value};

pub fn list() -> Vec<Prompt> {
    vec![
        Prompt::new(
            "find-slow",
            Some("Find why a program or page is slow from a CPU profile or Chrome trace"),
            Some(vec![PromptArgument::new("path")
                .with_description("The .cpuprofile or trace file, under the server's roots")
                .with_required(true)]),
        ),
        Prompt::new(
            "find-leak",
            Some("Find what leaks from three heap snapshots taken before, after, and again after an action"),
            Some(vec![
                PromptArgument::new("base").with_description("Snapshot before the action").with_required(true),
                PromptArgument::new("target").with_description("Snapshot after the action").with_required(true),
                PromptArgument::new("final").with_description("Snapshot after repeating or undoing it").with_required(true),
            ]),
        ),
    ]
}

fn arg<'a>(args: &'a Map<String, Value>, prompt: &str, name: &str) -> Result<&'a str, ErrorData> {
    args.get(name).and_then(Value::as_str).ok_or_else(|| {
        ErrorData::invalid_params(
            format!("prompt `{prompt}` needs the argument `{name}`"),
            None,
        )
    })
}

pub fn get(name: &str, args: Map<String, Value>) -> Result<GetPromptResult, ErrorData> {
    let text = match name {
        "find-slow" => {
            let path = arg(&args, name, "path")?;
            format!(
                "Find why this is slow, using the jsprof tools on `{path}`.\n\
                 1. `open` {{\"path\": \"{path}\"}}: note the handle, the duration, the threads and how much is idle, program and GC.\n\
                 2. `top` with the handle (by self, then by total): the functions that take the time. Ignore (idle); large (program) or (garbage collector) are findings of their own.\n\
                 3. For the top few functions, `tree` with `bottom_up: true` and `node` set to the function's node to see which callers pay for it; or `tree` top-down from the roots to follow the hottest path (`node` = a child id from the previous answer).\n\
                 4. If one stretch of time matters (a slow interaction), `events` with `mode: \"unique-types\"` and a `range`, then `flame_chart` with that `window` to see the calls in it.\n\
                 5. `source` with the function's name for its code (source-mapped when maps are present).\n\
                 Report: the functions responsible with their self and total ms and percentage, the call path that leads to them, and what in their code is expensive. Quote numbers from the answers; do not estimate."
            )
        }
        "find-leak" => {
            let (base, target, last) = (
                arg(&args, name, "base")?,
                arg(&args, name, "target")?,
                arg(&args, name, "final")?,
            );
            format!(
                "Find what leaks, using the jsprof tools on three heap snapshots.\n\
                 1. `open` each: `{base}`, `{target}`, `{last}` (in this order); note the handles and total sizes.\n\
                 2. `heap_leaks` with the three handles: groups of objects created between the first two snapshots that the last still holds, largest retained first.\n\
                 3. For the top group, `heap_retainers` on the last snapshot's handle with the group's `sample_id`: the path from the GC roots that keeps it alive. The edge nearest the root that your code owns (a listener, a cache, a closure's context) is the leak.\n\
                 4. `heap_diff` (base = first handle, target = last) to confirm which classes grew, and `heap_detached` for detached DOM trees in a browser.\n\
                 5. `open` the CPU profile or trace of the same run, if any, and `source` the function that allocates or registers the retainer.\n\
                 Report: the leaking class, its count and retained bytes, the retaining path, and the code that should release it."
            )
        }
        _ => {
            return Err(ErrorData::invalid_params(
                format!(
                    "no prompt `{}`: expected find-slow or find-leak",
                    name.escape_debug()
                ),
                None,
            ))
        }
    };
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(
        Role::User,
        text,
    )]))
}
