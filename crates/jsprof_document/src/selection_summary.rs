//! The Performance panel's Summary of a selection: the time of one thread in a range, split by
//! DevTools' categories (Loading, Scripting, Rendering, Painting, System, Idle…). `jsprof summary
//! TRACE --range A..B --json`, the UI's `GET /api/ui/sessions/{s}/summary` and its Summary panel
//! answer with this one document.
//!
//! DevTools' rule (`statsForTimeRange` in `panels/timeline/components/TimelineRangeSummaryView.ts`
//! of devtools-frontend): at each instant the thread's innermost entry — trace event or JS call
//! (`ProfileCall`) — owns the time, in its category; an entry with no style is System (`other`);
//! Idle is what is left of the range. So a category's time is the self time (duration minus the
//! children's) of its entries, each clipped to the range. The name → category table is DevTools'
//! own (`maybeInitSylesMap` in `models/trace/Styles.ts`, read from the trace engine the oracles
//! pin, `@paulirish/trace_engine@0.0.65`).

use jsprof_analysis::{EventData, TimeRange, Timeline};
use schemars::JsonSchema;
use serde::Serialize;

use crate::load::CpuInput;
use crate::{warnings_json, JsonWarning, ReportError, Result};

/// DevTools' event categories, in its palette's order (`getCategoryStyles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    Loading,
    Experience,
    Messaging,
    Scripting,
    Rendering,
    Painting,
    Gpu,
    Async,
    Other,
    Idle,
}

impl Category {
    pub const ALL: [Category; 10] = [
        Category::Loading,
        Category::Experience,
        Category::Messaging,
        Category::Scripting,
        Category::Rendering,
        Category::Painting,
        Category::Gpu,
        Category::Async,
        Category::Other,
        Category::Idle,
    ];

    /// DevTools' key (`EventCategory`).
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Loading => "loading",
            Category::Experience => "experience",
            Category::Messaging => "messaging",
            Category::Scripting => "scripting",
            Category::Rendering => "rendering",
            Category::Painting => "painting",
            Category::Gpu => "gpu",
            Category::Async => "async",
            Category::Other => "other",
            Category::Idle => "idle",
        }
    }

    /// The Summary's words for it (`other` is shown as System).
    pub fn title(self) -> &'static str {
        match self {
            Category::Loading => "Loading",
            Category::Experience => "Experience",
            Category::Messaging => "Messaging",
            Category::Scripting => "Scripting",
            Category::Rendering => "Rendering",
            Category::Painting => "Painting",
            Category::Gpu => "GPU",
            Category::Async => "Async",
            Category::Other => "System",
            Category::Idle => "Idle",
        }
    }

    /// The category of a trace event by name: DevTools' table, System for a name it lacks.
    pub fn of_trace_event(name: &str) -> Category {
        match name {
            "FrameStartedLoading"
            | "ParseAuthorStyleSheet"
            | "ParseHTML"
            | "ResourceFinish"
            | "ResourceReceiveResponse"
            | "ResourceReceivedData"
            | "ResourceSendRequest"
            | "ResourceWillSendRequest" => Category::Loading,
            "EventTiming"
            | "LayoutShift"
            | "SyntheticLayoutShift"
            | "SyntheticLayoutShiftCluster" => Category::Experience,
            "HandlePostMessage" | "SchedulePostMessage" => Category::Messaging,
            "AbortPostTaskCallback"
            | "BlinkGC.AtomicPhase"
            | "CancelAnimationFrame"
            | "CancelIdleCallback"
            | "ConsoleTime"
            | "CppGC.IncrementalSweep"
            | "DoDecrypt"
            | "DoDecryptReply"
            | "DoDigest"
            | "DoDigestReply"
            | "DoEncrypt"
            | "DoEncryptReply"
            | "DoSign"
            | "DoSignReply"
            | "DoVerify"
            | "DoVerifyReply"
            | "EmbedderCallback"
            | "EvaluateScript"
            | "EventDispatch"
            | "FireAnimationFrame"
            | "FireIdleCallback"
            | "FunctionCall"
            | "GCEvent"
            | "JSSample"
            | "MajorGC"
            | "MarkDOMContent"
            | "MarkLoad"
            | "MinorGC"
            | "ProfileCall"
            | "RequestAnimationFrame"
            | "RequestIdleCallback"
            | "RunMicrotasks"
            | "RunPostTaskCallback"
            | "SchedulePostTaskCallback"
            | "TimeStamp"
            | "TimerFire"
            | "TimerInstall"
            | "TimerRemove"
            | "UserTiming"
            | "V8.CompileCode"
            | "V8.CompileModule"
            | "V8.OptimizeCode"
            | "V8Console::runTask"
            | "WebSocketCreate"
            | "WebSocketDestroy"
            | "WebSocketReceive"
            | "WebSocketReceiveHandshakeResponse"
            | "WebSocketSend"
            | "WebSocketSendHandshakeRequest"
            | "XHRLoad"
            | "XHRReadyStateChange"
            | "v8.compile"
            | "v8.deserializeOnBackground"
            | "v8.evaluateModule"
            | "v8.parseOnBackgroundParsing"
            | "v8.produceCache"
            | "v8.produceModuleCache"
            | "v8.wasm.cachedModule"
            | "v8.wasm.compiledModule"
            | "v8.wasm.moduleCacheHit"
            | "v8.wasm.moduleCacheInvalid"
            | "v8.wasm.streamFromResponseCallback" => Category::Scripting,
            "Animation"
            | "BeginFrame"
            | "BeginMainThreadFrame"
            | "ComputeIntersections"
            | "DrawFrame"
            | "HitTest"
            | "InvalidateLayout"
            | "Layerize"
            | "Layout"
            | "PrePaint"
            | "RequestMainThreadFrame"
            | "ScheduleStyleRecalculation"
            | "ScrollLayer"
            | "UpdateLayerTree"
            | "UpdateLayoutTree"
            | "firstContentfulPaint"
            | "largestContentfulPaint::Candidate"
            | "largestContentfulPaint::CandidateForSoftNavigation" => Category::Rendering,
            "Commit" | "CompositeLayers" | "Decode Image" | "Paint" | "PaintImage"
            | "PaintSetup" | "RasterTask" | "UpdateLayer" | "firstPaint" => Category::Painting,
            "GPUTask" => Category::Gpu,
            "AsyncTask" => Category::Async,
            "v8.parseOnBackgroundWaiting" => Category::Idle,
            // `RunTask`, `Program`, `CpuProfiler::StartProfiling`, … and every unstyled name.
            _ => Category::Other,
        }
    }
}

