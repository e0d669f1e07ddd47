//! The handlers of the page events other than network requests, one per family as DevTools'
//! trace engine organises them: page-load markers and navigations (`PageLoadMetricsHandler`,
//! `MetaHandler`), layout shifts, interactions (`UserInteractionsHandler`), screenshots,
//! reflows and DOM size, images, fonts, animations, user timings, and the events Lantern's
//! dependency graph reads.

use serde_json::Value;

use super::args::{bool_at, call_frame, f64_at, frame_of, owned_at, stack_urls, str_at, string};
use super::*;

impl PageEvents {
    /// A Lantern graph event whose `args.data` is read ([`GraphEventData`]).
    pub(super) fn push_graph_data(&mut self, name: GraphEventName, at: &Stamp, data: &Value) {
        self.graph_events.push(GraphEvent {
            at: at.clone(),
            dur: 0,
            name,
            data: data.is_object().then(|| Box::new(graph_data(name, data))),
        });
    }

    /// A paint or load marker (FP, FCP, DCL, load, LCP candidates and invalidations).
    pub(super) fn push_marker(&mut self, e: &Event<'_>, at: Stamp) {
        let Event {
            name, args, data, ..
        } = *e;
        let kind = match name {
            "firstPaint" => MarkerKind::FirstPaint,
            "firstContentfulPaint" => MarkerKind::FirstContentfulPaint,
            "MarkDOMContent" => MarkerKind::DomContentLoaded,
            "MarkLoad" => MarkerKind::Load,
            "largestContentfulPaint::Candidate" => MarkerKind::LcpCandidate,
            "largestContentfulPaint::Invalidate" => MarkerKind::LcpInvalidate,
            _ => return,
        };
        // DevTools reads DCL and load's frame from `args.data.frame`, the paints' from
        // `args.frame`.
        let frame = match kind {
            MarkerKind::DomContentLoaded | MarkerKind::Load => str_at(data, &["frame"]),
            _ => str_at(args, &["frame"]),
        };
        let Some(frame) = self.required(frame, "page-load markers without a frame") else {
            return;
        };
        self.markers.push(Marker {
            at,
            kind,
            frame: frame.to_string(),
            navigation_id: owned_at(data, &["navigationId"]),
            candidate_index: data.get("candidateIndex").and_then(Value::as_u64),
            lcp_type: owned_at(data, &["type"]),
            node_id: data.get("nodeId").and_then(Value::as_u64),
            node_name: owned_at(data, &["nodeName"]),
            size: f64_at(data, &["size"]),
            loading_attr: owned_at(data, &["loadingAttr"]),
        });
    }

    /// `navigationStart`.
    pub(super) fn push_navigation(&mut self, e: &Event<'_>, at: Stamp) {
        let Event { args, data, .. } = *e;
        // Navigations to about:blank and the like have no `documentLoaderURL`; DevTools
        // does not count them.
        let (Some(url), Some(frame), Some(id)) = (
            str_at(data, &["documentLoaderURL"]).filter(|u| !u.is_empty()),
            str_at(args, &["frame"]),
            str_at(data, &["navigationId"]),
        ) else {
            return;
        };
        self.navigations.push(Navigation {
            at,
            frame: frame.to_string(),
            navigation_id: id.to_string(),
            url: url.to_string(),
            is_loading_main_frame: bool_at(data, &["isLoadingMainFrame"]),
            is_outermost_main_frame: bool_at(data, &["isOutermostMainFrame"]),
        });
    }

    /// `domLoading`: a frame's document starting to load.
    pub(super) fn push_dom_loading(&mut self, e: &Event<'_>, at: Stamp) {
        let Event { args, .. } = *e;
        if let Some(frame) = str_at(args, &["frame"]) {
            self.dom_loading.push((at, frame.to_string()));
        }
    }

