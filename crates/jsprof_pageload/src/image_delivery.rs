//! The image delivery insight (the trace engine's `ImageDelivery`, after Lighthouse's
//! `modern-image-formats`, `uses-optimized-images` and `uses-responsive-images`): images the
//! page painted that a modern format, more compression, a video (for a GIF) or a size closer to
//! the drawn one would make smaller, with the bytes each saves, and the FCP/LCP savings Lantern's
//! simulation gives for those bytes ([`metric_savings_for_wasted_bytes`]).
//!
//! An image counts when it was requested and painted (`PaintImage` with its URL — before any
//! redirect — within the navigation); its largest paint says how big it was drawn. The drawn
//! size is the paint's own, unless the trace's metadata names the host's device pixel ratio
//! (`hostDPR`, which DevTools writes to a saved trace) and the page has one
//! (`PaintTimingVisualizer::Viewport`): then it is corrected from the host's to the page's
//! (emulated) ratio, as the engine's `ImagePaintingHandler` does.

use rustc_hash::FxHashMap as HashMap;
use schemars::JsonSchema;
use serde::Serialize;

use jsprof_profile::page_events::PaintedImage;
use jsprof_profile::TraceFile;

use super::insight_common::{in_bounds, State};
use super::lantern::{metric_savings_for_wasted_bytes, LanternContext, MetricSavings};
use super::vitals::NavigationVitals;
use crate::network::Request;
use crate::units::{js_max, js_min, js_round, ns_to_us};

/// AVIF's bytes per pixel, the target a well-compressed image meets.
const TARGET_BYTES_PER_PIXEL_AVIF: f64 = 2.0 * 1.0 / 12.0;
/// GIFs larger than this would be smaller as video.
const GIF_SIZE_THRESHOLD: f64 = 100.0 * 1024.0;
/// Savings under this are not worth listing.
const BYTE_SAVINGS_THRESHOLD: f64 = 4096.0;
/// An image with breakpoints (`srcset`, `<picture>`) is listed for its size only past this.
const BYTE_SAVINGS_THRESHOLD_RESPONSIVE_BREAKPOINTS: f64 = 12288.0;

/// What would make an image smaller (the engine's `ImageOptimizationType`); serialized as the
/// engine names it ([`Self::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OptimizationKind {
    /// A WebP or AVIF with more bytes per pixel than AVIF needs.
    AdjustCompression,
    /// Another format with more bytes per pixel than AVIF needs.
    ModernFormatOrCompression,
    /// A GIF over 100 KiB, as a video.
    VideoFormat,
    /// A file larger than it is drawn.
    ResponsiveSize,
}

impl OptimizationKind {
    /// The engine's name.
    pub fn as_str(self) -> &'static str {
        match self {
            OptimizationKind::AdjustCompression => "ADJUST_COMPRESSION",
            OptimizationKind::ModernFormatOrCompression => "MODERN_FORMAT_OR_COMPRESSION",
            OptimizationKind::VideoFormat => "VIDEO_FORMAT",
            OptimizationKind::ResponsiveSize => "RESPONSIVE_SIZE",
        }
    }
}

/// A width and height in whole pixels.
// The insights document serializes it as it is: its docs are the JSON reference's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "DimensionsJson")]
pub struct Dimensions {
    pub width: f64,
    pub height: f64,
}

/// One way to make an image smaller.
// The insights document serializes it as it is: its docs are the JSON reference's.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "ImageOptimizationJson")]
pub struct Optimization {
    /// The engine's name: `MODERN_FORMAT_OR_COMPRESSION`, `ADJUST_COMPRESSION` (a WebP or
    /// AVIF), `VIDEO_FORMAT` (a GIF) or `RESPONSIVE_SIZE`.
    #[serde(rename = "type")]
    #[schemars(with = "String")]
    pub kind: OptimizationKind,
    pub byte_savings: f64,
    /// For `RESPONSIVE_SIZE`: the file's size and the size it was drawn at.
    pub file_dimensions: Option<Dimensions>,
    pub display_dimensions: Option<Dimensions>,
}

/// An image worth optimizing.
#[derive(Clone, Debug, PartialEq)]
pub struct OptimizableImage {
    /// Index into the requests.
    pub request: usize,
    /// Its largest paint: start and duration (µs), on its thread (pid, tid).
    pub paint_ts: f64,
    pub paint_dur: f64,
    pub paint_thread: (u64, u64),
    /// Each optimization of 4096 bytes or more, format first.
    pub optimizations: Vec<Optimization>,
    /// The format's savings plus the size's on what is left (they compound).
    pub byte_savings: f64,
}