/// One category's time in the selection.
#[derive(Serialize, JsonSchema)]
pub struct CategoryJson {
    /// DevTools' key: `loading`, `experience`, `messaging`, `scripting`, `rendering`,
    /// `painting`, `gpu`, `async`, `other` or `idle`.
    pub category: &'static str,
    /// The Summary's words (`other` is `System`).
    pub title: &'static str,
    pub ms: f64,
    /// Of the selection's length.
    pub percent: f64,
}

/// `jsprof summary TRACE --range A..B --json` and `GET /api/ui/sessions/{s}/summary`: the
/// Performance panel's Summary of a selection, the time of one thread in a range by category.
#[derive(Serialize, JsonSchema)]
pub struct SelectionSummaryReport {
    pub kind: &'static str,
    pub warnings: Vec<JsonWarning>,
    pub timeline_id: u32,
    pub thread: String,
    /// The selection (ms from the input's time origin); an open side is the recording's edge.
    pub start_ms: f64,
    pub end_ms: f64,
    /// `end_ms - start_ms`.
    pub total_ms: f64,
    /// The categories with time, most first, then `idle` (what is left of the selection; the
    /// rows sum to `total_ms`).
    pub categories: Vec<CategoryJson>,
}

/// The category of an entry: a JS call is DevTools' `ProfileCall` (Scripting), a trace event
/// is its name's.
fn category(name: &str, data: EventData) -> Category {
    match data {
        EventData::Frame(_) => Category::Scripting,
        _ => Category::of_trace_event(name),
    }
}

/// Nanoseconds of each category in `[lo, hi)` (absolute ns), in [`Category::ALL`]'s order,
/// Idle being what no entry holds. Each entry adds its time in the range to its category and
/// takes it from its parent's: so each category gets its entries' self time in the range.
pub fn category_times(
    profile: &jsprof_profile::Profile,
    timeline: &Timeline,
    lo: i64,
    hi: i64,
) -> [i64; 10] {
    let index = |c: Category| Category::ALL.iter().position(|x| *x == c).unwrap();
    let events = &timeline.events;
    let cats: Vec<usize> = events
        .iter()
        .map(|e| index(category(profile.strings.get(e.name), e.data)))
        .collect();
    let mut out = [0i64; 10];
    for (i, e) in events.iter().enumerate() {
        let within = (e.end.min(hi) - e.start.max(lo)).max(0);
        if within == 0 {
            continue;
        }
        out[cats[i]] += within;
        if let Some(p) = e.parent {
            out[cats[p as usize]] -= within;
        }
    }
    // DevTools' Idle is the range less every category's time (its own idle entries included).
    let idle = index(Category::Idle);
    let busy: i64 = out.iter().sum();
    out[idle] = ((hi - lo) - busy).max(0);
    out
}