    /// The frames, their URLs over time and the worker threads (the engine's `MetaHandler`):
    /// `TracingStartedInBrowser`, `FrameCommittedInBrowser`, `CommitLoad`,
    /// `TracingSessionIdForWorker`.
    pub(super) fn push_frames(&mut self, e: &Event<'_>, at: Stamp) {
        let Event { name, data, .. } = *e;
        match name {
            "TracingStartedInBrowser" => {
                let frames = data.get("frames").and_then(Value::as_array);
                let main = frames.and_then(|fs| {
                    fs.iter().find(|f| {
                        bool_at(f, &["isOutermostMainFrame"])
                            || (f.get("isOutermostMainFrame").is_none()
                                && f.get("parent").is_none())
                    })
                });
                if let Some(f) = main {
                    self.main_frame =
                        Some((string(str_at(f, &["frame"])), string(str_at(f, &["url"]))));
                }
                for f in frames.into_iter().flatten() {
                    self.push_frame_url(at.ts, f, None);
                }
            }
            "FrameCommittedInBrowser" if data.is_object() => {
                self.push_frame_url(at.ts, data, None);
            }
            "CommitLoad" if data.is_object() => {
                self.push_frame_url(at.ts, data, Some(at.pid));
            }
            "TracingSessionIdForWorker" => {
                if let Some(tid) = data.get("workerThreadId").and_then(Value::as_u64) {
                    self.worker_threads.push(tid);
                }
            }
            _ => {}
        }
    }

    /// A frame's URL from `at` on; its process is `f.processId` unless given.
    fn push_frame_url(&mut self, ts: i64, f: &Value, process_id: Option<u64>) {
        self.frame_urls.push(FrameUrl {
            ts,
            frame: string(str_at(f, &["frame"])),
            process_id: process_id
                .unwrap_or_else(|| f.get("processId").and_then(Value::as_u64).unwrap_or(0)),
            url: string(str_at(f, &["url"])),
        });
    }

    /// A `LayoutShift`; those after recent input are dropped, as DevTools drops them.
    pub(super) fn push_layout_shift(&mut self, e: &Event<'_>, at: Stamp) {
        let Event { args, data, .. } = *e;
        if bool_at(data, &["had_recent_input"]) {
            return;
        }
        let scores = f64_at(data, &["score"]).zip(f64_at(data, &["weighted_score_delta"]));
        let Some((score, weighted)) = self.required(
            scores,
            "`LayoutShift` without `score`/`weighted_score_delta`",
        ) else {
            return;
        };
        self.layout_shifts.push(LayoutShift {
            frame: frame_of(args),
            at,
            score,
            weighted_score_delta: weighted,
        });
    }

    /// An `EventTiming` begin (`b`) or end (`e`); other phases are not interactions.
    pub(super) fn push_event_timing(&mut self, e: &Event<'_>, at: Stamp) {
        let Event {
            ph, id, args, data, ..
        } = *e;
        let Some(id) = self.required(id, "`EventTiming` without an id") else {
            return;
        };
        let begin = match ph {
            b'b' => {
                let f = |k: &str| f64_at(data, &[k]).unwrap_or(0.0);
                data.is_object().then(|| EventTimingData {
                    event_type: string(str_at(data, &["type"])),
                    interaction_id: data
                        .get("interactionId")
                        .and_then(Value::as_u64)
                        .unwrap_or(0),
                    duration: f("duration"),
                    time_stamp: f("timeStamp"),
                    processing_start: f("processingStart"),
                    processing_end: f("processingEnd"),
                    frame: frame_of(args),
                })
            }
            b'e' => None,
            _ => return,
        };
        self.event_timings.push(EventTiming {
            at,
            id: id.to_string(),
            begin,
        });
    }

    /// A filmstrip `Screenshot`.
    pub(super) fn push_screenshot(&mut self, e: &Event<'_>, at: Stamp) {
        let Event { ph, args, .. } = *e;
        // The modern form (with `source_id`); DevTools reads the legacy one (an object
        // snapshot on a `ph: O` event) elsewhere.
        if args.get("source_id").is_none() && ph != b'O' {
            return;
        }
        let image = match str_at(args, &["snapshot"]) {
            Some(s) if is_base64(s) => Some(s.to_string()),
            _ => {
                self.broken_screenshots += 1;
                None
            }
        };
        self.screenshots.push(Screenshot { at, image });
    }

