//! Identifiers: random session ids and tokens, and the validation every id from a request goes
//! through. Ids are looked up in the catalogue, never joined into a path.

use crate::error::ApiError;

/// `n` random bytes as lowercase hex.
pub fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new session id: 16 hex digits.
pub fn new_session_id() -> String {
    random_hex(8)
}

/// A session id from a request: 16 lowercase hex digits, nothing else.
pub fn session_id(text: &str) -> Result<&str, ApiError> {
    if text.len() == 16
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        Ok(text)
    } else {
        Err(ApiError::bad_request(format!(
            "bad session id `{}`: expected 16 hex digits",
            printable(text)
        )))
    }
}

/// A number from a request path (artifact, timeline, node ids).
pub fn number(what: &str, text: &str) -> Result<u32, ApiError> {
    if !text.is_empty() && text.len() <= 10 && text.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(n) = text.parse::<u32>() {
            return Ok(n);
        }
    }
    Err(ApiError::bad_request(format!(
        "bad {what} `{}`: expected a number",
        printable(text)
    )))
}

/// At most 64 characters of `text` with control characters escaped, for messages.
pub fn printable(text: &str) -> String {
    text.chars()
        .take(64)
        .flat_map(char::escape_default)
        .collect()
}

/// Compares two tokens in time independent of where they differ.
pub fn same_token(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_hex_only() {
        assert!(session_id("0123456789abcdef").is_ok());
        for bad in [
            "../../etc/passwd",
            "0123456789ABCDEF",
            "",
            "0123456789abcde",
            "..%2f",
            "a/b",
        ] {
            assert!(session_id(bad).is_err(), "{bad}");
        }
        assert_eq!(new_session_id().len(), 16);
        assert!(session_id(&new_session_id()).is_ok());
    }

    #[test]
    fn numbers_and_tokens() {
        assert_eq!(number("node id", "42").unwrap(), 42);
        assert!(number("node id", "-1").is_err());
        assert!(number("node id", "99999999999").is_err());
        assert!(number("node id", "1/../2").is_err());
        assert!(same_token("abc", "abc"));
        assert!(!same_token("abc", "abd"));
        assert!(!same_token("abc", "ab"));
    }
}
