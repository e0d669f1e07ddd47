//! Query parameters of every endpoint (the service's and the UI's): each known one at most
//! once (the filter patterns `focus` and `exclude` may repeat, as the CLI's flags do), an
//! unknown one refused by name, `token` ignored; numbers, flags, ranges and filters read with
//! messages that name the parameter. The filters are `jsprof_document::filters::FilterSpec`, the
//! one definition the CLI's flags fill too.

use std::collections::HashMap;

use jsprof_document::filters::{self, FilterSpec};
use jsprof_document::query::{param_names, Query};
use serde_json::{Map, Value};

use crate::error::{ApiError, ApiResult};
use crate::ids;

/// What a route on one artifact (`…/sessions/{id}/artifacts/{artifact}`) is asked: the
/// service's state, the session and the artifact its path names, and its query string.
pub struct ArtifactRequest(
    pub std::sync::Arc<crate::state::AppState>,
    pub String,
    pub String,
    pub Option<String>,
);

impl axum::extract::FromRequestParts<std::sync::Arc<crate::state::AppState>> for ArtifactRequest {
    type Rejection = axum::extract::rejection::PathRejection;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &std::sync::Arc<crate::state::AppState>,
    ) -> Result<ArtifactRequest, Self::Rejection> {
        use axum::extract::Path;
        let Path((id, artifact)) =
            Path::<(String, String)>::from_request_parts(parts, state).await?;
        let query = parts.uri.query().map(str::to_string);
        Ok(ArtifactRequest(state.clone(), id, artifact, query))
    }
}

/// The extractor of a route that takes no query parameters: any but `token` is refused by name
/// (400), as [`Params::parse`] with none known.
pub struct NoParams;

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for NoParams {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> ApiResult<NoParams> {
        Params::parse(parts.uri.query().map(str::to_string), &[])?;
        Ok(NoParams)
    }
}

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

    /// The parameters a query type takes, as [`Params::parse`] knows them: its fields, its old
    /// spellings, and the filters when it takes them.
    pub fn known<Q: Query>() -> Vec<String> {
        let mut names = param_names::<Q>();
        if Q::FILTERED {
            names.extend(filters::PARAMS.iter().map(|p| p.to_string()));
        }
        names
    }

    /// The parameters of a route that answers query `Q` (`Q`'s names, and the filters when `Q`
    /// takes them, plus the `extra` names the route reads itself), and `Q` read from them.
    pub fn of_query<Q: Query>(raw: Option<String>, extra: &[&str]) -> ApiResult<(Params, Q)> {
        let mut known = Params::known::<Q>();
        known.extend(extra.iter().map(|k| k.to_string()));
        let params = Params::parse(raw, &known.iter().map(String::as_str).collect::<Vec<_>>())?;
        let query = params.query::<Q>()?;
        Ok((params, query))
    }

    /// The query `Q` from the parameters: each value read as its field's schema type says (a
    /// flag, a number, a list of comma-separated items or a text), then `Q`'s own parsers.
    pub fn query<Q: Query>(&self) -> ApiResult<Q> {
        let schema = serde_json::to_value(schemars::schema_for!(Q))
            .map_err(|e| ApiError::internal(format!("schema: {e}")))?;
        let mut object = Map::new();
        for (k, v) in &self.map {
            // An old spelling is read as the current name.
            let k = Q::ALIASES
                .iter()
                .find(|(old, _)| old == k)
                .map_or(k.as_str(), |(_, new)| new);
            if object.contains_key(k) {
                return Err(ApiError::bad_request(format!(
                    "parameter `{k}` given twice"
                )));
            }
            let types = &schema["properties"][k]["type"];
            let is = |t: &str| match types {
                Value::String(s) => s == t,
                Value::Array(a) => a.iter().any(|x| x == t),
                _ => false,
            };
            let value = if is("boolean") {
                Value::Bool(flag(k, v)?)
            } else if is("integer") {
                Value::from(number::<i64>(k, v)?)
            } else if is("number") {
                Value::from(number::<f64>(k, v)?)
            } else {
                Value::String(v.clone())
            };
            object.insert(k.to_string(), value);
        }
        serde_json::from_value(Value::Object(object))
            .map_err(|e| ApiError::bad_request(e.to_string()))
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        self.map.get(k).map(String::as_str)
    }

    pub fn number<T: std::str::FromStr>(&self, k: &str) -> ApiResult<Option<T>> {
        self.get(k).map(|v| number(k, v)).transpose()
    }

    pub fn flag(&self, k: &str) -> ApiResult<bool> {
        self.get(k).map_or(Ok(false), |v| flag(k, v))
    }

    /// `focus`, `exclude` (repeatable), `hide_idle`, `collapse_packages`, `collapse_recursion`.
    pub fn filters(&self) -> ApiResult<FilterSpec> {
        Ok(self.filters.clone())
    }
}

/// Parameter `k`'s value `v` as a number.
fn number<T: std::str::FromStr>(k: &str, v: &str) -> ApiResult<T> {
    v.trim().parse().map_err(|_| {
        ApiError::bad_request(format!(
            "bad `{k}` `{}`: expected a number",
            ids::printable(v)
        ))
    })
}

/// Parameter `k`'s value `v` as a flag (present and empty is true).
fn flag(k: &str, v: &str) -> ApiResult<bool> {
    match v {
        "" | "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        v => Err(ApiError::bad_request(format!(
            "bad `{k}` `{}`: expected true or false",
            ids::printable(v)
        ))),
    }
}