    /// A `Layout` or `UpdateLayoutTree` (the style recalculation) begin.
    pub(super) fn push_reflow(&mut self, e: &Event<'_>, at: Stamp) {
        let Event {
            name,
            ph,
            args,
            data,
            ..
        } = *e;
        if name == "UpdateLayoutTree" {
            self.last_recalc = (ph != b'E').then_some(self.reflows.len());
        }
        // A `B`/`X` begin carries the args; an `E` only the end data.
        if ph == b'E' {
            return;
        }
        let begin = args.get("beginData").unwrap_or(&Value::Null);
        let (kind, size) = match name {
            "Layout" => (ReflowKind::Layout, f64_at(begin, &["dirtyObjects"])),
            _ => (ReflowKind::RecalcStyle, f64_at(args, &["elementCount"])),
        };
        self.reflows.push(Reflow {
            at,
            kind,
            frame: string(str_at(begin, &["frame"]).or(str_at(data, &["frame"]))),
            size: size.unwrap_or(0.0).max(0.0) as u64,
            stack_top: begin
                .get("stackTrace")
                .and_then(Value::as_array)
                .and_then(|s| s.first())
                .and_then(call_frame),
        });
    }

    /// `DOMStats`: the DOM's size.
    pub(super) fn push_dom_stats(&mut self, e: &Event<'_>, at: Stamp) {
        let Event { data, .. } = *e;
        let Some(total) = self.required(
            data.get("totalElements").and_then(Value::as_u64),
            "`DOMStats` without `args.data.totalElements`",
        ) else {
            return;
        };
        self.dom_stats.push(DomStats {
            at,
            frame: string(str_at(data, &["frame"])),
            total_elements: total,
            max_depth: data.pointer("/maxDepth/depth").and_then(Value::as_u64),
            max_children: data
                .pointer("/maxChildren/numChildren")
                .and_then(Value::as_u64),
        });
    }

    /// `SelectorStats`: the selectors matched by the last style recalculation in the file.
    pub(super) fn push_selector_stats(&mut self, e: &Event<'_>, at: Stamp) {
        let Event { args, .. } = *e;
        let Some(list) = args
            .pointer("/selector_stats/selector_timings")
            .and_then(Value::as_array)
        else {
            return;
        };
        let n = |t: &Value, k: &str| t.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let timings = list
            .iter()
            .map(|t| SelectorTiming {
                selector: string(str_at(t, &["selector"])),
                style_sheet_id: string(str_at(t, &["style_sheet_id"])),
                elapsed: n(t, "elapsed (us)"),
                fast_reject_count: n(t, "fast_reject_count"),
                match_attempts: n(t, "match_attempts"),
                match_count: n(t, "match_count"),
            })
            .collect();
        self.selector_stats.push(SelectorStats {
            at,
            recalc: self.last_recalc,
            timings,
        });
    }