/// The image delivery insight of a navigation.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageDelivery {
    /// `fail` when any image is listed.
    pub state: State,
    /// Most savings first, then the largest decoded body (the engine's `relatedEvents` order).
    pub images: Vec<OptimizableImage>,
    pub wasted_bytes: f64,
    /// FCP/LCP savings of not downloading the wasted bytes; `None` where the engine has no
    /// Lantern context (or no navigation).
    pub metric_savings: Option<MetricSavings>,
}

/// A paint's duration (µs): its thread event's at the same stamp (0 when the thread does not
/// hold it). `threads`: the trace's threads by (pid, tid).
fn paint_dur(trace: &TraceFile, threads: &HashMap<(u64, u64), usize>, p: &PaintedImage) -> f64 {
    let Some(&t) = threads.get(&(p.at.pid, p.at.tid)) else {
        return 0.0;
    };
    let t = &trace.threads[t];
    // A thread's events are in pre-order, so sorted by start.
    let from = t.events.partition_point(|e| e.start < p.at.ts);
    t.events[from..]
        .iter()
        .take_while(|e| e.start == p.at.ts)
        .find(|e| trace.profile.strings.get(e.name) == "PaintImage")
        .map_or(0.0, |e| ns_to_us(e.dur))
}

/// The engine's `estimateGIFPercentSavings`: from 1000 GIFs transcoded to video.
fn gif_percent_savings(decoded_body_length: f64) -> f64 {
    js_round(29.1 * decoded_body_length.log10() - 100.7) / 100.0
}

/// The host's and the page's device pixel ratios, when the engine corrects drawn sizes by them
/// (both known and neither 0).
type Dprs = Option<(f64, f64)>;

fn dprs(trace: &TraceFile) -> Dprs {
    let page = &trace.page;
    let host = page.host_dpr.filter(|&d| d != 0.0 && !d.is_nan())?;
    let emulated = page.viewport_dpr?.1.filter(|&d| d != 0.0 && !d.is_nan())?;
    Some((host, emulated))
}

/// The size `paint` was drawn at (the engine's `getDisplayedSize`).
fn displayed(paint: &PaintedImage, dprs: Dprs) -> (f64, f64) {
    match dprs {
        Some((host, emulated)) => (
            paint.width / host * emulated,
            paint.height / host * emulated,
        ),
        None => (paint.width, paint.height),
    }
}

/// The optimizations of one image (`mime` its type, `decoded` its decoded body's length) of
/// `bytes`, `paint` its largest paint; and its savings.
fn optimizations(
    mime: &str,
    decoded: f64,
    bytes: f64,
    paint: &PaintedImage,
    dprs: Dprs,
) -> (Vec<Optimization>, f64) {
    let file_pixels = paint.src_width * paint.src_height;
    let (width, height) = displayed(paint, dprs);
    let displayed_pixels = width * height;
    let bytes_per_pixel = bytes / file_pixels;
    let mut out = Vec::new();
    let plain = |kind, byte_savings| Optimization {
        kind,
        byte_savings,
        file_dimensions: None,
        display_dimensions: None,
    };
    if mime == "image/gif" {
        if bytes > GIF_SIZE_THRESHOLD {
            let savings = js_round(bytes * gif_percent_savings(decoded));
            out.push(plain(OptimizationKind::VideoFormat, savings));
        }
    } else if bytes_per_pixel > TARGET_BYTES_PER_PIXEL_AVIF {
        let ideal = js_round(TARGET_BYTES_PER_PIXEL_AVIF * file_pixels);
        let kind = match mime {
            "image/webp" | "image/avif" => OptimizationKind::AdjustCompression,
            _ => OptimizationKind::ModernFormatOrCompression,
        };
        out.push(plain(kind, bytes - ideal));
    }
    let from_format = out.iter().fold(0.0, |m, o| js_max(m, o.byte_savings));
    let mut total = from_format;
    let wasted_pixel_ratio = 1.0 - displayed_pixels / file_pixels;
    // CSS images are left out: sprite sheets are hard to tell, and responsive CSS images
    // seldom worth the effort.
    if wasted_pixel_ratio > 0.0 && !paint.is_css {
        let savings = js_round(wasted_pixel_ratio * bytes);
        if !paint.has_breakpoints || savings > BYTE_SAVINGS_THRESHOLD_RESPONSIVE_BREAKPOINTS {
            total += js_round(wasted_pixel_ratio * (bytes - from_format));
            out.push(Optimization {
                kind: OptimizationKind::ResponsiveSize,
                byte_savings: savings,
                file_dimensions: Some(Dimensions {
                    width: js_round(paint.src_width),
                    height: js_round(paint.src_height),
                }),
                display_dimensions: Some(Dimensions {
                    width: js_round(width),
                    height: js_round(height),
                }),
            });
        }
    }
    out.retain(|o| o.byte_savings > BYTE_SAVINGS_THRESHOLD);
    (out, total)
}

