//! The generative model. Every page of a site runs the same browser code (the recorded JS
//! Self-Profiling traces) plus its own mix of application code (stacks of the recorded Node
//! profiles, a random subset per page, re-weighted per page). Every profile of a page draws its
//! own sample count, idle share, per-stack weights and timing jitter around that page's mix, so
//! profiles of one page differ the way field profiles of one page do. Version and page are drawn
//! independently per profile, so without the planted regression every version has the same
//! distribution of per-function shares: any difference a diff reports between versions, other
//! than the planted function and `(idle)`, is a false positive.
//!
//! The regression: from version `regress_version` on, one function runs longer: in each profile,
//! `points` % of its samples that were idle become samples of the page's most common stack ending
//! in that function, raising the function's self share by `points` percentage points and lowering
//! `(idle)`'s by as much; no other function's share changes.

use std::io::{self, Write};

use crate::rng::Rng;
use crate::source::{Func, Pool};

pub struct Options {
    pub seed: u64,
    pub versions: usize,
    pub pages: usize,
    /// Median busy + idle samples per profile (log-normal around it).
    pub median_samples: f64,
    /// Sampling interval, ms (Chrome's `sampleInterval: 10`).
    pub interval_ms: f64,
    /// Relative standard deviation of each sampling interval.
    pub jitter: f64,
    pub regress_function: String,
    pub regress_version: usize,
    pub points: f64,
    pub cpuprofile: bool,
}

pub fn version_name(v: usize) -> String {
    format!("1.{v}.0")
}

const PAGE_WORDS: [&str; 25] = [
    "home", "search", "product", "cart", "checkout", "account", "login", "signup", "orders",
    "wishlist", "help", "blog", "article", "category", "deals", "compare", "reviews", "settings",
    "inbox", "profile", "map", "stores", "careers", "about", "pricing",
];

pub fn page_name(p: usize) -> String {
    let word = PAGE_WORDS[p % PAGE_WORDS.len()];
    match p / PAGE_WORDS.len() {
        0 => word.to_string(),
        n => format!("{word}-{}", n + 1),
    }
}

/// One page's stack mix: (index into `Model::stacks`, weight).
struct Page {
    stacks: Vec<(usize, f64)>,
    /// Per page: the most common stack whose leaf is the regressed function.
    regress_stack: Option<usize>,
}

pub struct Model {
    /// Every recorded stack, root first, over `pool.funcs`.
    stacks: Vec<Vec<u32>>,
    pages: Vec<Page>,
    pub regress: u32,
}

