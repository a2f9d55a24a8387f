//! What every model with a worker list reads the same way: the `items`, `name` and `count`
//! keys, a worker entry, and a cost in its three shapes (affine, measured points,
//! power law; cerin2006 §3.3 for the tables), read from a document and made into the
//! cost functions the solvers take. The models' document modules build on these; none
//! imports another model's module.

use crate::doc::json::Str;
use crate::doc::schema::{field, Field as Key, Kind, AT_LEAST_ONE, NON_NEGATIVE, POSITIVE};
use crate::doc::{Doc, Keys};
use crate::error::{Detail, Error, Field};
use crate::num::range::EXPONENT;
use crate::num::Real;
use crate::platform::cost::{Affine, Cost, PowerLaw, Tabulated};

/// Most points of a tabulated cost in a platform file.
pub const MAX_POINTS: usize = 32;

/// `items`, as every model with workers has it.
pub(crate) const ITEMS: Key = field("items", Kind::Integer(AT_LEAST_ONE), "items to split");
/// `name` and `count` of a worker entry.
pub(crate) const NAME: Key = field("name", Kind::Text, "");
pub(crate) const COUNT: Key =
    Key { default: "1", ..field("count", Kind::Integer(AT_LEAST_ONE), "identical copies") };
/// The computing cost of a worker entry, in its three shapes.
pub(crate) const COMP_PER_ITEM: Key =
    Key { unit: "s/item", ..field("comp_per_item", Kind::Number(POSITIVE), "") };
pub(crate) const COMP_LATENCY: Key =
    Key { unit: "s", default: "0", ..field("comp_latency", Kind::Number(NON_NEGATIVE), "") };
pub(crate) const COMP_TABLE: Key = field("comp_table", Kind::Json, "[[items, s], ...] instead");
pub(crate) const COMP_POWER: Key = field("comp_power", Kind::Json, "{coeff, exponent, latency} instead");
pub(crate) const REPAIR: Key = field("repair", Kind::Flag, "smooth noisy tables");

/// The shape of one cost of a worker entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CostModel<'a> {
    /// `latency + per_item·x` from the `*_latency` and `*_per_item` keys.
    Affine,
    /// Measured points `[items, seconds]` (`*_table`).
    Table(Table<'a>),
    /// `latency + coeff·x^exponent` (`*_power`).
    Power {
        /// Seconds, ≥ 0.
        latency: f64,
        /// Seconds per item^exponent, ≥ 0.
        coeff: f64,
        /// In `0.01..=64`.
        exponent: f64,
    },
}

/// A `*_table` as the document writes it: the array's text, checked when it was read and
/// read again into points when the costs are built. The points themselves (520 bytes for
/// [`MAX_POINTS`]) in every entry made an entry 1.1 KB, and a 10⁶-worker document of
/// 83 MB took 1.5 GB to plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Table<'a> {
    text: &'a [u8],
}

impl Table<'_> {
    /// The points `[items, seconds]` in document order: the first `len` of the array.
    ///
    /// # Errors
    ///
    /// None for a table of a parsed document (its text was read once already).
    pub fn points(&self) -> Result<([(u64, f64); MAX_POINTS], usize), Error> {
        read_points(&mut Doc::new(self.text), Detail::Entry { list: "workers", index: usize::MAX, field: "" })
    }
}

/// One object of the `workers` array.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkerEntry<'a> {
    /// Machine name, as written in the file.
    pub name: Str<'a>,
    /// How many identical workers this entry stands for (≥ 1).
    pub count: u64,
    /// Rank of the first of them in the expanded list.
    pub first_rank: u64,
    /// Seconds, ≥ 0.
    pub comm_latency: f64,
    /// Seconds per item, ≥ 0.
    pub comm_per_item: f64,
    /// Seconds, ≥ 0.
    pub comp_latency: f64,
    /// Seconds per item, > 0.
    pub comp_per_item: f64,
    /// Shape of the receive cost (affine unless `comm_table` or `comm_power` is given).
    pub comm_model: CostModel<'a>,
    /// Shape of the compute cost.
    pub comp_model: CostModel<'a>,
    /// Repair tables whose times decrease (cerin2006 §3.3) instead of rejecting them.
    pub repair: bool,
    /// The most items it may hold in one installment (`max_items`; `u64::MAX`, no cap, when
    /// absent: an `Option` would make the entry 8 bytes longer, 8 MB in 10⁶).
    pub max_items: u64,
    /// When it may start computing, seconds ≥ 0 (`available_at`; 0 when absent).
    pub available_at: f64,
}

impl WorkerEntry<'_> {
    /// `true` when both costs are affine.
    pub fn is_affine(&self) -> bool {
        self.comm_model == CostModel::Affine && self.comp_model == CostModel::Affine
    }

    /// An empty entry, for initialising buffers.
    pub const EMPTY: WorkerEntry<'static> = WorkerEntry {
        name: Str::EMPTY,
        count: 1,
        first_rank: 0,
        comm_latency: 0.0,
        comm_per_item: 0.0,
        comp_latency: 0.0,
        comp_per_item: 0.0,
        comm_model: CostModel::Affine,
        comp_model: CostModel::Affine,
        repair: false,
        max_items: u64::MAX,
        available_at: 0.0,
    };
}

const POWER: Keys = Keys {
    names: &["coeff", "exponent", "latency"],
    unknown: "unknown key (expected coeff, exponent, latency)",
};

