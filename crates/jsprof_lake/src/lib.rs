//! The profile lake.
