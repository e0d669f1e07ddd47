//! Query parameters of every endpoint (the service's and the UI's): each known one at most
//! once (the filter patterns `focus` and `exclude` may repeat, as the CLI's flags do), an
//! unknown one refused by name, `token` ignored; numbers, flags, ranges and filters read with
//! messages that name the parameter. The filters are `jsprof_document::filters::FilterSpec`, the
//! one definition the CLI's flags fill too.

use std::collections::HashMap;

use jsprof_analysis::TimeRange;

use jsprof_document::filters::{self, FilterSpec};

use crate::error::{ApiError, ApiResult};
use crate::ids;

/// Query parameters: each at most once, only the known ones (and `token`).
pub struct Params {
    map: HashMap<String, String>,
    filters: FilterSpec,
}

impl Params {
    pub fn parse(raw: Option<String>, known: &[&str]) -> ApiResult<Params> {
        let mut pairs: Vec<(String, String)> =
            serde_urlencoded::from_str(raw.as_deref().unwrap_or(""))
                .map_err(|e| ApiError::bad_request(format!("bad query string: {e}")))?;
        let mut spec = FilterSpec::default();
        if filters::PARAMS.iter().any(|p| known.contains(p)) {
            spec = FilterSpec::from_pairs(pairs.clone())
                .map_err(|e| ApiError::bad_request(e.to_string()))?
                .0;
            // The repeatable patterns are taken; a repeated flag is still refused below.
            pairs.retain(|(k, _)| {
                !matches!(
                    k.as_str(),
                    "focus" | "exclude" | "drop" | "focus_stack" | "focus_stack_inverted"
                )
            });
        }
        let mut map = HashMap::new();
        for (k, v) in pairs {
            if k == "token" {
                continue;
            }
            if !known.contains(&k.as_str()) {
                return Err(ApiError::bad_request(format!(
                    "unknown parameter `{}`{}",
                    ids::printable(&k),
                    if known.is_empty() {
                        String::from(": this endpoint takes none")
                    } else {
                        format!(": expected {}", known.join(", "))
                    }
                )));
            }
            if map.insert(k.clone(), v).is_some() {
                return Err(ApiError::bad_request(format!(
                    "parameter `{k}` given twice"
                )));
            }
        }
        Ok(Params { map, filters: spec })
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        self.map.get(k).map(String::as_str)
    }

    pub fn number<T: std::str::FromStr>(&self, k: &str) -> ApiResult<Option<T>> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => v.trim().parse().map(Some).map_err(|_| {
                ApiError::bad_request(format!(
                    "bad `{k}` `{}`: expected a number",
                    ids::printable(v)
                ))
            }),
        }
    }

    pub fn flag(&self, k: &str) -> ApiResult<bool> {
        match self.get(k) {
            None => Ok(false),
            Some("" | "1" | "true") => Ok(true),
            Some("0" | "false") => Ok(false),
            Some(v) => Err(ApiError::bad_request(format!(
                "bad `{k}` `{}`: expected true or false",
                ids::printable(v)
            ))),
        }
    }

    /// `focus`, `exclude` (repeatable), `hide_idle`, `collapse_packages`, `collapse_recursion`.
    pub fn filters(&self) -> ApiResult<FilterSpec> {
        Ok(self.filters.clone())
    }

    /// `thread`, `range` and `samples`: the view of a CPU input (`jsprof top --thread
    /// --range --samples`).
    pub fn view_spec(&self) -> ApiResult<jsprof_document::load::ViewSpec> {
        Ok(jsprof_document::load::ViewSpec {
            thread: self.get("thread").map(str::to_string),
            range: self.time_range()?,
            samples: self.flag("samples")?,
        })
    }

    pub fn time_range(&self) -> ApiResult<Option<TimeRange>> {
        self.get("range")
            .map(|r| TimeRange::parse_ms(r).map_err(|e| ApiError::bad_request(e.to_string())))
            .transpose()
    }
}
