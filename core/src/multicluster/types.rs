//! The vocabulary of the multi-cluster model (heien §2–§3): clusters, fast and slow
//! extended-LogP links, the application's communication pattern, and what a plan reports
//! per class of processors, per processor and in summary. No solver here.

use crate::report::Report;

/// Clusters whose order along a ring is searched exhaustively when slow links differ per
/// pair: `(C − 1)!/2` orders, 2 520 for 8 clusters.
pub const MAX_ORDER_CLUSTERS: usize = 8;

/// Processors a platform may have in all: 2²⁴. Counts up to it, their squares and the
/// products of two of them are exact in `f64`, which the step-time formulas rely on (the
/// all-to-all contention terms square processor counts).
pub const MAX_PROCESSORS: u64 = 1 << 24;

/// Load units (lattice columns, objects) a plan may split: 2⁵³, so every count is exact in
/// `f64`.
pub const MAX_UNITS: u64 = 1 << 53;

/// One cluster: processors of equal speed, joined by fast links.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cluster {
    /// Number of processors, at least 1.
    pub processors: u32,
    /// Relative computing speed of its processors, finite and > 0 (1 for the paper's
    /// identical processors). Beyond the paper: computation terms (`flip_time`,
    /// `sort_time`, a custom `per_load`) are divided by it; communication terms are not.
    pub speed: f64,
}

impl Cluster {
    /// A cluster of `processors` processors of speed 1.
    pub const fn new(processors: u32) -> Self {
        Cluster { processors, speed: 1.0 }
    }
}

/// One kind of link in the extended LogP model (heien §2): all times in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// Latency `L` (seconds).
    pub latency: f64,
    /// Overhead `o` paid by the sender and by the receiver (seconds).
    pub overhead: f64,
    /// Gap `g` per word of a message (seconds per word); with `M` messages sharing a link
    /// each takes `M·g` per word (the paper's contention rule, L147).
    pub gap: f64,
}

impl Link {
    /// The paper's fast (inside a cluster) link, §4: `L = 45 µs`, `o = 5 µs`, `g = 0.05 µs`.
    pub const PAPER_FAST: Link = Link { latency: 45e-6, overhead: 5e-6, gap: 0.05e-6 };
    /// The paper's slow (between clusters) link, §4: `L = 400 µs`, `o = 10 µs`, `g = 0.5 µs`.
    pub const PAPER_SLOW: Link = Link { latency: 400e-6, overhead: 10e-6, gap: 0.5e-6 };
}

/// The slow link between two particular clusters, instead of [`Links::slow`] (beyond the
/// paper). Indices are positions in the cluster list (a what-if addition's clusters
/// follow the base platform's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairLink {
    /// One cluster's index.
    pub first: usize,
    /// The other cluster's index (not `first`).
    pub second: usize,
    /// Their link.
    pub link: Link,
}

/// The network: fast links inside a cluster, slow links between clusters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Links<'a> {
    /// Between processors of the same cluster.
    pub fast: Link,
    /// Between processors of different clusters, unless `pairs` says otherwise.
    pub slow: Link,
    /// Slow links for particular pairs of clusters (each unordered pair at most once);
    /// empty for the paper's single slow link. With more than [`MAX_ORDER_CLUSTERS`]
    /// clusters, every entry must equal `slow`.
    pub pairs: &'a [PairLink],
}

impl Links<'static> {
    /// The paper's links (§4), without pairs.
    pub const PAPER: Links<'static> = Links { fast: Link::PAPER_FAST, slow: Link::PAPER_SLOW, pairs: &[] };
}

/// The step time of one cluster's processors for [`Application::Custom`]: a processor
/// given the fraction `F` of the load takes `per_load·F/speed + fixed` seconds per step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepCost {
    /// `a`: seconds per step to process the whole load at speed 1, finite and > 0.
    pub per_load: f64,
    /// `b`: seconds per step that do not depend on the load (communication), finite and
    /// ≥ 0.
    pub fixed: f64,
}

