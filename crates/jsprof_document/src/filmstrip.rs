//! The filmstrip of a trace: when each `Screenshot` was taken ([`FilmstripDoc`]) and, one at a
//! time, its image ([`ScreenshotJson`]). Apart from the insights document because the images
//! are most of a page-load trace's bytes: the UI lists the frames first and fetches (or, in a
//! report, reads) an image only when it is drawn or hovered.

use schemars::JsonSchema;
use serde::Serialize;

use jsprof_profile::page_events::Screenshot;
use jsprof_profile::TraceFile;

use crate::load::CpuInput;
use crate::{ms, ReportError, Result};

/// One screenshot of the filmstrip.
#[derive(Serialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct FrameJson {
    /// Its place in time order: the `INDEX` of `…/filmstrip/INDEX`.
    pub index: usize,
    /// When it was taken (ms from the trace's origin, as every page document).
    pub ts_ms: f64,
    /// Whether its image could be read (a broken base64 `args.snapshot` has none).
    pub image: bool,
}

/// The screenshots of a trace, in time order (the order `jsprof insights` counts them in).
#[derive(Serialize, JsonSchema, Clone, Debug)]
pub struct FilmstripDoc {
    pub kind: &'static str,
    pub frames: Vec<FrameJson>,
}

/// One screenshot's image.
#[derive(Serialize, JsonSchema, Clone, Debug)]
pub struct ScreenshotJson {
    pub index: usize,
    pub ts_ms: f64,
    /// `image/jpeg` (what Chrome records) or `image/png`.
    pub mime: &'static str,
    /// The image, base64 as the trace holds it.
    pub data: String,
}

fn trace_of(input: &CpuInput) -> Result<&TraceFile> {
    input.trace().ok_or_else(|| {
        ReportError::Input(format!(
            "{}: not a Chrome trace; screenshots are read from a Performance-panel trace",
            input.name
        ))
    })
}

/// The screenshots in time order; ties keep the file's order (a stable sort, as the page story
/// sorts them).
pub fn frames(trace: &TraceFile) -> Vec<&Screenshot> {
    let mut shots: Vec<&Screenshot> = trace.page.screenshots.iter().collect();
    shots.sort_by_key(|s| s.at.ts);
    shots
}

/// The filmstrip document of a trace.
pub fn filmstrip(input: &CpuInput) -> Result<FilmstripDoc> {
    let trace = trace_of(input)?;
    let origin = trace.origin();
    Ok(FilmstripDoc {
        kind: input.profile().kind.as_str(),
        frames: frames(trace)
            .iter()
            .enumerate()
            .map(|(index, s)| FrameJson {
                index,
                ts_ms: ms(s.at.ts - origin),
                image: s.image.is_some(),
            })
            .collect(),
    })
}

/// The image of screenshot `index` (in [`filmstrip`]'s order).
pub fn screenshot(input: &CpuInput, index: usize) -> Result<ScreenshotJson> {
    let trace = trace_of(input)?;
    let shots = frames(trace);
    let shot = shots.get(index).ok_or_else(|| {
        ReportError::NotFound(format!(
            "{}: no screenshot {index} (the trace has {})",
            input.name,
            shots.len()
        ))
    })?;
    let data = shot.image.clone().ok_or_else(|| {
        ReportError::NotFound(format!(
            "{}: screenshot {index} has no readable image (broken base64)",
            input.name
        ))
    })?;
    Ok(ScreenshotJson {
        index,
        ts_ms: ms(shot.at.ts - trace.origin()),
        mime: mime_of(&data),
        data,
    })
}

/// The image type by its first bytes (`iVBORw0K` is PNG's signature in base64).
fn mime_of(base64: &str) -> &'static str {
    if base64.starts_with("iVBORw0K") {
        "image/png"
    } else {
        "image/jpeg"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_and_jpeg_are_told_apart() {
        assert_eq!(mime_of("iVBORw0KGgoAAAANSUhEUg"), "image/png");
        assert_eq!(mime_of("/9j/4AAQSkZJRgABAQ"), "image/jpeg");
    }
}