impl Model {
    pub fn new(pool: &Pool, o: &Options) -> Result<Model, String> {
        let regress = pool
            .funcs
            .iter()
            .position(|f| f.name == o.regress_function)
            .ok_or_else(|| format!("no recorded function is named {:?}", o.regress_function))?
            as u32;
        let mut stacks = Vec::new();
        // Per source: its stacks' indices and recorded shares.
        let mut by_source = Vec::new();
        for s in &pool.sources {
            let total: u64 = s.stacks.iter().map(|(_, c)| c).sum();
            let first = stacks.len();
            stacks.extend(s.stacks.iter().map(|(p, _)| p.clone()));
            by_source.push((
                s.browser,
                (first..stacks.len())
                    .zip(s.stacks.iter().map(|(_, c)| *c as f64 / total as f64))
                    .collect::<Vec<_>>(),
            ));
        }
        let apps: Vec<usize> = (0..by_source.len()).filter(|&i| !by_source[i].0).collect();
        let browser: Vec<usize> = (0..by_source.len()).filter(|&i| by_source[i].0).collect();
        let mut pages = Vec::new();
        for p in 0..o.pages {
            let mut rng = Rng::new(o.seed, 1 << 40 | p as u64);
            let mut mix = Vec::new();
            // A third of a page's busy time in the browser traces' code, the rest in one
            // application profile (pages rotate over them).
            let app_share = if apps.is_empty() { 0.0 } else { 0.65 };
            for &b in &browser {
                for &(s, w) in &by_source[b].1 {
                    let w = w * (1.0 - app_share) / browser.len() as f64;
                    mix.push((s, w * rng.lognormal(0.5)));
                }
            }
            if let Some(&a) = apps.get(p % apps.len().max(1)) {
                for &(s, w) in &by_source[a].1 {
                    // Each page exercises ~80 % of the application's stacks.
                    if rng.unit() < 0.8 {
                        mix.push((s, w * app_share * rng.lognormal(0.8)));
                    }
                }
            }
            let regress_stack = mix
                .iter()
                .filter(|(s, _)| stacks[*s].last() == Some(&regress))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(s, _)| *s);
            pages.push(Page {
                stacks: mix,
                regress_stack,
            });
        }
        Ok(Model {
            stacks,
            pages,
            regress,
        })
    }

    /// Draws profile `index`: its labels and its samples (a stack index, or `None` when idle) at
    /// their timestamps (ms).
    pub fn profile(&self, o: &Options, index: u64) -> Profile {
        let mut rng = Rng::new(o.seed, index);
        let version = rng.below(o.versions);
        let page = rng.below(o.pages);
        let pg = &self.pages[page];
        let n = (o.median_samples * rng.lognormal(0.6))
            .round()
            .clamp(10.0, 20_000.0) as usize;
        let idle_share = 0.1 + 0.5 * rng.unit();
        // This profile's own weights around the page's mix, as a cumulative table.
        let mut cumulative = Vec::with_capacity(pg.stacks.len());
        let mut sum = 0.0;
        for &(s, w) in &pg.stacks {
            sum += w * rng.lognormal(0.3);
            cumulative.push((sum, s));
        }
        // Samples come in runs (a function stays on the stack for a while), as recorded ones do.
        let mut stack_of = Vec::with_capacity(n);
        while stack_of.len() < n {
            let pick = if rng.unit() < idle_share {
                None
            } else {
                let x = rng.unit() * sum;
                let i = cumulative.partition_point(|(c, _)| *c <= x);
                Some(cumulative[i.min(cumulative.len() - 1)].1)
            };
            let run = 1 + (-(1.0 - rng.unit()).ln() * 2.0) as usize;
            for _ in 0..run.min(n - stack_of.len()) {
                stack_of.push(pick);
            }
        }
        let regressed = version >= o.regress_version;
        if let (true, Some(rs)) = (regressed, pg.regress_stack) {
            // A field profile covers a fixed window of the page's life, so a function that runs
            // longer takes the time from the main thread's idle time: k = d·n idle samples become
            // samples of the regressed stack. Every other function keeps its samples, so its
            // share is distributed exactly as in the versions before.
            let mut idle: Vec<usize> = (0..stack_of.len())
                .filter(|&i| stack_of[i].is_none())
                .collect();
            let k = ((o.points / 100.0 * n as f64).round() as usize).min(idle.len());
            for j in 0..k {
                let pick = j + rng.below(idle.len() - j);
                idle.swap(j, pick);
                stack_of[idle[j]] = Some(rs);
            }
        }
        // performance.now() at the first sample, then intervals with jitter and the occasional
        // late sample (a busy main thread delays the sampler), coarsened to 0.1 ms as Chrome
        // coarsens it for pages that are not cross-origin isolated.
        let mut t = 50.0 + 450.0 * rng.unit();
        let mut samples = Vec::with_capacity(stack_of.len());
        for s in stack_of {
            samples.push(((t * 10.0).round() / 10.0, s));
            let mut dt = o.interval_ms * (1.0 + o.jitter * rng.normal()).max(0.1);
            if rng.unit() < 0.01 {
                dt += o.interval_ms * (1.0 + 3.0 * rng.unit());
            }
            t += dt;
        }
        Profile {
            version,
            page,
            regressed,
            samples,
        }
    }

    /// Writes `p` as a JS Self-Profiling trace (what `new Profiler(…).stop()` resolves to).
    pub fn write_selfprofile(
        &self,
        pool: &Pool,
        p: &Profile,
        w: &mut impl Write,
    ) -> io::Result<()> {
        let tree = Tree::of(self, p);
        let mut resources: Vec<&str> = Vec::new();
        w.write_all(b"{\"frames\":[")?;
        for (i, &f) in tree.funcs.iter().enumerate() {
            let f = &pool.funcs[f as usize];
            if i > 0 {
                w.write_all(b",")?;
            }
            write!(w, "{{\"name\":{}", json_str(&f.name))?;
            if let Some(url) = &f.url {
                let r = match resources.iter().position(|r| r == url) {
                    Some(r) => r,
                    None => {
                        resources.push(url);
                        resources.len() - 1
                    }
                };
                write!(w, ",\"resourceId\":{r}")?;
            }
            if let Some(l) = f.line {
                write!(w, ",\"line\":{l}")?;
            }
            if let Some(c) = f.column {
                write!(w, ",\"column\":{c}")?;
            }
            w.write_all(b"}")?;
        }
        w.write_all(b"],\"resources\":[")?;
        for (i, r) in resources.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            w.write_all(json_str(r).as_bytes())?;
        }
        w.write_all(b"],\"samples\":[")?;
        for (i, (t, s)) in p.samples.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            match s {
                Some(s) => write!(w, "{{\"stackId\":{},\"timestamp\":{t}}}", tree.node_of[s])?,
                None => write!(w, "{{\"timestamp\":{t}}}")?,
            }
        }
        w.write_all(b"],\"stacks\":[")?;
        for (i, &(parent, func)) in tree.nodes.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            match parent {
                Some(parent) => write!(w, "{{\"frameId\":{func},\"parentId\":{parent}}}")?,
                None => write!(w, "{{\"frameId\":{func}}}")?,
            }
        }
        w.write_all(b"]}")
    }

    /// Writes `p` as a `.cpuprofile` (Node's and Chrome's `Profiler.stop` result); idle samples
    /// go to an `(idle)` node, as V8 reports them.
    pub fn write_cpuprofile(&self, pool: &Pool, p: &Profile, w: &mut impl Write) -> io::Result<()> {
        let tree = Tree::of(self, p);
        let mut urls: Vec<&str> = Vec::new();
        // Node ids: 1 = (root), 2 = (idle), then 3 + tree node.
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); tree.nodes.len()];
        let mut roots = Vec::new();
        for (i, &(parent, _)) in tree.nodes.iter().enumerate() {
            match parent {
                Some(parent) => children[parent].push(i),
                None => roots.push(i),
            }
        }
        let ids = |v: &[usize]| {
            v.iter()
                .map(|c| (c + 3).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        write!(
            w,
            "{{\"nodes\":[{{\"id\":1,\"callFrame\":{{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1}},\"hitCount\":0,\"children\":[2{}{}]}},",
            if roots.is_empty() { "" } else { "," },
            ids(&roots)
        )?;
        w.write_all(b"{\"id\":2,\"callFrame\":{\"functionName\":\"(idle)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0}")?;
        for (i, &(_, func)) in tree.nodes.iter().enumerate() {
            let f: &Func = &pool.funcs[tree.funcs[func] as usize];
            let script = match &f.url {
                Some(url) => match urls.iter().position(|u| u == url) {
                    Some(s) => s + 1,
                    None => {
                        urls.push(url);
                        urls.len()
                    }
                },
                None => 0,
            };
            let pos = |x: Option<u32>| x.map_or(-1, |x| x as i64 - 1);
            write!(
                w,
                ",{{\"id\":{},\"callFrame\":{{\"functionName\":{},\"scriptId\":\"{script}\",\"url\":{},\"lineNumber\":{},\"columnNumber\":{}}},\"hitCount\":0",
                i + 3,
                json_str(&f.name),
                json_str(f.url.as_deref().unwrap_or("")),
                pos(f.line),
                pos(f.column)
            )?;
            if !children[i].is_empty() {
                write!(w, ",\"children\":[{}]", ids(&children[i]))?;
            }
            w.write_all(b"}")?;
        }
        let us = |t: f64| (t * 1000.0).round() as i64;
        let start = p.samples.first().map_or(0, |s| us(s.0));
        let end = p.samples.last().map_or(0, |s| us(s.0));
        write!(w, "],\"startTime\":{start},\"endTime\":{end},\"samples\":[")?;
        for (i, (_, s)) in p.samples.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            write!(w, "{}", s.map_or(2, |s| tree.node_of[&s] + 3))?;
        }
        w.write_all(b"],\"timeDeltas\":[")?;
        let mut prev = start;
        for (i, (t, _)) in p.samples.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            write!(w, "{}", us(*t) - prev)?;
            prev = us(*t);
        }
        w.write_all(b"]}")
    }
}