/// The image delivery insight of `nav`, with its savings simulated in `lantern`, the
/// navigation's Lantern context.
pub fn image_delivery(
    trace: &TraceFile,
    requests: &[Request],
    nav: &NavigationVitals,
    lantern: Option<&LanternContext>,
) -> ImageDelivery {
    let b = &nav.bounds;
    let dprs = dprs(trace);
    let mut threads: HashMap<(u64, u64), usize> = HashMap::default();
    for (i, t) in trace.threads.iter().enumerate() {
        threads.entry((t.pid, t.tid)).or_insert(i);
    }
    // The paints in the navigation with their durations, by URL, in time order as the engine
    // handles them (ties in file order): of equal paints the later is the largest.
    let mut paints: HashMap<&str, Vec<(&PaintedImage, f64)>> = HashMap::default();
    for p in &trace.page.painted_images {
        let dur = paint_dur(trace, &threads, p);
        if in_bounds(ns_to_us(p.at.ts), dur, b) {
            paints.entry(p.url.as_str()).or_default().push((p, dur));
        }
    }
    for list in paints.values_mut() {
        list.sort_by_key(|(p, _)| p.at.ts);
    }
    let mut images = Vec::new();
    for (i, r) in requests.iter().enumerate() {
        if !in_bounds(r.start, r.end - r.start, b)
            || r.resource_type != "Image"
            || r.mime_type == "image/svg+xml"
        {
            continue;
        }
        // Paints name the URL before any redirect.
        let url = r.redirects.first().unwrap_or(&r.url);
        // The paint drawing the most pixels; of equals, the later.
        let largest = paints
            .get(url.as_str())
            .into_iter()
            .flatten()
            .reduce(|prev, cur| {
                let pixels = |p: &PaintedImage| {
                    let (w, h) = displayed(p, dprs);
                    w * h
                };
                if pixels(prev.0) > pixels(cur.0) {
                    prev
                } else {
                    cur
                }
            });
        // An image downloaded but never drawn (a preload) is not this insight's.
        let Some(&(paint, dur)) = largest else {
            continue;
        };
        // Usually the decoded size; smaller when the network compressed the image again.
        let bytes = js_min(r.decoded_body_length, r.transfer_size);
        let (optimizations, byte_savings) =
            optimizations(&r.mime_type, r.decoded_body_length, bytes, paint, dprs);
        if !optimizations.is_empty() {
            images.push(OptimizableImage {
                request: i,
                paint_ts: ns_to_us(paint.at.ts),
                paint_dur: dur,
                paint_thread: (paint.at.pid, paint.at.tid),
                optimizations,
                byte_savings,
            });
        }
    }
    // The engine's map of wasted bytes is filled in request order, before the sort.
    let wasted: Vec<(usize, f64)> = images.iter().map(|m| (m.request, m.byte_savings)).collect();
    let metric_savings =
        lantern.and_then(|ctx| metric_savings_for_wasted_bytes(ctx, requests, &wasted).ok());
    // The engine's comparator in JavaScript's stable sort (NaN compares as equal).
    images.sort_by(|a, b| {
        let (ra, rb) = (&requests[a.request], &requests[b.request]);
        let d = if b.byte_savings != a.byte_savings {
            b.byte_savings - a.byte_savings
        } else {
            rb.decoded_body_length - ra.decoded_body_length
        };
        d.partial_cmp(&0.0).unwrap_or(std::cmp::Ordering::Equal)
    });
    let wasted_bytes = images.iter().map(|m| m.byte_savings).sum();
    ImageDelivery {
        state: State::pass_if(images.is_empty()),
        images,
        wasted_bytes,
        metric_savings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsprof_profile::page_events::Stamp;

    fn paint(w: f64, h: f64, src_w: f64, src_h: f64) -> PaintedImage {
        PaintedImage {
            at: Stamp {
                ts: 0,
                pid: 1,
                tid: 1,
            },
            url: "https://example.com/a.png".to_string(),
            width: w,
            height: h,
            src_width: src_w,
            src_height: src_h,
            is_css: false,
            has_breakpoints: false,
        }
    }

    /// Lighthouse's own examples: a PNG of 1200×675 drawn at 800×450 (the recorded page load's
    /// hero, whose savings the engine gives as 67392 + 112440 → 142392).
    #[test]
    fn a_large_png_drawn_small_saves_format_then_size() {
        let hero = paint(800.0, 450.0, 1200.0, 675.0);
        let (opts, total) = optimizations("image/png", 202_392.0, 202_392.0, &hero, None);
        let kinds: Vec<_> = opts.iter().map(|o| (o.kind, o.byte_savings)).collect();
        assert_eq!(
            kinds,
            [
                (OptimizationKind::ModernFormatOrCompression, 67_392.0),
                (OptimizationKind::ResponsiveSize, 112_440.0)
            ]
        );
        assert_eq!(total, 142_392.0);
        assert_eq!(
            opts[1].file_dimensions,
            Some(Dimensions {
                width: 1200.0,
                height: 675.0
            })
        );
        assert_eq!(
            opts[1].display_dimensions,
            Some(Dimensions {
                width: 800.0,
                height: 450.0
            })
        );
    }

    #[test]
    fn webp_gif_css_and_breakpoints() {
        let p = paint(100.0, 100.0, 100.0, 100.0);
        // 10000 pixels at AVIF's rate: 1667 bytes; a WebP of 20000 bytes compresses badly.
        let (opts, _) = optimizations("image/webp", 20_000.0, 20_000.0, &p, None);
        assert_eq!(opts[0].kind, OptimizationKind::AdjustCompression);
        assert_eq!(opts[0].byte_savings, 20_000.0 - 1667.0);
        // A 200 KB GIF: round(29.1 log10(200000) - 100.7) = 54 % as video.
        let (opts, _) = optimizations("image/gif", 200_000.0, 200_000.0, &p, None);
        assert_eq!(opts[0].kind, OptimizationKind::VideoFormat);
        assert_eq!(opts[0].byte_savings, 108_000.0);
        // A well-compressed image of a million pixels drawn at a quarter of them: a CSS image
        // is never resized, one with breakpoints only when that saves over 12 KiB.
        let mut css = paint(500.0, 500.0, 1000.0, 1000.0);
        css.is_css = true;
        assert!(optimizations("image/jpeg", 100e3, 100e3, &css, None)
            .0
            .is_empty());
        let mut srcset = paint(500.0, 500.0, 1000.0, 1000.0);
        srcset.has_breakpoints = true;
        let (opts, total) = optimizations("image/jpeg", 100e3, 100e3, &srcset, None);
        assert_eq!(opts[0].kind, OptimizationKind::ResponsiveSize);
        assert_eq!((opts[0].byte_savings, total), (75e3, 75e3));
        assert!(optimizations("image/jpeg", 10e3, 10e3, &srcset, None)
            .0
            .is_empty());
        let plain = paint(500.0, 500.0, 1000.0, 1000.0);
        assert_eq!(
            optimizations("image/jpeg", 10e3, 10e3, &plain, None)
                .0
                .len(),
            1
        );
        // Drawn on a host of ratio 2 for a page of ratio 1: half the paint's size each way.
        let hero = paint(800.0, 450.0, 1200.0, 675.0);
        assert_eq!(displayed(&hero, Some((2.0, 1.0))), (400.0, 225.0));
        let (opts, _) = optimizations("image/jpeg", 100e3, 100e3, &hero, Some((2.0, 1.0)));
        assert_eq!(
            opts[0].display_dimensions,
            Some(Dimensions {
                width: 400.0,
                height: 225.0
            })
        );
        // Under 4096 bytes is not worth it.
        assert!(optimizations("image/jpeg", 5e3, 5e3, &plain, None)
            .0
            .is_empty());
    }
}
