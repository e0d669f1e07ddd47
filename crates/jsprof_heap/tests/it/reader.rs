//! Reader tests.