/// `{"coeff", "exponent", "latency"}` of a power-law cost.
/// `compute`: a computing cost, whose coefficient must be > 0 (a worker that computes in
/// no time would take every item and plan a makespan of 0).
pub(crate) fn read_power<'a>(
    d: &mut Doc<'a>,
    i: usize,
    field: &'static str,
    compute: bool,
) -> Result<CostModel<'a>, Error> {
    d.object()?;
    let mut seen = 0u64;
    let (mut coeff, mut exponent, mut latency) = (None, None, 0.0);
    while let Some(k) = d.key(&POWER, &mut seen)? {
        let v = d.f64()?;
        match k {
            "coeff" => coeff = Some(v),
            "exponent" => exponent = Some(v),
            _ => latency = v,
        }
    }
    d.field(field);
    let bad =
        |message, value| Error::json(message, Detail::Number { list: "workers", index: i, field, value });
    let (Some(coeff), Some(exponent)) = (coeff, exponent) else {
        return Err(Error::json(
            "needs coeff and exponent",
            Detail::Entry { list: "workers", index: i, field },
        ));
    };
    // The messages name the key inside the power law, so they spell the ranges' words.
    if !NON_NEGATIVE.contains(latency) {
        return Err(bad("latency must be finite and >= 0", latency));
    }
    let (range, message) = if compute {
        (POSITIVE, "coeff must be finite and > 0")
    } else {
        (NON_NEGATIVE, "coeff must be finite and >= 0")
    };
    if !range.contains(coeff) {
        return Err(bad(message, coeff));
    }
    if !EXPONENT.contains(exponent) {
        return Err(bad("exponent must be in 0.01..=64", exponent));
    }
    Ok(CostModel::Power { latency, coeff, exponent })
}

/// `[[items, seconds], ...]`, at most [`MAX_POINTS`] points.
pub(crate) fn read_table<'a>(d: &mut Doc<'a>, i: usize, field: &'static str) -> Result<CostModel<'a>, Error> {
    let start = d.offset();
    read_points(d, Detail::Entry { list: "workers", index: i, field })?;
    Ok(CostModel::Table(Table { text: d.since(start) }))
}

/// `[[items, seconds], ...]`, at most [`MAX_POINTS`] points, as read: `at` names the
/// list that holds them in the errors about the list as a whole.
pub(crate) fn read_points(d: &mut Doc<'_>, at: Detail) -> Result<([(u64, f64); MAX_POINTS], usize), Error> {
    let mut points = [(0u64, 0.0f64); MAX_POINTS];
    let mut len = 0usize;
    d.array()?;
    while d.element()? {
        let offset = d.offset();
        d.array()?;
        let size =
            if d.element()? { d.u64()? } else { return Err(d.error("expected [items, seconds]", offset)) };
        let secs =
            if d.element()? { d.f64()? } else { return Err(d.error("expected [items, seconds]", offset)) };
        if d.element()? {
            return Err(d.error("expected [items, seconds]", offset));
        }
        let Some(slot) = points.get_mut(len) else {
            return Err(Error::json("at most 32 points", at));
        };
        *slot = (size, secs);
        len += 1;
    }
    if len == 0 {
        return Err(Error::json("needs at least one [items, seconds] point", at));
    }
    Ok((points, len))
}

/// Checks measured points: times finite and ≥ 0, and for a computing cost (`comp_table`)
/// positive wherever items are, as for `comp_per_item`; unless `repair`, sizes strictly
/// increasing and times not decreasing.
pub(crate) fn check_table(
    table: Table<'_>,
    index: usize,
    field: &'static str,
    repair: bool,
) -> Result<(), Error> {
    let (points, len) = table.points()?;
    let points = &points[..len.min(MAX_POINTS)];
    let at = |point: usize, value: f64| Detail::Point { list: "workers", index, field, point, value };
    for (k, &(size, secs)) in points.iter().enumerate() {
        if !NON_NEGATIVE.contains(secs) {
            return Err(Error::json("seconds must be finite and >= 0", at(k, secs)));
        }
        if secs == 0.0 && size > 0 && field == "comp_table" {
            return Err(Error::json(
                "seconds must be > 0 where items > 0 (computing takes time)",
                at(k, secs),
            ));
        }
        if repair || k == 0 {
            continue;
        }
        let (prev_size, prev_secs) = points[k - 1];
        if size <= prev_size {
            return Err(Error::json(
                "items must increase from point to point (or set \"repair\": true)",
                at(k, size as f64),
            ));
        }
        if secs < prev_secs {
            return Err(Error::json(
                "seconds must not decrease as items increase (or set \"repair\": true)",
                at(k, secs),
            ));
        }
    }
    Ok(())
}

/// One cost function of entry `index` in the number type `N`.
pub(crate) fn cost_of<N: Real>(
    model: CostModel<'_>,
    latency: f64,
    per_item: f64,
    repair: bool,
    index: usize,
    field: Field,
) -> Result<Cost<N, MAX_POINTS>, Error> {
    let conv = |f: Field, v: f64| N::from_f64(v).ok_or(Error::not_representable(index, f, v, N::NAME));
    Ok(match model {
        CostModel::Affine => {
            let lat_field =
                if field == Field::COMM_PER_ITEM { Field::COMM_LATENCY } else { Field::COMP_LATENCY };
            Cost::Affine(Affine::new(conv(lat_field, latency)?, conv(field, per_item)?)?)
        }
        CostModel::Table(t) => {
            let (points, len) = t.points()?;
            let points = &points[..len.min(MAX_POINTS)];
            Cost::Tabulated(if repair { Tabulated::repaired(points)? } else { Tabulated::new(points)? })
        }
        CostModel::Power { latency, coeff, exponent } => {
            let lat_field =
                if field == Field::COMM_PER_ITEM { Field::COMM_LATENCY } else { Field::COMP_LATENCY };
            Cost::PowerLaw(PowerLaw::new(conv(lat_field, latency)?, coeff, exponent)?)
        }
    })
}