/// The Summary of `range` (ms from the origin; open sides are the recording's edges) on the
/// thread `thread` selects (a timeline id, a tid or a unique name; the default thread without).
pub fn document(
    input: &CpuInput,
    thread: Option<&str>,
    range: TimeRange,
) -> Result<SelectionSummaryReport> {
    let timeline = input.select(thread)?;
    let profile = input.profile();
    let (lo_ms, hi_ms) = crate::chart::extent(profile, timeline);
    let to_ns = |ms: f64| (ms * crate::NS_PER_MS).round() as i64;
    let lo = range.start.unwrap_or(to_ns(lo_ms));
    let hi = range.end.unwrap_or(to_ns(hi_ms));
    if hi < lo {
        return Err(ReportError::Usage(format!(
            "empty range: it ends ({} ms) before it starts ({} ms)",
            crate::ms(hi),
            crate::ms(lo)
        )));
    }
    let times = category_times(
        profile,
        timeline,
        timeline.origin + lo,
        timeline.origin + hi,
    );
    let total = hi - lo;
    let pct = |ns: i64| {
        if total > 0 {
            ns as f64 * 100.0 / total as f64
        } else {
            0.0
        }
    };
    let row = |(c, ns): (Category, i64)| CategoryJson {
        category: c.as_str(),
        title: c.title(),
        ms: crate::ms(ns),
        percent: pct(ns),
    };
    let mut busy: Vec<(Category, i64)> = Category::ALL
        .into_iter()
        .zip(times)
        .filter(|&(c, ns)| c != Category::Idle && ns != 0)
        .collect();
    // Most first; ties in the palette's order (the sort is stable).
    busy.sort_by_key(|b| std::cmp::Reverse(b.1));
    let idle = times[Category::ALL.len() - 1];
    let categories = busy
        .into_iter()
        .chain(std::iter::once((Category::Idle, idle)))
        .map(row)
        .collect();
    Ok(SelectionSummaryReport {
        kind: profile.kind.as_str(),
        warnings: warnings_json(input.warnings()),
        timeline_id: timeline.id,
        thread: timeline.name.clone(),
        start_ms: crate::ms(lo),
        end_ms: crate::ms(hi),
        total_ms: crate::ms(total),
        categories,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every category's time is its entries' self time in the range; Idle the rest.
    #[test]
    fn self_time_by_category_clipped_to_the_range() {
        // A task 0..10 ms holding a function call 2..8 holding a layout 4..5; a paint 12..14.
        let trace = br#"{"traceEvents":[
            {"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"CrRendererMain"}},
            {"ph":"X","pid":1,"tid":1,"name":"RunTask","ts":1000,"dur":10000},
            {"ph":"X","pid":1,"tid":1,"name":"FunctionCall","ts":3000,"dur":6000},
            {"ph":"X","pid":1,"tid":1,"name":"Layout","ts":5000,"dur":1000},
            {"ph":"X","pid":1,"tid":1,"name":"Paint","ts":13000,"dur":2000}]}"#;
        let input = crate::load::read_cpu(
            "t.json".into(),
            &trace[..],
            &crate::load::Pipeline::default(),
        )
        .unwrap();
        let doc = document(
            &input,
            None,
            TimeRange {
                start: Some(3_000_000),
                end: Some(13_000_000),
            },
        )
        .unwrap();
        let got: Vec<(&str, f64)> = doc.categories.iter().map(|c| (c.category, c.ms)).collect();
        // Scripting 3..8 less the layout (4 ms), Other 8..10 (2), Rendering 1, Painting 12..13 (1),
        // Idle 10..12 (2).
        assert_eq!(
            got,
            [
                ("scripting", 4.0),
                ("other", 2.0),
                ("rendering", 1.0),
                ("painting", 1.0),
                ("idle", 2.0)
            ]
        );
        assert_eq!(doc.total_ms, 10.0);
    }
}