    /// Images: `PaintImage` (complete events), `LargestImagePaint::Candidate`,
    /// `LayoutImageUnsized`, and the page's device pixel ratio from
    /// `PaintTimingVisualizer::Viewport`.
    pub(super) fn push_image(&mut self, e: &Event<'_>, at: Stamp) {
        let Event { name, ph, data, .. } = *e;
        match name {
            "PaintImage" if ph == b'X' => {
                let node = data.get("nodeId").and_then(Value::as_u64).unwrap_or(0);
                let url = string(str_at(data, &["url"]));
                if !url.is_empty() {
                    let num = |k: &str| data.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
                    let yes = |k: &str| data.get(k).and_then(Value::as_bool) == Some(true);
                    let srcset = str_at(data, &["srcsetAttribute"]).is_some_and(|s| !s.is_empty());
                    self.painted_images.push(PaintedImage {
                        at: at.clone(),
                        url: url.clone(),
                        width: num("width"),
                        height: num("height"),
                        src_width: num("srcWidth"),
                        src_height: num("srcHeight"),
                        is_css: yes("isCSS"),
                        has_breakpoints: yes("isPicture") || srcset,
                    });
                }
                self.paint_images.push((at, node, url));
            }
            "LargestImagePaint::Candidate" => {
                if let (Some(node), Some(url)) = (
                    data.get("DOMNodeId").and_then(Value::as_u64),
                    str_at(data, &["imageUrl"]),
                ) {
                    self.image_paints.push((at, node, url.to_string()));
                }
            }
            "LayoutImageUnsized" => {
                if let Some(node) = data.get("nodeId").and_then(Value::as_u64) {
                    self.unsized_images.push((at, node));
                }
            }
            // The engine reads the first in time (ties in file order).
            "PaintTimingVisualizer::Viewport"
                if self.viewport_dpr.is_none_or(|(ts, _)| at.ts < ts) =>
            {
                self.viewport_dpr = Some((at.ts, f64_at(data, &["dpr"])));
            }
            _ => {}
        }
    }

    /// What the document declares: `<meta name=viewport>` (`ParseMetaViewport`), whether a
    /// committed frame was optimized for mobile (`BeginCommitCompositorFrame`), and where
    /// `<meta charset>` was found (`MetaCharsetCheck`).
    pub(super) fn push_document(&mut self, e: &Event<'_>, at: Stamp) {
        let Event {
            name, args, data, ..
        } = *e;
        match name {
            "ParseMetaViewport" => {
                if let Some(frame) = str_at(data, &["frame"]) {
                    self.viewport_metas.push((at, frame.to_string()));
                }
            }
            "BeginCommitCompositorFrame" => {
                if let Some(frame) = str_at(args, &["frame"]) {
                    self.compositor_frames.push(CompositorFrame {
                        at,
                        frame: frame.to_string(),
                        is_mobile_optimized: bool_at(args, &["is_mobile_optimized"]),
                    });
                }
            }
            "MetaCharsetCheck" => self.charset_checks.push(CharsetCheck {
                at,
                frame: owned_at(data, &["frame"]),
                disposition: owned_at(data, &["disposition"]),
            }),
            _ => {}
        }
    }

    /// Web fonts: `BeginRemoteFontLoad`, named by the `RemoteFontLoaded`s of its URL after it.
    pub(super) fn push_font(&mut self, e: &Event<'_>, at: Stamp) {
        let Event { name, args, .. } = *e;
        if name == "RemoteFontLoaded" {
            // Names every font of that URL seen so far, as the engine's handler does.
            let url = str_at(args, &["url"]);
            let name = str_at(args, &["name"]);
            for f in self.remote_fonts.iter_mut() {
                if f.url.as_deref() == url {
                    f.name = name.map(str::to_string);
                }
            }
            return;
        }
        let Some(id) = self.required(
            args.get("id").filter(|v| !v.is_null()),
            "`BeginRemoteFontLoad` without `args.id`",
        ) else {
            return;
        };
        self.remote_fonts.push(RemoteFont {
            at,
            id: match id {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            },
            display: string(str_at(args, &["display"])),
            url: owned_at(args, &["url"]),
            name: None,
        });
    }

    /// A `FunctionCall` begin with a call frame in `args.data`.
    pub(super) fn push_function_call(&mut self, e: &Event<'_>, at: Stamp) {
        let Event { ph, data, .. } = *e;
        if ph != b'E' {
            if let Some(f) = call_frame(data) {
                self.function_calls.push((at, f));
            }
        }
    }

