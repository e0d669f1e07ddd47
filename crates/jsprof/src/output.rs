//! Printing: JSON on stdout, aligned tables with units, warnings on stderr.
//!
//! Tables fit a width so that a long name (V8's `RegExp: …` frames, minified closures) cannot push
//! the Location column off screen: the widest text columns are shortened with `…`. The width is,
//! in order: none with `--wide`; `COLUMNS` when set to a number; the terminal's when stdout is
//! one; otherwise none, so a pipe (`| grep`, `> file`) gets every name whole. JSON is never cut.
//!
//! Human text goes to stdout through [`text_stdout`] (or [`to_stdout`]): a function name, URL or
//! label holding ESC, CR, a bidi override or another control character is shown escaped
//! (`jsprof_render::terminal`), so the input cannot drive the terminal; a table cell's line break
//! is escaped too ([`Table::row`]), so a name cannot forge a row. JSON keeps every string exact.

use std::io::{self, IsTerminal, Write};
use std::sync::OnceLock;

use jsprof_render::terminal::{self, TerminalWriter};
use serde::Serialize;

/// Writes one JSON object and a newline to stdout.
pub fn print_json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    serde_json::to_writer(&mut out, value)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

pub use jsprof_document::JsonWarning;

/// Prints warnings on stderr for human output.
pub fn print_warnings<'a>(source: &str, warnings: impl IntoIterator<Item = (&'a str, &'a str)>) {
    // A warning quotes the input (names, JSON paths): one line each, shown escaped.
    let mut err = io::BufWriter::new(TerminalWriter::new(io::stderr().lock()));
    for (at, message) in warnings {
        let (source, at, message) = (shown(source), shown(at), shown(message));
        if at.is_empty() {
            let _ = writeln!(err, "warning: {source}: {message}");
        } else {
            let _ = writeln!(err, "warning: {source}: at {at}: {message}");
        }
    }
    let _ = err.flush();
}

/// A warning of a profile, a snapshot or a document: where it is, and what it says.
pub trait Warned {
    fn at(&self) -> &str;
    fn message(&self) -> &str;
}

macro_rules! warned {
    ($($t:ty),*) => {$(
        impl Warned for $t {
            fn at(&self) -> &str {
                &self.at
            }
            fn message(&self) -> &str {
                &self.message
            }
        }
    )*};
}
warned!(jsprof_profile::Warning, jsprof_heap::Warning, JsonWarning);

/// Prints an input's or a document's warnings on stderr (the human output's form of
/// `"warnings"`), each under `source`.
pub fn warn<W: Warned>(source: &str, warnings: &[W]) {
    print_warnings(source, warnings.iter().map(|w| (w.at(), w.message())));
}

/// `text` (a name, a URL, a label from the input) as a line of human output shows it: control
/// characters, line breaks among them, escaped.
pub fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    terminal::escape(text)
}

/// Stdout for human text: buffered, locked, every control character but the line breaks shown
/// escaped. Flush it at the end (a character cut between two writes is held until then).
pub type TextOut = io::BufWriter<TerminalWriter<io::StdoutLock<'static>>>;

/// The one stdout of human text output (see the module's documentation).
pub fn text_stdout() -> TextOut {
    io::BufWriter::new(TerminalWriter::new(io::stdout().lock()))
}

/// Runs `write` on [`text_stdout`] and flushes it: the tail of every human output.
pub fn to_stdout(write: impl FnOnce(&mut TextOut) -> io::Result<()>) -> anyhow::Result<()> {
    let mut out = text_stdout();
    write(&mut out)?;
    out.flush()?;
    Ok(())
}