/// The application's communication pattern, which fixes each processor's step time
/// `a·F + b` as a function of its load fraction `F`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Application<'a> {
    /// A two-way ring: the striped 2-D Ising spin glass (§3.1, eq. 4). The load is the
    /// `lattice` columns of an `S × S` lattice; clusters sit contiguously along the ring in
    /// the given order (or the best order, when slow links differ per pair). A processor
    /// with `r` fast neighbours (a 1-processor cluster: `r = 0`; the two ends of a larger
    /// cluster: `r = 1`; its inside, and every processor when there is a single cluster:
    /// `r = 2`) takes, per iteration of two half-steps,
    /// `4·S·flip_time·F/speed + r·T_fast + (2 − r)·T_slow`, with
    /// `T = L + 2o + 4g` per link (about 4 changed border spins per exchange, L86).
    /// One Monte Carlo step is `S/4` iterations, so the run takes `steps·S/4` iterations.
    Ring {
        /// `S`: lattice side, and the number of columns to split; at least 1.
        lattice: u64,
        /// `T_spin`: seconds to select and flip one spin, finite and > 0.
        flip_time: f64,
        /// Monte Carlo steps (sweeps) of the run, at least 1.
        steps: u64,
    },
    /// Every processor sends to every other: the chunked bucket sort (§3.2, eqs. 9–11).
    /// The load is `objects` objects; each processor sorts `S/(P·K)` chunks, and per chunk
    /// a processor with `r` fast links (its cluster's size − 1) takes
    /// `(P·sort_time/speed + D·K·(g_f·r² + g_s·(P − r − 1)²))·F + r·(L_f + 2o_f) + (P − r − 1)·(L_s + 2o_s)`.
    /// With per-pair slow links the slow terms sum over the other clusters `j`:
    /// `g_s·(P − r − 1)²` becomes `(P − r − 1)·Σⱼ nⱼ·g_j` and `(P − r − 1)·(L_s + 2o_s)`
    /// becomes `Σⱼ nⱼ·(L_j + 2o_j)` (the sender's own slow messages share its link, as in
    /// the paper's contention rule).
    AllToAll {
        /// `S`: objects to sort, at least 1.
        objects: u64,
        /// `K`: objects per chunk, at least 1.
        chunk: u64,
        /// `T_sort`: seconds to sort one chunk of `K` objects, finite and > 0.
        sort_time: f64,
        /// `D`: words per object on the wire, finite and ≥ 0 (not printed in the paper; 24
        /// to 26 reproduce its Table 2).
        words_per_object: f64,
    },
    /// Any iterative code: one [`StepCost`] per cluster (every processor of a cluster is
    /// one class), `units` load units, `iterations` steps in the run.
    Custom {
        /// Load units to split, at least 1.
        units: u64,
        /// Steps in the run, finite and > 0 (the makespan is `iterations` step times).
        iterations: f64,
        /// One step cost per cluster, in the clusters' order.
        costs: &'a [StepCost],
    },
}

/// Which communication pattern an [`Application`] follows, without its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// [`Application::Ring`].
    Ring,
    /// [`Application::AllToAll`].
    AllToAll,
    /// [`Application::Custom`].
    Custom,
}

impl Application<'_> {
    /// The application's pattern.
    pub fn pattern(&self) -> Pattern {
        match self {
            Application::Ring { .. } => Pattern::Ring,
            Application::AllToAll { .. } => Pattern::AllToAll,
            Application::Custom { .. } => Pattern::Custom,
        }
    }
}

/// Whether the split balances the fixed (communication) part of the step times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FixedCosts {
    /// The BIASED optimum of the model as stated: equal `a·F + b` (default).
    #[default]
    Balanced,
    /// The paper's sort (§3.2, L162: "bandwidth costs are much greater than latency and
    /// overhead"): the split equalises `a·F` only, `F ∝ 1/a`; times still include `b`.
    /// This reproduces the paper's Table 2 for the sort; the plan is then not optimal.
    Ignored,
}

/// Options of a plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// Whether the split balances the fixed costs ([`FixedCosts::Balanced`] by default).
    pub fixed_costs: FixedCosts,
}

/// A multi-cluster platform and the application to balance on it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Problem<'a> {
    /// The clusters, in their order along a ring.
    pub clusters: &'a [Cluster],
    /// The links.
    pub links: Links<'a>,
    /// The communication pattern and the load.
    pub application: Application<'a>,
    /// Options.
    pub options: Options,
}

/// Which processors of its cluster a [`Class`] holds (processors are numbered `0..n`
/// within their cluster, along the ring).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Position {
    /// All of them.
    Whole,
    /// The two ends, `0` and `n − 1` (ring, `r = 1`).
    Ends,
    /// Processor `0` alone (ring with per-pair slow links, when the two ends differ).
    First,
    /// Processor `n − 1` alone (idem).
    Last,
    /// Processors `1..n − 1` (ring, `r = 2`).
    Interior,
}

/// A class of identical processors: same cluster, same fast links, same step time
/// `per_load·F + fixed`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Class {
    /// The cluster's index.
    pub cluster: usize,
    /// Which of the cluster's processors.
    pub position: Position,
    /// `r`: fast links (ring: fast neighbours 0–2; all-to-all: cluster size − 1; custom: 0).
    pub fast_links: u32,
    /// `n_k`: processors in the class.
    pub processors: u32,
    /// `a_k`: seconds per step for the whole load (speed included).
    pub per_load: f64,
    /// `b_k`: seconds per step independent of the load.
    pub fixed: f64,
    /// `F_k`: each processor's BIASED fraction of the load (0 when not taking part).
    pub fraction: f64,
    /// Load units of the whole class in the integer plan; its processors get
    /// `units / n_k` or one more, the first ones (in cluster order) the larger counts.
    pub units: u64,
    /// `false` when its processors are left out of the run (a custom class whose fixed
    /// time alone exceeds the common step time; a cluster not in the chosen set). A class
    /// that takes part with `fraction` 0 idles at its fixed time.
    pub participates: bool,
}

