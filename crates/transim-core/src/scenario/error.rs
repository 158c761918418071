//! The one error type for bad scenarios: the field path, and what was wrong with its value.

use std::fmt;

/// A scenario error: `path` names the field (e.g. `topology.bottleneck.rate`), `message` the
/// value found and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Dotted field path, with `[i]` for list elements; empty for the document root.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl ScenarioError {
    /// A new error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.path.is_empty() || self.path == "." {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}
