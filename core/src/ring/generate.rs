//! A deterministic generator of hierarchical LAN/MAN/WAN platforms like legrand2003's §5
//! (`ring.md` §9, exactly as `ring_ref.py`'s `generate`, so that a seed gives the same
//! platform in Python and in Rust): splitmix64, `below(n) = next() mod n`; machines are
//! nodes `0..machines`, routers follow in creation order, links in creation order.

use super::{Link, LinkKind};

/// splitmix64 (Steele, Lea, Flood 2014), as `ring_ref.py`'s `Rng`.
#[derive(Clone, Copy, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `next() mod n` (`n ≥ 1`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// Illustrative machine speeds (Mflop/s): a machine's cycle time is `1/MFLOPS[below(8)]`.
pub const MFLOPS: [f64; 8] = [20.0, 35.0, 40.0, 60.0, 80.0, 120.0, 150.0, 200.0];

/// What a router is, for its name: `wan{a}`, `man{a}.{b}`, `gw{a}`, `sw{a}.{b}`,
/// `acc{a}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Router {
    /// A WAN router.
    Wan(usize),
    /// MAN router `b` of WAN router `a`.
    Man(usize, usize),
    /// The gateway of LAN `a`.
    Gateway(usize),
    /// Switch `b` of LAN `a`.
    Switch(usize, usize),
    /// The access router of machine `a`.
    Access(usize),
}

/// Most machines the generator takes.
pub const MAX_MACHINES: usize = 100_000;

/// Buffer sizes for `machines`: (routers, links), upper bounds.
pub fn generated_sizes(machines: usize) -> (usize, usize) {
    let wan = wan_routers(machines);
    let lans = machines / 3 + 1;
    (4 * wan + 4 * lans + machines, 7 * wan + 4 * lans + 2 * machines)
}

fn wan_routers(machines: usize) -> usize {
    machines.div_ceil(20).max(2)
}

/// A generated platform's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Generated {
    /// Routers written.
    pub routers: usize,
    /// Links written.
    pub links: usize,
}

/// Generates the platform of `machines` machines for `seed` (ring.md §9) into
/// `cycle_times` (`machines`), `routers` and `links` (at least [`generated_sizes`]); `None`
/// when a buffer is short.
pub fn generate(
    machines: usize,
    seed: u64,
    cycle_times: &mut [f64],
    routers: &mut [Router],
    links: &mut [Link],
) -> Option<Generated> {
    let mut rng = SplitMix64(seed);
    let (mut nr, mut nl) = (0usize, 0usize);
    let m = machines;
    let mut router = |r: Router, nr: &mut usize| -> Option<usize> {
        *routers.get_mut(*nr)? = r;
        *nr += 1;
        Some(m + *nr - 1)
    };
    let mut link = |from: usize, to: usize, bandwidth: f64, kind: LinkKind, nl: &mut usize| -> Option<()> {
        *links.get_mut(*nl)? = Link { from, to, bandwidth, kind };
        *nl += 1;
        Some(())
    };
    let n_wan = wan_routers(m);
    let wan0 = m;
    for k in 0..n_wan {
        router(Router::Wan(k), &mut nr)?;
    }
    if n_wan == 2 {
        link(wan0, wan0 + 1, 2.0, LinkKind::Backbone, &mut nl)?;
    } else {
        for k in 0..n_wan {
            link(wan0 + k, wan0 + (k + 1) % n_wan, 2.0, LinkKind::Backbone, &mut nl)?;
        }
    }
    let man0 = m + nr;
    let mut mans = 0usize;
    for k in 0..n_wan {
        let group = 2 + rng.below(2) as usize;
        for g in 0..group {
            let id = router(Router::Man(k, g), &mut nr)?;
            link(id, wan0 + k, 4.0, LinkKind::Bidirectional, &mut nl)?;
            if g > 0 && rng.below(3) == 0 {
                link(id, id - 1, 10.0, LinkKind::Bidirectional, &mut nl)?;
            }
            mans += 1;
        }
    }
    let (mut left, mut lan, mut machine) = (m, 0usize, 0usize);
    while left > 0 {
        let size = left.min(3 + rng.below(6) as usize);
        let man = man0 + rng.below(mans as u64) as usize;
        let gw = router(Router::Gateway(lan), &mut nr)?;
        link(gw, man, 10.0, LinkKind::Bidirectional, &mut nl)?;
        let switches = 1 + size / 4;
        let sw0 = m + nr;
        for s in 0..switches {
            let id = router(Router::Switch(lan, s), &mut nr)?;
            link(id, if s == 0 { gw } else { id - 1 }, 100.0, LinkKind::Bidirectional, &mut nl)?;
        }
        for _ in 0..size {
            let sw = sw0 + rng.below(switches as u64) as usize;
            match rng.below(10) {
                0 => {
                    link(sw, machine, 8.0, LinkKind::Directed, &mut nl)?;
                    link(machine, sw, 1.0, LinkKind::Directed, &mut nl)?;
                }
                1..=4 => {
                    let acc = router(Router::Access(machine), &mut nr)?;
                    link(machine, acc, 100.0, LinkKind::Bidirectional, &mut nl)?;
                    link(acc, sw, 100.0, LinkKind::Bidirectional, &mut nl)?;
                }
                _ => link(machine, sw, 100.0, LinkKind::Bidirectional, &mut nl)?,
            }
            *cycle_times.get_mut(machine)? = 1.0 / MFLOPS.get(rng.below(8) as usize)?;
            machine += 1;
        }
        left -= size;
        lan += 1;
    }
    Some(Generated { routers: nr, links: nl })
}
