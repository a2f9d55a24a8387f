//! The one table of names for every option a document can hold: the words a platform
//! document uses, that result documents write back, and that front ends offer. A front end
//! never spells these itself; it lists them from here.

use crate::doc::json::Str;
use crate::multicluster::{FixedCosts, Pattern};
use crate::partition::approx::Solver as PartitionSolver;
use crate::partition::learned::Repair;
use crate::partition::related::CostKind;
use crate::report::Method;
use crate::returns::{Port, Schedule};
use crate::scatter::{OrderPolicy, RootMode, Rounding, Solver};

/// The names of one option's values, in the order they are offered.
#[derive(Debug)]
pub struct Names<T: 'static> {
    /// The document key holding the option.
    pub key: &'static str,
    /// Every value with its name.
    pub table: &'static [(&'static str, T)],
    /// The valid names in words, for error messages: `"given" or "bandwidth"`.
    pub expected: &'static str,
}

impl<T: Copy + PartialEq> Names<T> {
    /// The value called `s`.
    pub fn parse(&self, s: &Str<'_>) -> Option<T> {
        self.table.iter().find(|(n, _)| s.eq_str(n)).map(|&(_, v)| v)
    }

    /// The value called `s` (a plain string).
    pub fn parse_str(&self, s: &str) -> Option<T> {
        self.table.iter().find(|(n, _)| *n == s).map(|&(_, v)| v)
    }

    /// The name of `v` (empty if the table misses it, which the tests rule out).
    pub fn name(&self, v: T) -> &'static str {
        self.table.iter().find(|(_, x)| *x == v).map_or("", |&(n, _)| n)
    }
}

/// When the root computes ([`RootMode`]).
pub const ROOT_MODE: Names<RootMode> = Names {
    key: "root_mode",
    table: &[("after_send", RootMode::AfterSend), ("overlap", RootMode::Overlap)],
    expected: "must be \"after_send\" or \"overlap\"",
};

/// The send order ([`OrderPolicy`]).
pub const ORDER: Names<OrderPolicy> = Names {
    key: "order",
    table: &[("bandwidth", OrderPolicy::Bandwidth), ("given", OrderPolicy::Given)],
    expected: "must be \"bandwidth\" or \"given\"",
};

/// The rounding scheme ([`Rounding`]).
pub const ROUNDING: Names<Rounding> = Names {
    key: "rounding",
    table: &[
        ("greedy", Rounding::Greedy),
        ("largest_remainder", Rounding::LargestRemainder),
        ("paper", Rounding::Paper),
    ],
    expected: "must be \"greedy\", \"largest_remainder\" or \"paper\"",
};

/// The scatter's solver ([`Solver`]).
pub const SOLVER: Names<Solver> = Names {
    key: "solver",
    table: &[
        ("auto", Solver::Auto),
        ("closed_form", Solver::ClosedForm),
        ("exact", Solver::Exact),
        ("sampled", Solver::Sampled),
    ],
    expected: "must be \"auto\", \"closed_form\", \"exact\" or \"sampled\"",
};

/// The partition model's solver: the exact optimum (`None`) or an approximation of the
/// paper ([`PartitionSolver`]).
pub const PARTITION_SOLVER: Names<Option<PartitionSolver>> = Names {
    key: "solver",
    table: &[
        ("exact", None),
        ("theorem1", Some(PartitionSolver::Theorem1)),
        ("eq5", Some(PartitionSolver::Eq5)),
        ("theorem2", Some(PartitionSolver::Theorem2)),
    ],
    expected: "must be \"exact\", \"theorem1\", \"eq5\" or \"theorem2\"",
};

/// The kind of the partition model's document-wide cost ([`CostKind`]).
pub const COST_KIND: Names<CostKind> = Names {
    key: "kind",
    table: &[
        ("linear", CostKind::Linear),
        ("power", CostKind::Power),
        ("n_log_n", CostKind::NLogN),
        ("table", CostKind::Table),
    ],
    expected: "must be \"linear\", \"power\", \"n_log_n\" or \"table\"",
};

/// How a learned cost model combines timings ([`Repair`]).
pub const LEARN_REPAIR: Names<Repair> = Names {
    key: "repair",
    table: &[("mean", Repair::Mean), ("max", Repair::Max)],
    expected: "must be \"mean\" or \"max\"",
};

