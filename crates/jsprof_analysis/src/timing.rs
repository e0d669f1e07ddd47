//! DevTools' timing rules for sampled CPU profiles (`CPUProfileDataModel`), applied to the model
//! in place so that every view downstream just sums sample weights.
//!
//! 1. Samples are sorted by time (stable), which repairs negative and out-of-order deltas.
//! 2. The profile starts at its first sample; the last sample lasts one average interval
//!    (`(last − first) / (n − 1)`), unless the input fixed an end for it.
//! 3. The meta nodes are the `(program)`, `(idle)` and `(garbage collector)` children of the root,
//!    looked up as DevTools does (it walks the root's children in reverse file order).
//! 4. An isolated `(program)` sample between two non-meta samples with the same depth-0 ancestor
//!    takes the previous sample's stack (judged on the original neighbours).
//! 5. A `(garbage collector)` sample is stacked on top of the stack of the last non-GC sample, so
//!    GC time is self time of a GC frame inside whatever was running.
//!
//! Afterwards each sample weighs `time[i+1] − time[i]` nanoseconds ([`jsprof_profile::Thread::weights`]).

use std::collections::HashMap;

use jsprof_profile::{Profile, StackId, Thread, WeightUnit, GC_NAME, IDLE_NAME, PROGRAM_NAME};

/// The meta stacks of a profile, as DevTools' `extractMetaNodes` finds them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MetaStacks {
    pub gc: Option<StackId>,
    pub program: Option<StackId>,
    pub idle: Option<StackId>,
}

impl MetaStacks {
    pub fn find(profile: &Profile) -> MetaStacks {
        let mut meta = MetaStacks::default();
        // DevTools rebuilds the root's children in reverse order and takes the first match.
        for s in profile.stacks.ids().rev() {
            if profile.stacks.parent(s).is_some() {
                continue;
            }
            match profile.frame_name(profile.stacks.frame(s)) {
                GC_NAME if meta.gc.is_none() => meta.gc = Some(s),
                PROGRAM_NAME if meta.program.is_none() => meta.program = Some(s),
                IDLE_NAME if meta.idle.is_none() => meta.idle = Some(s),
                _ => {}
            }
        }
        meta
    }

    fn is_system(&self, s: Option<StackId>) -> bool {
        s.is_some() && (s == self.gc || s == self.program || s == self.idle)
    }
}

/// Applies DevTools' rules to every sample-counted thread of `profile` (threads that already
/// carry explicit weights, such as `.heapprofile` bytes, are left alone).
pub fn apply_devtools_timing(profile: &mut Profile) {
    let meta = MetaStacks::find(profile);
    let mut threads = std::mem::take(&mut profile.threads);
    for thread in &mut threads {
        if thread.weight_unit() == WeightUnit::Samples
            && thread.samples().explicit_weights().is_none()
        {
            time_thread(profile, thread, &meta);
        }
    }
    profile.threads = threads;
}

fn time_thread(profile: &mut Profile, thread: &mut Thread, meta: &MetaStacks) {
    thread.samples_mut().sort_by_time(); // stable, as DevTools' sort
    let times = thread.samples().time();
    let n = times.len();
    if thread.samples_end().is_none() && n > 0 {
        let first = times[0];
        let last = times[n - 1];
        let end = if n >= 2 {
            let avg = (last - first) as f64 / (n - 1) as f64;
            last + avg.round() as i64
        } else {
            // One sample: DevTools falls back to the header's end time.
            thread.declared_end().map_or(last, |e| e.max(last))
        };
        thread.set_samples_end(Some(end));
    }
    fix_missing_samples(profile, thread, meta);
    stack_gc_samples(profile, thread, meta);
    thread.set_weight_unit(WeightUnit::Nanoseconds);
}

fn fix_missing_samples(profile: &Profile, thread: &mut Thread, meta: &MetaStacks) {
    let Some(program) = meta.program else { return };
    let stacks = thread.samples_mut().stack_mut();
    let n = stacks.len();
    if n < 3 {
        return;
    }
    let bottom = |s: Option<StackId>| s.map(|s| profile.stacks.bottom(s));
    let mut prev = stacks[0];
    let mut current = stacks[1];
    for i in 1..n - 1 {
        let next = stacks[i + 1];
        if current == Some(program)
            && !meta.is_system(prev)
            && !meta.is_system(next)
            && bottom(prev) == bottom(next)
        {
            stacks[i] = prev;
        }
        // The original values move on, not the patched one.
        prev = current;
        current = next;
    }
}

fn stack_gc_samples(profile: &mut Profile, thread: &mut Thread, meta: &MetaStacks) {
    let Some(gc) = meta.gc else { return };
    let gc_frame = profile.stacks.frame(gc);
    let mut next_node_id = profile.stacks.max_node_id() + 1;
    let mut gc_on: HashMap<StackId, StackId> = HashMap::new();
    let mut last_non_gc: Option<StackId> = None;
    for slot in thread.samples_mut().stack_mut().iter_mut() {
        if *slot == Some(gc) {
            if let Some(parent) = last_non_gc {
                let stacked = *gc_on.entry(parent).or_insert_with(|| {
                    let id = profile.stacks.push(Some(parent), gc_frame, next_node_id);
                    next_node_id += 1;
                    id
                });
                *slot = Some(stacked);
            }
        } else {
            last_non_gc = *slot;
        }
    }
}
