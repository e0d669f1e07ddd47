//! The sampled-profile model.