pub struct Profile {
    pub version: usize,
    pub page: usize,
    pub regressed: bool,
    /// (timestamp ms, stack index into `Model::stacks` or `None` when idle).
    pub samples: Vec<(f64, Option<usize>)>,
}

/// The prefix tree of one profile's sampled stacks, in the file's own numbering.
struct Tree {
    /// The file's frames: pool function indices.
    funcs: Vec<u32>,
    /// (parent node, frame index).
    nodes: Vec<(Option<usize>, usize)>,
    /// Model stack index → the node of its leaf.
    node_of: std::collections::HashMap<usize, usize>,
}

impl Tree {
    fn of(model: &Model, p: &Profile) -> Tree {
        use std::collections::HashMap;
        let mut t = Tree {
            funcs: Vec::new(),
            nodes: Vec::new(),
            node_of: HashMap::new(),
        };
        let mut frame_of: HashMap<u32, usize> = HashMap::new();
        let mut node_at: HashMap<(Option<usize>, usize), usize> = HashMap::new();
        for s in p.samples.iter().filter_map(|s| s.1) {
            if t.node_of.contains_key(&s) {
                continue;
            }
            let mut parent = None;
            for &f in &model.stacks[s] {
                let frame = *frame_of.entry(f).or_insert_with(|| {
                    t.funcs.push(f);
                    t.funcs.len() - 1
                });
                let node = *node_at.entry((parent, frame)).or_insert_with(|| {
                    t.nodes.push((parent, frame));
                    t.nodes.len() - 1
                });
                parent = Some(node);
            }
            if let Some(leaf) = parent {
                t.node_of.insert(s, leaf);
            }
        }
        t
    }
}

pub fn json_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}
