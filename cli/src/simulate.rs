//! `divload simulate`: plays a plan in SimGrid, the established simulator of distributed
//! platforms, and compares the times it predicts with the simulated ones.
//!
//! The model writes its plan as a timeline (`divload_host::timeline_json`: hosts, links,
//! routes, and actors doing sends, receives and computations in order); this module
//! writes it as a SimGrid platform (every host in one zone with explicit routes, each
//! route's links as the model gives them: shared by both directions, or fatpipes; hosts at
//! their speeds; routers that only relay) and a generic S4U player (`play.py`), runs the player
//! with Debian's `python3-simgrid`, and prints predicted against simulated times. With
//! SimGrid's CM02 network model, TCP-gamma 0 and cross-traffic off, a transfer of `b`
//! bytes over a link of bandwidth `B` and latency `L` takes `L + b/B` as in divload's
//! one-port model; the default LV08 model shows what a TCP network's slow start and
//! efficiency would change. No model is named here.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The player, written next to the platform.
const PLAYER: &str = include_str!("play.py");

/// The Python that has SimGrid's bindings on Debian (`python3-simgrid` is built for it).
const PYTHON: &str = "/usr/bin/python3";

/// Hosts compute this many units per second; a computation of `t` predicted seconds is
/// `t·SPEED` units, so SimGrid's absolute work precision is far below a nanosecond.
const SPEED: f64 = 1e9;

/// SimGrid's network model for the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Network {
    /// CM02 without TCP's window limit and cross-traffic: divload's one-port model.
    Cm02,
    /// SimGrid's default (LV08): latencies ×13.01, 97 % of the bandwidth, as TCP sees it.
    Lv08,
}

impl Network {
    fn options(self) -> &'static [&'static str] {
        match self {
            Network::Cm02 => {
                &["--cfg=network/model:CM02", "--cfg=network/TCP-gamma:0", "--cfg=network/crosstraffic:0"]
            }
            Network::Lv08 => &["--cfg=network/model:LV08"],
        }
    }
}

/// The SimGrid platform of a timeline.
pub fn platform_xml(timeline: &Value) -> Result<String, String> {
    let list = |key: &str| timeline[key].as_array().cloned().ok_or(format!("timeline: {key} missing"));
    let num = |v: &Value, key: &str| v[key].as_f64().ok_or(format!("timeline: {key} is not a number"));
    let id = |v: &Value, key: &str| v[key].as_u64().ok_or(format!("timeline: {key} is not an id"));
    let mut xml = String::from(
        "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n\
         <platform version=\"4.1\">\n  <zone id=\"divload\" routing=\"Full\">\n",
    );
    for h in list("hosts")? {
        let speed = if h.get("speed").is_some() { num(&h, "speed")? * SPEED } else { SPEED };
        let _ = writeln!(xml, "    <host id=\"h{}\" speed=\"{speed:e}f\"/>", id(&h, "id")?);
    }
    // Nodes that only relay: routes name their links, so a router is there to be seen.
    for r in timeline["routers"].as_array().into_iter().flatten() {
        let _ = writeln!(xml, "    <router id=\"r{}\"/>", id(r, "id")?);
    }
    for l in list("links")? {
        let policy = match l["sharing"].as_str() {
            None | Some("shared") => "SHARED",
            Some("fatpipe") => "FATPIPE",
            Some(other) => {
                return Err(format!("timeline: link sharing {other:?} (expected shared or fatpipe)"))
            }
        };
        let _ = writeln!(
            xml,
            "    <link id=\"l{}\" bandwidth=\"{:e}Bps\" latency=\"{:e}s\" sharing_policy=\"{policy}\"/>",
            id(&l, "id")?,
            num(&l, "bandwidth")?,
            num(&l, "latency")?
        );
    }
    for r in list("routes")? {
        let _ = write!(
            xml,
            "    <route src=\"h{}\" dst=\"h{}\" symmetrical=\"NO\">",
            id(&r, "from")?,
            id(&r, "to")?
        );
        for l in r["links"].as_array().ok_or("timeline: route without links")? {
            let _ = write!(xml, "<link_ctn id=\"l{}\"/>", l.as_u64().ok_or("timeline: link id")?);
        }
        xml.push_str("</route>\n");
    }
    xml.push_str("  </zone>\n</platform>\n");
    Ok(xml)
}