/// The tail of every document command: with `--json` the document on stdout; else `text` writes it
/// for people (its warnings on stderr, its text through [`to_stdout`]).
pub fn emit<D: Serialize>(
    json: bool,
    doc: &D,
    text: impl FnOnce(&mut TextOut) -> io::Result<()>,
) -> anyhow::Result<std::process::ExitCode> {
    if json {
        print_json(doc)?;
    } else {
        to_stdout(text)?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// The line under a table that `--limit` cut, when it left rows out: `… 12 {more}`, `more`
/// saying what and how to see them.
pub fn write_more(out: &mut impl Write, left_out: usize, more: &str) -> io::Result<()> {
    match left_out {
        0 => Ok(()),
        n => writeln!(out, "… {n} {more}"),
    }
}

/// A `--limit` where 0 means all.
pub fn limit_or_all(limit: usize) -> usize {
    if limit == 0 {
        usize::MAX
    } else {
        limit
    }
}

/// The table `top`, `tree` and `summary` print: self and total with their shares of `total`,
/// then the function and its location.
pub struct WeightTable {
    table: Table,
    bytes: bool,
    total: i64,
}

impl WeightTable {
    pub fn new(unit: jsprof_profile::WeightUnit, total: i64) -> WeightTable {
        WeightTable {
            table: Table::new(&[
                ("Self", Align::Right),
                ("Self %", Align::Right),
                ("Total", Align::Right),
                ("Total %", Align::Right),
                ("Function", Align::Left),
                ("Location", Align::Left),
            ]),
            bytes: unit == jsprof_profile::WeightUnit::Bytes,
            total,
        }
    }

    fn weight(&self, w: i64) -> String {
        if self.bytes {
            fmt_bytes(w as f64)
        } else {
            fmt_ms(jsprof_profile::ns_to_ms(w))
        }
    }

    fn share(&self, w: i64) -> String {
        fmt_percent(if self.total > 0 {
            w as f64 * 100.0 / self.total as f64
        } else {
            0.0
        })
    }

    pub fn row(&mut self, self_weight: i64, total_weight: i64, function: String, location: String) {
        let cells = vec![
            self.weight(self_weight),
            self.share(self_weight),
            self.weight(total_weight),
            self.share(total_weight),
            function,
            location,
        ];
        self.table.row(cells);
    }

    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        self.table.write(out)
    }
}

/// True when the error chain holds a closed-pipe write (`jsprof top x | head`): not an error.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|e| e.io_error_kind() == Some(io::ErrorKind::BrokenPipe))
    })
}

/// The width tables must fit (`None`: no limit), fixed once by [`set_table_width`].
static TABLE_WIDTH: OnceLock<Option<usize>> = OnceLock::new();

/// Fixes the tables' width for this run from `--wide`, `COLUMNS` and the terminal (see the
/// module's documentation). Called once by `main` before any command prints.
pub fn set_table_width(wide: bool) {
    let width = if wide {
        None
    } else if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
    {
        Some(columns)
    } else if io::stdout().is_terminal() {
        terminal_size::terminal_size().map(|(w, _)| usize::from(w.0))
    } else {
        None
    };
    let _ = TABLE_WIDTH.set(width);
}

fn table_width() -> Option<usize> {
    TABLE_WIDTH.get().copied().flatten()
}

/// The narrowest a text column is cut to: below this a name stops being recognisable, and a
/// line a little wider than the terminal beats a table of `…`.
const MIN_TEXT_WIDTH: usize = 16;

/// Column alignment in a [`Table`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A plain text table: a header row and aligned columns, two spaces apart.
pub struct Table {
    headers: Vec<String>,
    aligns: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(columns: &[(&str, Align)]) -> Table {
        Table {
            headers: columns
                .iter()
                .map(|(h, _)| terminal::escape(h).into_owned())
                .collect(),
            aligns: columns.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row; a cell's control characters (a line break, a tab, ESC) are shown escaped,
    /// so that a cell is one cell of one line whatever the input's names hold.
    pub fn row(&mut self, mut cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.headers.len());
        for cell in &mut cells {
            if let std::borrow::Cow::Owned(shown) = terminal::escape(cell) {
                *cell = shown;
            }
        }
        self.rows.push(cells);
    }

    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        self.write_within(out, table_width())
    }

    /// Writes the table within `max_width` characters a line where it can (`None`: no limit).
    fn write_within(&self, out: &mut impl Write, max_width: Option<usize>) -> io::Result<()> {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        if let Some(max_width) = max_width {
            self.shrink(&mut widths, max_width);
        }
        self.write_row(out, &self.headers, &widths)?;
        for row in &self.rows {
            self.write_row(out, row, &widths)?;
        }
        Ok(())
    }

