//! Dominators against a slow reference on random graphs.