/// How an answer was obtained ([`Method`]), as result documents write it.
pub const METHOD: Names<Method> = Names {
    key: "method",
    table: &[
        ("closed_form", Method::ClosedForm),
        ("exact_dp", Method::ExactDp),
        ("sampled_dp", Method::SampledDp),
        ("threshold", Method::Threshold),
        ("lifo", Method::Lifo),
        ("fifo", Method::Fifo),
        ("scenario_lp", Method::ScenarioLp),
        ("best_scenario", Method::BestScenario),
        ("biased", Method::Biased),
        ("greedy", Method::RingGreedy),
        ("exhaustive", Method::RingExhaustive),
        ("theorem1", Method::Theorem1),
        ("eq5", Method::Eq5),
        ("theorem2", Method::Theorem2),
        ("learned", Method::Learned),
    ],
    expected: "must be \"closed_form\", \"exact_dp\", \"sampled_dp\", \"threshold\", \"lifo\", \"fifo\", \"scenario_lp\", \"best_scenario\", \"biased\", \"greedy\", \"exhaustive\", \"theorem1\", \"eq5\", \"theorem2\" or \"learned\"",
};

/// The master's port in the return-message model ([`Port`]).
pub const PORT: Names<Port> = Names {
    key: "port",
    table: &[("full_duplex", Port::FullDuplex), ("half_duplex", Port::HalfDuplex)],
    expected: "must be \"full_duplex\" or \"half_duplex\"",
};

/// The named schedules of the return-message model; a given scenario is an object
/// (`{"send": [...], "return": [...]}`), not a name.
pub const SCHEDULE: Names<Schedule<'static>> = Names {
    key: "schedule",
    table: &[("best", Schedule::Best), ("lifo", Schedule::Lifo), ("fifo", Schedule::Fifo)],
    expected: "must be \"best\", \"lifo\", \"fifo\" or {\"send\": [names], \"return\": [names]}",
};

/// The multi-cluster application's communication pattern ([`Pattern`]).
pub const PATTERN: Names<Pattern> = Names {
    key: "pattern",
    table: &[("ring", Pattern::Ring), ("all_to_all", Pattern::AllToAll), ("custom", Pattern::Custom)],
    expected: "must be \"ring\", \"all_to_all\" or \"custom\"",
};

/// Whether the multi-cluster split balances the fixed costs ([`FixedCosts`]).
pub const FIXED_COSTS: Names<FixedCosts> = Names {
    key: "fixed_costs",
    table: &[("balanced", FixedCosts::Balanced), ("ignored", FixedCosts::Ignored)],
    expected: "must be \"balanced\" or \"ignored\"",
};

#[cfg(test)]
mod tests {
    use super::*;

    fn complete<T: Copy + PartialEq + core::fmt::Debug>(names: &Names<T>, all: &[T]) {
        for &v in all {
            let n = names.name(v);
            assert!(!n.is_empty(), "{}: {v:?} has no name", names.key);
            assert_eq!(names.parse_str(n), Some(v));
            assert!(
                names.expected.contains(&["\"", n, "\""].concat()),
                "{}: {n} missing from expected",
                names.key
            );
        }
        assert_eq!(names.table.len(), all.len());
    }

    #[test]
    fn every_value_has_one_name_and_is_listed() {
        complete(&ROOT_MODE, &[RootMode::AfterSend, RootMode::Overlap]);
        complete(&ORDER, &[OrderPolicy::Given, OrderPolicy::Bandwidth]);
        complete(&ROUNDING, &[Rounding::Paper, Rounding::LargestRemainder, Rounding::Greedy]);
        complete(&SOLVER, &[Solver::Auto, Solver::ClosedForm, Solver::Exact, Solver::Sampled]);
        complete(&PORT, &[Port::FullDuplex, Port::HalfDuplex]);
        complete(
            &PARTITION_SOLVER,
            &[
                None,
                Some(PartitionSolver::Theorem1),
                Some(PartitionSolver::Eq5),
                Some(PartitionSolver::Theorem2),
            ],
        );
        complete(&LEARN_REPAIR, &[Repair::Mean, Repair::Max]);
        complete(&COST_KIND, &[CostKind::Linear, CostKind::Power, CostKind::NLogN, CostKind::Table]);
        complete(&SCHEDULE, &[Schedule::Best, Schedule::Lifo, Schedule::Fifo]);
        complete(&PATTERN, &[Pattern::Ring, Pattern::AllToAll, Pattern::Custom]);
        complete(&FIXED_COSTS, &[FixedCosts::Balanced, FixedCosts::Ignored]);
        complete(
            &METHOD,
            &[
                Method::ClosedForm,
                Method::ExactDp,
                Method::SampledDp,
                Method::Threshold,
                Method::Lifo,
                Method::Fifo,
                Method::ScenarioLp,
                Method::BestScenario,
                Method::Biased,
                Method::RingGreedy,
                Method::RingExhaustive,
                Method::Theorem1,
                Method::Eq5,
                Method::Theorem2,
                Method::Learned,
            ],
        );
    }
}
