//! `[simulation]`: how long the run lasts, its seed and the time-series sampling interval.

use super::values::{Dur, R};
use super::{p, Ctx, DEFAULT_SEED};
use schemars::JsonSchema;
use serde::Deserialize;
use tcplab_time::SimDuration;

/// `[simulation]` as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSimulation {
    /// The run stops at this simulated time even if flows are unfinished. Values: duration, > 0.
    pub duration: Dur,
    /// Default RNG seed (loss models); the CLI `--seed` takes precedence. Goes to
    /// `SimSpec::default_seed`.
    #[schemars(extend("default" = super::DEFAULT_SEED))]
    pub seed: Option<u64>,
    /// Sampling interval of the per-flow time series; without it a row is recorded whenever the
    /// sender's congestion state changes. Values: duration, > 0.
    pub timeseries_interval: Option<Dur>,
}

/// `[simulation]` checked.
pub(super) struct Simulation {
    pub duration: SimDuration,
    pub timeseries_interval: Option<SimDuration>,
    pub default_seed: u64,
}

/// Check `[simulation]`: the duration and the sampling interval must be positive.
pub(super) fn build(ctx: &Ctx<'_>, raw: &RawSimulation) -> R<Simulation> {
    let sim = p("simulation");
    if raw.duration.0 .0 == 0 {
        return Err(ctx.err(&sim.k("duration"), "must be greater than zero"));
    }
    let duration = raw.duration.0;
    let timeseries_interval = match raw.timeseries_interval {
        Some(d) if d.0 .0 == 0 => {
            return Err(ctx.err(&sim.k("timeseries_interval"), "must be greater than zero"))
        }
        other => other.map(|d| d.0),
    };
    Ok(Simulation {
        duration,
        timeseries_interval,
        default_seed: raw.seed.unwrap_or(DEFAULT_SEED),
    })
}
