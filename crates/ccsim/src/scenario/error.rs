//! Scenario errors that name the exact path of the offending value.
//! The path is carried through tagged tables by `config::de`.

use std::fmt;

use crate::config::de::split_marker;

/// A scenario that failed to parse or validate: `path` names the value (e.g. `flows[2].tcp.recovery`),
/// `message` says what is wrong and what is accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }

    pub(crate) fn from_path_error(e: serde_path_to_error::Error<serde_json::Error>) -> Self {
        let outer = e.path().to_string();
        let msg = e.into_inner().to_string();
        let (path, message) = split_marker(&outer, &msg);
        // serde_json appends " at line L column C"; the path already locates the value.
        let message = match message.rfind(" at line ") {
            Some(i) if message[i..].contains(" column ") => message[..i].to_string(),
            _ => message,
        };
        ScenarioError { path, message }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}
