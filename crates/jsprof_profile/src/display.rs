//! How a function is named and placed for people: the one answer to "what do we call a function
//! with no name" and "how do we write where it is", shared by the CLI's tables, the SVG views and
//! the exporters so that a frame reads the same everywhere.
//!
//! ```
//! use jsprof_profile::display::{display_name, fmt_location};
//! assert_eq!(display_name(""), "(anonymous)");
//! assert_eq!(fmt_location("app.js", Some(3), Some(7)), "app.js:3:7");
//! assert_eq!(fmt_location("app.js", None, Some(7)), "app.js");
//! ```

use std::fmt::Write as _;

/// What DevTools calls a function whose name is empty.
pub const ANONYMOUS: &str = "(anonymous)";

/// `name`, or [`ANONYMOUS`] when it is empty.
pub fn display_name(name: &str) -> &str {
    if name.is_empty() {
        ANONYMOUS
    } else {
        name
    }
}

/// `url:line:column` with 1-based positions. Unknown parts are left out, and a column is only
/// written after a line, since a column alone locates nothing.
pub fn fmt_location(url: &str, line: Option<u32>, column: Option<u32>) -> String {
    let mut s = String::with_capacity(url.len() + 12);
    s.push_str(url);
    if let Some(line) = line {
        // Writing into a String cannot fail.
        let _ = write!(s, ":{line}");
        if let Some(column) = column {
            let _ = write!(s, ":{column}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_nameless() {
        assert_eq!(display_name(""), "(anonymous)");
        assert_eq!(display_name("main"), "main");
        // A name that is only blanks is a name: DevTools shows it as is.
        assert_eq!(display_name(" "), " ");
    }

    #[test]
    fn locations() {
        assert_eq!(fmt_location("a.js", Some(1), Some(2)), "a.js:1:2");
        assert_eq!(fmt_location("a.js", Some(1), None), "a.js:1");
        assert_eq!(fmt_location("a.js", None, None), "a.js");
        assert_eq!(fmt_location("", Some(4), Some(5)), ":4:5");
    }
}
