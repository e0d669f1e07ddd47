//! `--where`: which profiles a query reads.
//!
//! The grammar (`docs/lake.md`): a selection is terms joined by AND; each `--where` argument
//! holds one or more terms separated by `,`.
//!
//! ```text
//! term  := KEY=VALUE[|VALUE…]   the label (or column) equals one of the values
//!        | KEY!=VALUE           the label is absent or differs
//!        | since=TIME | until=TIME   start time (else the time it was added) ≥ / < TIME
//! KEY   := a label name; `kind`, `thread`, `source_name`, `profile_id` and `weight_unit` name
//!          the profiles table's columns
//! TIME  := YYYY-MM-DD (UTC midnight) | RFC 3339 (2026-11-23T12:00:00Z)
//! ```
//!
//! Terms become a SQL predicate over `profiles` with every value quoted as a string literal (no
//! user text is ever spliced into SQL unquoted), and prune partition directories: `day=` by
//! since/until, the partition label by its values.

use crate::{LakeError, Result};

pub(crate) const COLUMNS: [&str; 5] =
    ["kind", "thread", "source_name", "profile_id", "weight_unit"];

#[derive(Clone, Debug, PartialEq, Eq)]
enum Term {
    In(String, Vec<String>),
    Not(String, String),
}

/// A parsed selection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    terms: Vec<Term>,
    /// µs since the epoch, inclusive.
    pub since_us: Option<i64>,
    /// µs since the epoch, exclusive.
    pub until_us: Option<i64>,
}

/// Parses a time: a UTC day or RFC 3339.
pub fn parse_time(text: &str) -> Result<i64> {
    let text = text.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(t.timestamp_micros());
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(d
            .and_hms_opt(0, 0, 0)
            .expect("midnight exists")
            .and_utc()
            .timestamp_micros());
    }
    Err(LakeError::Usage(format!(
        "`{text}`: expected a day (2026-11-23) or an RFC 3339 time (2026-11-23T12:00:00Z)"
    )))
}

fn check_key(key: &str, term: &str) -> Result<()> {
    if !crate::layout::is_label_name(key) {
        return Err(LakeError::Usage(format!(
            "--where `{term}`: `{key}` is not a label name (letters, digits, `_`, `-`, `.`)"
        )));
    }
    Ok(())
}

/// A string as a SQL literal.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

