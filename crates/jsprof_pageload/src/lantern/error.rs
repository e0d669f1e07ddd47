//! Why the engine has no Lantern context for a navigation, with the engine's messages.

use crate::graph_error::GraphError;

/// Why the engine has no Lantern context for a navigation.
#[derive(Clone, Debug, PartialEq)]
pub enum LanternError {
    /// The dependency graph, or what the engine checks beside it.
    Graph(GraphError),
    InvalidRtt(f64),
    InvalidThroughput(f64),
    /// Every request to the origin went over a reused connection.
    NoConnection(String),
    /// A failure inside a simulation, with the engine's message.
    Simulation(&'static str),
}

impl LanternError {
    /// The engine's message.
    pub fn message(&self) -> String {
        match self {
            LanternError::Graph(g) => g.message().to_string(),
            LanternError::InvalidRtt(v) => format!("Invalid rtt {}", js_number(*v)),
            LanternError::InvalidThroughput(v) => format!("Invalid throughput {}", js_number(*v)),
            LanternError::NoConnection(o) => format!("Could not find a connection for origin: {o}"),
            LanternError::Simulation(m) => m.to_string(),
        }
    }
}

/// A non-finite number as JavaScript prints it.
fn js_number(v: f64) -> String {
    match v {
        v if v.is_nan() => "NaN".to_string(),
        f64::INFINITY => "Infinity".to_string(),
        f64::NEG_INFINITY => "-Infinity".to_string(),
        v => v.to_string(),
    }
}

impl From<GraphError> for LanternError {
    fn from(e: GraphError) -> Self {
        LanternError::Graph(e)
    }
}
