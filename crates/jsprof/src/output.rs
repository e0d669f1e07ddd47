//! Printing: JSON on stdout, aligned tables with units, warnings on stderr.

use std::io::{self, Write};

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
    let stderr = io::stderr();
    let mut err = stderr.lock();
    for (at, message) in warnings {
        if at.is_empty() {
            let _ = writeln!(err, "warning: {source}: {message}");
        } else {
            let _ = writeln!(err, "warning: {source}: at {at}: {message}");
        }
    }
}

/// Prints a loaded input's warnings on stderr (the human output's form of `"warnings"`).
pub fn warn(source: &str, warnings: &[jsprof_profile::Warning]) {
    print_warnings(
        source,
        warnings.iter().map(|w| (w.at.as_str(), w.message.as_str())),
    );
}

/// Runs `write` on a buffered, locked stdout and flushes it: the tail of every human output.
pub fn to_stdout(
    write: impl FnOnce(&mut io::BufWriter<io::StdoutLock<'static>>) -> io::Result<()>,
) -> anyhow::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    write(&mut out)?;
    out.flush()?;
    Ok(())
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
            headers: columns.iter().map(|(h, _)| h.to_string()).collect(),
            aligns: columns.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.headers.len());
        self.rows.push(cells);
    }

    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut widths: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        self.write_row(out, &self.headers, &widths)?;
        for row in &self.rows {
            self.write_row(out, row, &widths)?;
        }
        Ok(())
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

/// `123.4 ms`, `1.23 ms` below 10 ms, `12.34 s` from 10 s up.
pub fn fmt_ms(ms: f64) -> String {
    if ms.abs() >= 10_000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms.abs() >= 10.0 || ms == 0.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.2} ms")
    }
}

pub fn fmt_percent(p: f64) -> String {
    format!("{p:.1} %")
}

/// Bytes with a binary-prefixed unit: `512 B`, `12.3 KB`, `4.56 MB`, `1.23 GB` (1 KB = 1024 B).
pub fn fmt_bytes(bytes: f64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes.abs() < 1024.0 {
        return format!("{bytes:.0} B");
    }
    let mut value = bytes / 1024.0;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let digits = if value.abs() >= 100.0 {
        0
    } else if value.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.digits$} {}", UNITS[unit])
}

// The CLI's tables name and place functions exactly as the SVG views and the exports do.
pub use jsprof_profile::display::{display_name as display_function_name, fmt_location};
