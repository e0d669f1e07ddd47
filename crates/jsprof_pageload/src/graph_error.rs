//! Why the engine has no Lantern graph for a navigation: [`GraphError`], apart from the graph
//! ([`super::dependency_graph`], which re-exports it) so that the requests it is built from
//! ([`super::lantern_requests`]) can fail with it without importing the graph.

/// Why the engine has no Lantern graph for a navigation (its `LanternError`s): its insights that
/// need one (the network dependency tree) come out empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphError {
    NoNavigation,
    NoRequests,
    TooOld,
    NoTopLevelEvents,
    RootNotFound,
    MainDocumentNotFound,
    SelfDependency,
    Cycle,
    MissingFcp,
    NoThroughput,
    MissingLcp,
}

impl GraphError {
    /// The engine's message.
    pub fn message(self) -> &'static str {
        match self {
            GraphError::NoNavigation => "Could not find navigation start",
            GraphError::NoRequests => "No network requests found in trace",
            GraphError::TooOld => "Trace is too old",
            GraphError::NoTopLevelEvents => "Could not find any top level events",
            GraphError::RootNotFound => "rootRequest not found",
            GraphError::MainDocumentNotFound => "mainDocumentRequest not found",
            GraphError::SelfDependency => "Cannot add dependency on itself",
            GraphError::Cycle => "Invalid dependency graph created, cycle detected",
            GraphError::MissingFcp => "missing metric: FCP",
            GraphError::NoThroughput => "no request to estimate the network's throughput from",
            GraphError::MissingLcp => "NO_LCP",
        }
    }
}