impl Selection {
    /// Parses `--where` arguments (each may hold several terms separated by `,`) and the
    /// `--since`/`--until` options.
    pub fn parse(wheres: &[String], since: Option<&str>, until: Option<&str>) -> Result<Selection> {
        let mut sel = Selection::default();
        for arg in wheres {
            for term in arg.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                sel.add_term(term)?;
            }
        }
        if let Some(s) = since {
            sel.since_us = Some(parse_time(s)?);
        }
        if let Some(u) = until {
            sel.until_us = Some(parse_time(u)?);
        }
        Ok(sel)
    }

    fn add_term(&mut self, term: &str) -> Result<()> {
        if let Some((k, v)) = term.split_once("!=") {
            let k = k.trim();
            check_key(k, term)?;
            self.terms.push(Term::Not(k.into(), v.trim().into()));
            return Ok(());
        }
        let Some((k, v)) = term.split_once('=') else {
            return Err(LakeError::Usage(format!(
                "--where `{term}`: expected NAME=VALUE, NAME=V1|V2, NAME!=VALUE, since=TIME or \
                 until=TIME"
            )));
        };
        let (k, v) = (k.trim(), v.trim());
        match k {
            "since" => self.since_us = Some(parse_time(v)?),
            "until" => self.until_us = Some(parse_time(v)?),
            _ => {
                check_key(k, term)?;
                let values = v.split('|').map(|s| s.trim().to_string()).collect();
                self.terms.push(Term::In(k.into(), values));
            }
        }
        Ok(())
    }

    /// Adds `weight_unit = unit` (queries never add microseconds to bytes).
    pub fn with_unit(mut self, unit: &str) -> Selection {
        self.terms
            .push(Term::In("weight_unit".into(), vec![unit.to_string()]));
        self
    }

    /// Whether anything is selected beyond "every profile".
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.since_us.is_none() && self.until_us.is_none()
    }

    /// The SQL predicate over `profiles` (columns unqualified, or prefixed with `alias.`).
    pub fn predicate(&self, alias: &str) -> String {
        let a = if alias.is_empty() {
            String::new()
        } else {
            format!("{alias}.")
        };
        let field = |k: &str| {
            if COLUMNS.contains(&k) {
                format!("{a}{k}")
            } else {
                format!("{a}labels[{}]", quote(k))
            }
        };
        let mut parts: Vec<String> = Vec::new();
        for t in &self.terms {
            match t {
                Term::In(k, vs) => {
                    let list: Vec<String> = vs.iter().map(|v| quote(v)).collect();
                    parts.push(format!("{} IN ({})", field(k), list.join(", ")));
                }
                Term::Not(k, v) => {
                    let f = field(k);
                    parts.push(format!("({f} IS NULL OR {f} <> {})", quote(v)));
                }
            }
        }
        let time = format!("CAST(coalesce({a}start_time, {a}added_at) AS BIGINT)");
        if let Some(s) = self.since_us {
            parts.push(format!("{time} >= {s}"));
        }
        if let Some(u) = self.until_us {
            parts.push(format!("{time} < {u}"));
        }
        if parts.is_empty() {
            "TRUE".into()
        } else {
            parts.join(" AND ")
        }
    }

    /// Whether a partition directory may hold selected profiles: its day against since/until
    /// (a profile without a start time sits in the day it was added, which is also the time the
    /// predicate falls back to), its partition label against the label's terms.
    pub fn keeps_partition(&self, day: Option<&str>, label: Option<(&str, &str)>) -> bool {
        if let Some(day) = day.and_then(|d| parse_time(d).ok()) {
            const DAY_US: i64 = 86_400_000_000;
            if self.until_us.is_some_and(|u| day >= u) {
                return false;
            }
            if self.since_us.is_some_and(|s| day + DAY_US <= s) {
                return false;
            }
        }
        if let Some((key, encoded)) = label {
            for t in &self.terms {
                match t {
                    Term::In(k, vs) if k == key => {
                        let hit = vs.iter().any(|v| {
                            crate::layout::encode_partition_value(v) == encoded
                                || (v.is_empty() && encoded == "_")
                        });
                        if !hit {
                            return false;
                        }
                    }
                    // `k!=v` keeps the directory of v too: an absent label is also `_`.
                    _ => {}
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_become_quoted_predicates() {
        let sel = Selection::parse(&["version=1.2|1.3,page!=/it's".into()], None, None).unwrap();
        assert_eq!(
            sel.predicate("p"),
            "p.labels['version'] IN ('1.2', '1.3') AND (p.labels['page'] IS NULL OR \
             p.labels['page'] <> '/it''s')"
        );
        let sel = Selection::parse(&["kind=trace".into()], Some("2026-01-02"), None).unwrap();
        assert_eq!(
            sel.predicate(""),
            "kind IN ('trace') AND CAST(coalesce(start_time, added_at) AS BIGINT) >= \
             1767312000000000"
        );
    }

    #[test]
    fn bad_terms_are_refused() {
        for bad in ["version", "x y=1", "since=yesterday", "=1"] {
            let err = Selection::parse(&[bad.into()], None, None).unwrap_err();
            assert!(err.to_string().contains("--where") || err.to_string().contains("expected"));
        }
    }

    #[test]
    fn partitions_are_pruned_by_day_and_label() {
        let sel = Selection::parse(
            &["service=a b".into()],
            Some("2026-01-02"),
            Some("2026-01-03T12:00:00Z"),
        )
        .unwrap();
        assert!(!sel.keeps_partition(Some("2026-01-01"), None));
        assert!(sel.keeps_partition(Some("2026-01-02"), None));
        assert!(sel.keeps_partition(Some("2026-01-03"), None));
        assert!(!sel.keeps_partition(Some("2026-01-04"), None));
        assert!(sel.keeps_partition(None, Some(("service", "a%20b"))));
        assert!(!sel.keeps_partition(None, Some(("service", "c"))));
        assert!(sel.keeps_partition(None, Some(("other", "c"))));
    }
}
