//! Scenarios: the schema (serde, unknown fields rejected), units, profiles, and the builder
//! that validates a scenario and turns it into a runnable [`crate::engine::Simulation`].

pub mod build;
pub mod error;
pub mod profiles;
pub mod schema;
pub mod units;

pub use build::{build, parse};
pub use error::ScenarioError;
pub use schema::Scenario;
