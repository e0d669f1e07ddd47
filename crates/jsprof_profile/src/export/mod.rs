//! Exporters: the model written in the formats other tools open. Each takes the profile, the
//! thread to write (several where the format holds several) and an `impl Write`.
//!
//! | format | module | opens in |
//! |---|---|---|
//! | `.cpuprofile` (`.heapprofile` for byte-weighted threads) | [`cpuprofile_writer`] | Chrome DevTools, VS Code |
//! | folded stacks | [`folded`] | inferno, flamegraph.pl |
//! | speedscope JSON | [`speedscope`] | speedscope.app |
//! | pprof `profile.proto`, gzipped | [`pprof`] | `go tool pprof`, Grafana Pyroscope |
//! | OTLP profiles signal (`ExportProfilesServiceRequest`, Alpha) | [`otlp`] | OpenTelemetry collectors and back ends |
//! | d3-flame-graph JSON | [`d3`] | d3-flame-graph |

pub mod cpuprofile_writer;
pub mod d3;
mod dictionary;
pub mod folded;
pub mod otlp;
pub mod pprof;
pub mod speedscope;

use crate::display::{display_name, fmt_location};
use crate::model::{FrameId, Profile, StackId, Thread};

/// Per-stack sums of one thread: self weight and sample count, plus those of the bare root.
pub(crate) struct StackSums {
    pub weight: Vec<i64>,
    pub count: Vec<u64>,
    pub root_weight: i64,
    pub root_count: u64,
}

impl StackSums {
    pub fn new(profile: &Profile, thread: &Thread) -> StackSums {
        let n = profile.stacks.len();
        let mut sums = StackSums {
            weight: vec![0; n],
            count: vec![0; n],
            root_weight: 0,
            root_count: 0,
        };
        for (stack, w) in thread.samples.stack.iter().zip(thread.weights()) {
            match stack {
                Some(s) => {
                    sums.weight[s.index()] += w;
                    sums.count[s.index()] += 1;
                }
                None => {
                    sums.root_weight += w;
                    sums.root_count += 1;
                }
            }
        }
        sums
    }

    /// The stacks that have samples, as (stack, count, self weight): the bare root (`None`) first,
    /// then the stacks in table order.
    pub fn sampled(&self) -> impl Iterator<Item = (Option<StackId>, u64, i64)> + '_ {
        let root = (self.root_count > 0).then_some((None, self.root_count, self.root_weight));
        let stacks = (0..self.count.len())
            .filter(|&i| self.count[i] > 0)
            .map(|i| (Some(StackId::from_index(i)), self.count[i], self.weight[i]));
        root.into_iter().chain(stacks)
    }

    /// Subtree totals (weight, count), parents preceding children.
    pub fn totals(&self, profile: &Profile) -> (Vec<i64>, Vec<u64>) {
        let mut weight = self.weight.clone();
        let mut count = self.count.clone();
        for s in profile.stacks.ids().rev() {
            if let Some(p) = profile.stacks.parent(s) {
                weight[p.index()] += weight[s.index()];
                count[p.index()] += count[s.index()];
            }
        }
        (weight, count)
    }
}

/// Children of every stack in table order, and the depth-0 stacks.
pub(crate) fn stack_children(profile: &Profile) -> (Vec<Vec<u32>>, Vec<u32>) {
    let mut children = vec![Vec::new(); profile.stacks.len()];
    let mut roots = Vec::new();
    for s in profile.stacks.ids() {
        match profile.stacks.parent(s) {
            Some(p) => children[p.index()].push(s.index() as u32),
            None => roots.push(s.index() as u32),
        }
    }
    (children, roots)
}

/// `name url:line:column` (`(anonymous)` for an empty name; the location only when known), the
/// way flame graph tools show a JavaScript frame.
pub fn frame_label(profile: &Profile, frame: FrameId) -> String {
    let f = profile.frames.get(frame);
    let mut label = display_name(profile.strings.get(f.name)).to_string();
    let url = profile.strings.get(f.url);
    if !url.is_empty() {
        label.push(' ');
        label.push_str(&fmt_location(url, f.line, f.column));
    }
    label
}