/// The timeline with computations in the hosts' units.
fn scaled(timeline: &Value) -> Value {
    let mut t = timeline.clone();
    if let Some(actors) = t["actors"].as_array_mut() {
        for a in actors {
            if let Some(actions) = a["do"].as_array_mut() {
                for action in actions {
                    if let Some(c) = action["compute"].as_f64() {
                        action["compute"] = Value::from(c * SPEED);
                    }
                }
            }
        }
    }
    t
}

/// Writes the platform, the timeline and the player into `dir`; returns their paths.
pub fn export(timeline: &Value, dir: &Path) -> Result<(PathBuf, PathBuf, PathBuf), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let files = (dir.join("platform.xml"), dir.join("timeline.json"), dir.join("play.py"));
    let write = |p: &Path, text: &str| std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()));
    write(&files.0, &platform_xml(timeline)?)?;
    write(&files.1, &scaled(timeline).to_string())?;
    write(&files.2, PLAYER)?;
    Ok(files)
}

/// One actor's predicted and simulated end.
#[derive(Debug)]
pub struct Compared {
    /// The actor's name (its host's, as the document names it).
    pub name: String,
    /// What divload predicts, in seconds.
    pub predicted: f64,
    /// What SimGrid simulated, in seconds.
    pub simulated: f64,
}

/// Runs the player on exported files and pairs its ends with the timeline's; with
/// `reserved`, each send that carries a rate (the bandwidth its model reserves) is capped
/// there.
pub fn run(timeline: &Value, dir: &Path, network: Network, reserved: bool) -> Result<Vec<Compared>, String> {
    let (platform, events, player) = export(timeline, dir)?;
    let probe = Command::new(PYTHON).args(["-c", "import simgrid"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return Err(format!(
            "SimGrid's Python bindings are not installed for {PYTHON}: on Debian, \
             `apt-get install python3-simgrid`; or write the files with --export DIR"
        ));
    }
    let out = Command::new(PYTHON)
        .arg(&player)
        .arg(&platform)
        .arg(&events)
        .args(network.options())
        .args((!reserved).then_some("--unreserved"))
        .arg("--log=root.thresh:critical")
        .output()
        .map_err(|e| format!("{PYTHON}: {e}"))?;
    if !out.status.success() {
        return Err(format!("SimGrid run failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().last().unwrap_or_default();
    let result: Value = serde_json::from_str(last).map_err(|e| format!("SimGrid output: {e}: {text}"))?;
    let ends = result["actors"].as_array().ok_or("SimGrid output: no actors")?;
    let mut compared = Vec::new();
    for a in timeline["actors"].as_array().ok_or("timeline: no actors")? {
        let id = a["id"].as_u64().ok_or("timeline: actor id")?;
        let simulated = ends
            .iter()
            .find(|e| e["id"].as_u64() == Some(id))
            .and_then(|e| e["end"].as_f64())
            .ok_or(format!("SimGrid output: actor {id} did not finish"))?;
        let host = a["host"].as_u64();
        let host_name = || {
            let hosts = timeline["hosts"].as_array();
            let h = hosts.and_then(|hs| hs.iter().find(|h| h["id"].as_u64() == host));
            h.and_then(|h| h["name"].as_str()).unwrap_or_default().to_string()
        };
        let name = a["name"].as_str().filter(|n| !n.is_empty()).map_or_else(host_name, str::to_string);
        compared.push(Compared { name, predicted: a["end"].as_f64().unwrap_or(f64::NAN), simulated });
    }
    Ok(compared)
}
