//! Scenarios: the schema (serde, unknown fields rejected), units, profiles, and the builder
//! that validates a scenario and turns it into a runnable [`crate::engine::Simulation`].

pub mod advice;
mod apps;
mod arrivals;
pub mod build;
mod build_aqm;
mod build_atm;
mod build_sctp;
mod build_tcp;
pub mod describe;
pub mod error;
pub mod flow_sizes;
mod generate;
mod names;
pub mod profiles;
pub mod schema;
pub mod schema_atm;
pub mod schema_sctp;
mod topologies;
pub mod trace_budget;
mod traffic;
pub mod units;

pub use build::{build, parse};
pub use error::ScenarioError;
pub use schema::Scenario;