impl Class {
    /// An empty class, to initialise buffers.
    pub const EMPTY: Class = Class {
        cluster: 0,
        position: Position::Whole,
        fast_links: 0,
        processors: 0,
        per_load: 0.0,
        fixed: 0.0,
        fraction: 0.0,
        units: 0,
        participates: false,
    };
}

/// One processor's share of the integer plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Processor {
    /// Its cluster's index.
    pub cluster: usize,
    /// Its index within the cluster (`0..n`, along the ring).
    pub index: u32,
    /// `r`: its fast links.
    pub fast_links: u32,
    /// Load units it gets.
    pub count: u64,
    /// The first unit it gets: units are laid out contiguously along the ring (processors
    /// in cluster order, clusters in [`Summary::ring_order`]).
    pub displacement: u64,
    /// Its step time with `count` units (seconds; 0 when not taking part).
    pub step_time: f64,
    /// `false` when it is left out of the run.
    pub participates: bool,
}

impl Processor {
    /// An empty entry, to initialise buffers.
    pub const EMPTY: Processor = Processor {
        cluster: 0,
        index: 0,
        fast_links: 0,
        count: 0,
        displacement: 0,
        step_time: 0.0,
        participates: false,
    };
}

/// The buffer lengths a plan needs ([`needs`](super::needs)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// Length of the [`Class`] buffer.
    pub classes: usize,
    /// Length of the [`Processor`] buffer: one per processor.
    pub processors: usize,
}

/// The clusters in their order along the ring (the given order unless it was searched).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingOrder {
    len: usize,
    searched: bool,
    clusters: [usize; MAX_ORDER_CLUSTERS],
}

impl RingOrder {
    /// The given order of `len` clusters.
    pub(crate) const fn given(len: usize) -> Self {
        RingOrder { len, searched: false, clusters: [0; MAX_ORDER_CLUSTERS] }
    }

    /// A searched order of at most [`MAX_ORDER_CLUSTERS`] clusters.
    pub(crate) const fn searched(len: usize, clusters: [usize; MAX_ORDER_CLUSTERS]) -> Self {
        RingOrder { len, searched: true, clusters }
    }

    /// `true` when the order was searched (per-pair slow links on a ring), `false` when
    /// it is the given one.
    pub fn is_searched(&self) -> bool {
        self.searched
    }

    /// The number of clusters.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` for no clusters.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cluster at ring position `i` (`None` past the end).
    pub fn get(&self, i: usize) -> Option<usize> {
        if i >= self.len {
            None
        } else if self.searched {
            self.clusters.get(i).copied()
        } else {
            Some(i)
        }
    }
}

/// What a plan reports besides its classes and processors. Times in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// How the counts were obtained, and their quality: `makespan` is the model time of
    /// the whole run with the integer counts (`iterations × step_time`, the quantity of
    /// the paper's Tables 3 and 4); `lower_bound` is `iterations ×` the rational BIASED
    /// step time of the processors that take part, rounded down so it stays below every
    /// integer plan's makespan for them in floating point (and at least `iterations ×`
    /// their largest fixed time); `exact` says the counts are optimal for those
    /// processors and, when some class could not be balanced, that no other set of
    /// clusters is faster.
    pub report: Report<f64>,
    /// The integer plan's step time (the slowest processor's).
    pub step_time: f64,
    /// The rational BIASED step time `T`: with [`FixedCosts::Balanced`], the common step
    /// time of the closed form (or the largest fixed time of a processor that takes part
    /// idle, if larger); with [`FixedCosts::Ignored`], the slowest class's
    /// `a·F + b` for the paper's split.
    pub rational_step_time: f64,
    /// `iterations × rational_step_time`.
    pub rational_makespan: f64,
    /// The EVEN distribution's step time on the whole platform: `max_k (a_k/P + b_k)`
    /// (eq. 5, generalised to the classes present).
    pub even_step_time: f64,
    /// `iterations × even_step_time`, with every processor taking part.
    pub even_makespan: f64,
    /// Steps in the run (ring: `steps·S/4`; all-to-all: `S/(P·K)` for the `P` processors
    /// that take part; custom: as given).
    pub iterations: f64,
    /// Load units split (lattice columns, objects, custom units).
    pub units: u64,
    /// Classes written to the class buffer.
    pub classes: usize,
    /// Processors that take part.
    pub participating: u64,
    /// Clusters left out of the run entirely.
    pub dropped_clusters: usize,
    /// The clusters' order along the ring.
    pub ring_order: RingOrder,
}

/// One what-if answer (§4.4, Table 4): the platform with one candidate addition.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WhatIf {
    /// The rational BIASED model time of the run (the quantity of Table 4).
    pub rational_makespan: f64,
    /// The integer plan's model time.
    pub makespan: f64,
    /// `1 − rational_makespan / base rational_makespan` (Table 4's speedup, as a fraction).
    pub speedup: f64,
}

impl WhatIf {
    /// An empty answer, to initialise buffers.
    pub const EMPTY: WhatIf = WhatIf { rational_makespan: 0.0, makespan: 0.0, speedup: 0.0 };
}