    /// An `Animation` begin, instant or end (`devtools.timeline`).
    pub(super) fn push_animation(&mut self, e: &Event<'_>, at: Stamp) {
        let Event {
            cat, ph, id, data, ..
        } = *e;
        // The engine's `isAnimation`: another category's `Animation` is not one.
        if !(cat.contains("devtools.timeline") && matches!(ph, b'b' | b'e' | b'n')) {
            return self.push_user_timing(e, at);
        }
        let id = match id {
            Some(raw) if raw.starts_with('{') => {
                let id2: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
                str_at(&id2, &["global"])
                    .or(str_at(&id2, &["local"]))
                    .map(str::to_string)
            }
            Some(id) => Some(id.to_string()),
            None => None,
        };
        let Some(id) = self.required(id, "`Animation` events without an `id` or `id2`") else {
            return;
        };
        self.animations.push(AnimationEvent {
            at,
            ph,
            cat: cat.to_string(),
            id,
            display_name: owned_at(data, &["displayName"]),
            composite_failed: data.get("compositeFailed").and_then(Value::as_u64),
            unsupported_properties: data
                .get("unsupportedProperties")
                .and_then(Value::as_array)
                .map(|ps| {
                    ps.iter()
                        .filter_map(|p| p.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        });
    }

    /// User timings (DevTools' `UserTimingsHandler`): `console.timeStamp`, `performance.mark`
    /// and `measure`, `console.time`; any other event is not one.
    pub(super) fn push_user_timing(&mut self, e: &Event<'_>, at: Stamp) {
        let Event {
            name,
            cat,
            ph,
            id,
            data,
            ..
        } = *e;
        if name == "TimeStamp" && (ph == b'I' || ph == b'i') {
            self.user_timings.push(UserTiming {
                at,
                kind: UserTimingKind::TimeStamp,
                name: name.to_string(),
                ph,
                id: String::new(),
                message: owned_at(data, &["message"]),
            });
            return;
        }
        let is_async = matches!(ph, b'b' | b'e' | b'n' | b'S' | b'F' | b'T' | b'p');
        let kind = match cat {
            "blink.user_timing" if is_async => UserTimingKind::Measure,
            "blink.user_timing" if matches!(ph, b'R' | b'I') => UserTimingKind::Mark,
            "blink.console" if is_async => UserTimingKind::ConsoleTime,
            _ => return,
        };
        // Navigation Timing's own marks are written as user timings; DevTools leaves them out.
        if NAV_TIMING_NAMES.contains(&name) {
            return;
        }
        self.user_timings.push(UserTiming {
            at,
            kind,
            name: name.to_string(),
            ph,
            id: id.unwrap_or_default().to_string(),
            message: None,
        });
    }
}

/// Whether `s` is standard base64 (padding optional, as Chrome writes it with padding).
fn is_base64(s: &str) -> bool {
    let body = s.trim_end_matches('=');
    s.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
        && body.len() % 4 != 1
}

/// What Lantern reads of a `name` event's `args.data`.
fn graph_data(name: GraphEventName, data: &Value) -> GraphEventData {
    let url_key = match name {
        GraphEventName::ParseAuthorStyleSheet => "styleSheetUrl",
        _ => "url",
    };
    GraphEventData {
        frame: owned_at(data, &["frame"]),
        url: owned_at(data, &[url_key]),
        timer_id: data.get("timerId").map(Value::to_string),
        request_id: owned_at(data, &["requestId"]),
        ready_state: data.get("readyState").and_then(Value::as_i64),
        stack: stack_urls(data),
    }
}

/// Navigation and Resource Timing's marks, which Blink writes in `blink.user_timing` and DevTools'
/// `UserTimingsHandler` ignores.
const NAV_TIMING_NAMES: &[&str] = &[
    "workerStart",
    "redirectStart",
    "redirectEnd",
    "fetchStart",
    "domainLookupStart",
    "domainLookupEnd",
    "connectStart",
    "connectEnd",
    "secureConnectionStart",
    "requestStart",
    "responseStart",
    "responseEnd",
    "navigationStart",
    "unloadEventStart",
    "unloadEventEnd",
    "commitNavigationEnd",
    "domLoading",
    "domInteractive",
    "domContentLoadedEventStart",
    "domContentLoadedEventEnd",
    "domComplete",
    "loadEventStart",
    "loadEventEnd",
];