    /// Narrows the text (left-aligned) columns until a line fits `max_width`: names before
    /// locations (a location cut at its start still says where), and among those the widest
    /// first. Numbers are never cut; no column goes below its header or [`MIN_TEXT_WIDTH`].
    fn shrink(&self, widths: &mut [usize], max_width: usize) {
        let gaps = 2 * widths.len().saturating_sub(1);
        let floor = |i: usize| self.headers[i].chars().count().max(MIN_TEXT_WIDTH);
        let mut total: usize = widths.iter().sum::<usize>() + gaps;
        while total > max_width {
            let widest = (0..widths.len())
                .filter(|&i| self.aligns[i] == Align::Left && widths[i] > floor(i))
                .max_by_key(|&i| (!self.keeps_end(i), widths[i], std::cmp::Reverse(i)));
            let Some(i) = widest else { break };
            widths[i] -= 1;
            total -= 1;
        }
    }

    fn write_row(
        &self,
        out: &mut impl Write,
        cells: &[String],
        widths: &[usize],
    ) -> io::Result<()> {
        let mut line = String::new();
        let last = cells.len().saturating_sub(1);
        for (i, cell) in cells.iter().enumerate() {
            let cell = &elide(cell, widths[i], self.keeps_end(i));
            let pad = widths[i].saturating_sub(cell.chars().count());
            if i > 0 {
                line.push_str("  ");
            }
            match self.aligns[i] {
                Align::Right => {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(cell);
                }
                Align::Left => {
                    line.push_str(cell);
                    if i != last {
                        line.extend(std::iter::repeat_n(' ', pad));
                    }
                }
            }
        }
        writeln!(out, "{}", line.trim_end())
    }
}

/// A [`Table`] given column by column: each column's header, alignment and cell (computed from a
/// row) side by side, so that a header cannot drift from its cells. Start with [`columns`].
pub struct Columns<'a, T> {
    rows: Vec<T>,
    columns: Vec<Column<'a, T>>,
}

/// A column of [`Columns`]: its header, its alignment and how a row makes its cell.
type Column<'a, T> = (&'a str, Align, Box<dyn Fn(&T) -> String + 'a>);

/// The table of `rows` (in this order), to be given its columns.
pub fn columns<'a, T>(rows: impl IntoIterator<Item = T>) -> Columns<'a, T> {
    Columns {
        rows: rows.into_iter().collect(),
        columns: Vec::new(),
    }
}

impl<'a, T> Columns<'a, T> {
    /// A text column, left-aligned (cut with `…` when the table must fit a width).
    pub fn left(mut self, header: &'a str, cell: impl Fn(&T) -> String + 'a) -> Self {
        self.columns.push((header, Align::Left, Box::new(cell)));
        self
    }

    /// A text column, left-aligned, that is left out when every row's cell is empty (a place
    /// only some inputs have: no column of blanks for the others).
    pub fn left_unless_empty(self, header: &'a str, cell: impl Fn(&T) -> String + 'a) -> Self {
        if self.rows.iter().all(|r| cell(r).is_empty()) {
            return self;
        }
        self.left(header, cell)
    }

    /// A number column, right-aligned (never cut).
    pub fn right(mut self, header: &'a str, cell: impl Fn(&T) -> String + 'a) -> Self {
        self.columns.push((header, Align::Right, Box::new(cell)));
        self
    }

    /// The Function and Location columns of a table of functions, named and placed as every table
    /// and view shows them; `at` gives a row's function: its name, URL, line and column.
    pub fn function(
        self,
        at: impl Fn(&T) -> (&str, &str, Option<u32>, Option<u32>) + Copy + 'a,
    ) -> Self {
        self.left("Function", move |r| {
            display_function_name(at(r).0).to_string()
        })
        .left("Location", move |r| {
            let (_, url, line, column) = at(r);
            fmt_location(url, line, column)
        })
    }

    /// The table, every row's cells made.
    pub fn table(&self) -> Table {
        let heads: Vec<(&str, Align)> = self.columns.iter().map(|(h, a, _)| (*h, *a)).collect();
        let mut table = Table::new(&heads);
        for row in &self.rows {
            table.row(self.columns.iter().map(|(_, _, cell)| cell(row)).collect());
        }
        table
    }

    /// Writes the table ([`Table::write`]).
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        self.table().write(out)
    }
}

impl Table {
    /// Whether column `i` is cut at its start: a location's file, line and column are at its end,
    /// and what tells a request's URL from its neighbours' (same origin) is its path's end.
    fn keeps_end(&self, i: usize) -> bool {
        matches!(self.headers[i].as_ref(), "Location" | "url")
    }
}

/// `text` in at most `width` characters: whole when it fits, else cut with `…` at its end (or at
/// its start with `keep_end`).
fn elide(text: &str, width: usize, keep_end: bool) -> std::borrow::Cow<'_, str> {
    let len = text.chars().count();
    if len <= width {
        return text.into();
    }
    let keep = width.saturating_sub(1);
    if keep_end {
        let tail: String = text.chars().skip(len - keep).collect();
        format!("…{tail}").into()
    } else {
        let head: String = text.chars().take(keep).collect();
        format!("{head}…").into()
    }
}

/// A duration as every door's text writes it (`jsprof_document::units`).
pub use jsprof_document::units::fmt_ms;

/// A page-load metric as the tables head its row: `lcp_ms` → `lcp`, `long_tasks` → `long tasks`.
pub use jsprof_document::page_runs::metric_label as metric_name;

pub fn fmt_percent(p: f64) -> String {
    format!("{p:.1} %")
}

/// Bytes with a binary-prefixed unit (1 KB = 1024 B): the one formatter, shared with MCP.
pub use jsprof_document::units::fmt_bytes;

// The CLI's tables name and place functions exactly as the SVG views and the exports do.
pub use jsprof_profile::display::{display_name as display_function_name, fmt_location};

#[cfg(test)]
mod tests {
    use super::*;

    fn render(table: &Table, width: Option<usize>) -> String {
        let mut out = Vec::new();
        table.write_within(&mut out, width).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn functions() -> Table {
        let mut table = Table::new(&[
            ("Self", Align::Right),
            ("Function", Align::Left),
            ("Location", Align::Left),
        ]);
        table.row(vec![
            "1.0 ms".into(),
            format!("RegExp: {}", "(a|b)".repeat(40)),
            "https://example.com/static/js/app.js:12:3".into(),
        ]);
        table.row(vec![
            "2.0 ms".into(),
            "main".into(),
            "file:///a.js:1:1".into(),
        ]);
        table
    }

    #[test]
    fn a_long_name_gives_way_so_the_location_stays_on_screen() {
        let text = render(&functions(), Some(80));
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line:?} is wider than 80");
        }
        let first = text.lines().nth(1).unwrap();
        assert!(first.contains("RegExp: (a|b)"), "{first}");
        assert!(first.contains("…"), "{first}");
        assert!(
            first.ends_with("https://example.com/static/js/app.js:12:3"),
            "{first}"
        );
        // Columns still line up: every Location starts at the same character.
        let at = |line: &str, needle: &str| {
            line.chars().count() - line[line.find(needle).unwrap()..].chars().count()
        };
        assert_eq!(
            at(first, "https://"),
            at(text.lines().nth(2).unwrap(), "file:///")
        );
    }

    #[test]
    fn without_a_width_names_print_whole() {
        let text = render(&functions(), None);
        assert!(text.contains(&"(a|b)".repeat(40)));
        assert!(!text.contains('…'));
    }

    #[test]
    fn a_location_is_cut_at_its_start_when_names_alone_cannot_make_room() {
        let text = render(&functions(), Some(50));
        let first = text.lines().nth(1).unwrap();
        assert!(first.ends_with("app.js:12:3"), "{first}");
        assert!(first.contains("…"), "{first}");
        assert!(first.chars().count() <= 50, "{first}");
    }

    #[test]
    fn numbers_and_headers_are_never_cut() {
        // Narrower than the numbers and floors allow: the table overflows rather than lose digits.
        let text = render(&functions(), Some(10));
        assert!(text.lines().nth(1).unwrap().starts_with("1.0 ms"));
        assert!(text.lines().next().unwrap().contains("Function"));
        assert!(text.lines().next().unwrap().contains("Location"));
    }
}
