//! Every model's schema against its reader (issue 30): the page checks a field with the
//! schema's range and message, the reader with its own code, so for each numeric field
//! with a bound the model's example is planned with the value just outside the bound (an
//! error naming the key) and at it, or just inside an open bound (a plan). A range changed
//! on one side only fails here.

use divload::doc::schema::{ChartKind, Field, Kind, Range};
use divload::doc::MODELS;
use serde_json::Value;

/// A step from a document to a field: a key, and in a list the row edited.
#[derive(Clone, Debug)]
enum Step {
    Key(&'static str),
    Row(usize),
}

fn at<'v>(doc: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    path.iter().try_fold(doc, |v, s| match s {
        Step::Key(k) => v.get_mut(*k),
        Step::Row(i) => v.get_mut(*i),
    })
}

/// How an error names the field: `workers[1].comp_per_item`, `links.fast.gap`, `items`.
fn spelt(path: &[Step]) -> String {
    let mut s = String::new();
    for step in path {
        match step {
            Step::Key(k) if s.is_empty() => s.push_str(k),
            Step::Key(k) => s.push_str(&format!(".{k}")),
            Step::Row(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// The row of a list where `key` is edited: the first that has it, else the first whose
/// values are all plain (a cost table or power law beside a new per-item cost would be an
/// error of its own).
fn row_for(rows: &[Value], key: &str) -> Option<usize> {
    rows.iter().position(|r| r.get(key).is_some()).or_else(|| {
        rows.iter()
            .position(|r| r.as_object().is_some_and(|o| o.values().all(|v| !v.is_object() && !v.is_array())))
    })
}

/// Every bounded number of `fields` under `path` in `doc`, with the places skipped because
/// the example has no such object.
fn bounded(
    doc: &Value,
    fields: &'static [Field],
    path: Vec<Step>,
    out: &mut Vec<(Vec<Step>, Range, bool)>,
    skipped: &mut Vec<String>,
) {
    for f in fields {
        let mut here = path.clone();
        here.push(Step::Key(f.key));
        match &f.kind {
            Kind::Number(r) => out.push((here, **r, false)),
            Kind::Integer(r) => out.push((here, **r, true)),
            Kind::Object(inner) => {
                let mut probe = doc.clone();
                if at(&mut probe, &here).is_some() {
                    bounded(doc, inner, here, out, skipped);
                } else {
                    skipped.push(spelt(&here));
                }
            }
            Kind::List(inner) => {
                let mut probe = doc.clone();
                let rows = at(&mut probe, &here).and_then(|v| v.as_array().cloned()).unwrap_or_default();
                // Each field of the list on its own row.
                let mut any = false;
                for g in inner.iter() {
                    if let Some(i) = row_for(&rows, g.key) {
                        let mut row = here.clone();
                        row.push(Step::Row(i));
                        bounded(doc, std::slice::from_ref(g), row, out, skipped);
                        any = true;
                    }
                }
                if !any {
                    skipped.push(spelt(&here));
                }
            }
            _ => {}
        }
    }
}

fn with(doc: &Value, path: &[Step], value: Value) -> String {
    let mut d = doc.clone();
    let (last, parent) = path.split_last().expect("a field has a key");
    let Step::Key(key) = last else { panic!("a field ends in a key") };
    at(&mut d, parent)
        .and_then(Value::as_object_mut)
        .expect("the field's object")
        .insert((*key).into(), value);
    serde_json::to_string(&d).expect("serialisable")
}

fn number(x: f64, integer: bool) -> Value {
    if integer {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// Plans `text`, or only reads and checks it when the value at a bound would make the plan
/// itself huge (2²⁴ processors in a cluster): the reader's checks are what is tested.
fn planned(text: &str, bound: f64) -> Result<(), String> {
    let r = if bound.abs() > 1e6 {
        divload_host::effort(text.as_bytes()).map(|_| ())
    } else {
        divload_host::plan_json(text.as_bytes()).map(|_| ())
    };
    r.map_err(|e| e.to_string())
}

#[test]
fn every_bound_of_every_schema_is_the_readers() {
    let mut checked = 0;
    for m in MODELS {
        let example: Value = serde_json::from_str(m.example()).expect("the example is JSON");
        // A field that goes with keys the example does not have (a partition worker's
        // speed goes with a document-wide cost, its per-worker costs without one; the
        // observations to learn from) is checked in the first further example,
        // `examples/MODEL_*.json`, that gives it.
        let keys = |p: &[Step]| -> Vec<&'static str> {
            p.iter().filter_map(|s| if let Step::Key(k) = s { Some(*k) } else { None }).collect()
        };
        let mut docs: Vec<(Vec<Step>, Range, bool, Value)> = Vec::new();
        let mut skipped_everywhere: Option<Vec<String>> = None;
        for doc in std::iter::once(example.clone()).chain(further_examples(m.name)) {
            let (mut fields, mut skipped) = (Vec::new(), Vec::new());
            bounded(&doc, m.fields, Vec::new(), &mut fields, &mut skipped);
            for (path, range, integer) in fields {
                let mut probe = doc.clone();
                let present = at(&mut probe, &path).is_some();
                match docs.iter().position(|d| keys(&d.0) == keys(&path)) {
                    None => docs.push((path, range, integer, doc.clone())),
                    Some(k) => {
                        let mut old = docs[k].3.clone();
                        if present && at(&mut old, &docs[k].0).is_none() {
                            docs[k] = (path, range, integer, doc.clone());
                        }
                    }
                }
            }
            skipped_everywhere = Some(match skipped_everywhere {
                None => skipped,
                Some(before) => before.into_iter().filter(|s| skipped.contains(s)).collect(),
            });
        }
        let skipped = skipped_everywhere.unwrap_or_default();
        let mut here = 0;
        for (path, range, integer, doc) in &docs {
            let name = spelt(path);
            for (bound, open, below) in
                [(range.min, range.min_open, true), (range.max, range.max_open, false)]
            {
                if !bound.is_finite() {
                    continue;
                }
                let step = if *integer { 1.0 } else { bound.abs().max(1.0) * 1e-6 };
                let out = if open {
                    bound
                } else if below {
                    bound - step
                } else {
                    bound + step
                };
                let inside = if !open {
                    bound
                } else if below {
                    bound + step
                } else {
                    bound - step
                };
                let bad = with(doc, path, number(out, *integer));
                let e =
                    planned(&bad, bound).expect_err(&format!("{}: {name} = {out} must be refused", m.name));
                assert!(e.contains(&name), "{}: {name} = {out}: the error must name it: {e}", m.name);
                let good = with(doc, path, number(inside, *integer));
                planned(&good, bound)
                    .unwrap_or_else(|e| panic!("{}: {name} = {inside} must plan: {e}", m.name));
                here += 1;
            }
        }
        assert!(here > 0, "{}: no bounded field checked", m.name);
        checked += here;
        // Lists and objects the example leaves out: their bounds are the ones checked
        // elsewhere in the same model (root candidates and pair links share their ranges
        // with worker and link fields; the ring's graph form, exclusive with its cost
        // matrix, in tests/tests/ring.rs).
        for s in &skipped {
            assert!(
                ["root_candidates", "links.pairs", "routers", "links"].contains(&s.as_str()),
                "{}: {s} not in the example",
                m.name
            );
        }
    }
    assert!(checked >= 20, "{checked} bounds checked");
}

/// A model's further example files, `examples/MODEL_*.json`.
fn further_examples(model: &str) -> Vec<Value> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{model}_")) && n.ends_with(".json"))
        })
        .collect();
    paths.sort();
    paths.iter().map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()).collect()
}

/// Every choice lists its option's names, every default is JSON the reader takes, every
/// timeline names columns of the example's plan.
#[test]
fn choices_defaults_and_timelines_match_the_documents() {
    fn walk(fields: &'static [Field], f: &mut dyn FnMut(&'static Field)) {
        for x in fields {
            f(x);
            if let Kind::List(inner) | Kind::Object(inner) = &x.kind {
                walk(inner, f);
            }
        }
    }
    for m in MODELS {
        let doc: Value = serde_json::from_str(m.example()).unwrap();
        let mut top = m.fields.iter().map(|f| f.key).collect::<Vec<_>>();
        top.extend(["version", "model", "comment", "description"]);
        for key in doc.as_object().unwrap().keys() {
            assert!(top.contains(&key.as_str()), "{}: the example's {key} is not in the schema", m.name);
        }
        walk(m.fields, &mut |f| {
            if !f.default.is_empty() {
                serde_json::from_str::<Value>(f.default).unwrap_or_else(|e| panic!("{}: default {e}", f.key));
            }
        });
        // A top-level default is what the reader takes: setting it explicitly plans the same.
        for f in m.fields.iter().filter(|f| !f.default.is_empty()) {
            let mut d = doc.clone();
            d.as_object_mut().unwrap().remove(f.key);
            let left_out = divload_host::plan_json(serde_json::to_string(&d).unwrap().as_bytes()).unwrap();
            d.as_object_mut().unwrap().insert(f.key.into(), serde_json::from_str(f.default).unwrap());
            let given = divload_host::plan_json(serde_json::to_string(&d).unwrap().as_bytes()).unwrap();
            assert_eq!(left_out, given, "{}: {} defaults to {}", m.name, f.key, f.default);
        }
        let result: Value =
            serde_json::from_slice(&divload_host::plan_json(m.example().as_bytes()).unwrap()).unwrap();
        let row = &result["plan"][0];
        assert!(!m.gantt.is_empty(), "{}: no timeline", m.name);
        // Every phase's end is in the rows, and the first phase's start; a later phase
        // without its start column starts where the phase before ends.
        for (j, p) in m.gantt.iter().enumerate() {
            let cols = [(p.start, j == 0), (p.end, true)];
            for (col, _) in cols.into_iter().filter(|&(c, needed)| needed && !c.is_empty()) {
                assert!(row[col].is_number(), "{}: timeline column {col} is not in the plan's rows", m.name);
            }
        }
        // Each chart's list is in the example's result, with the columns it draws.
        for c in m.charts {
            if let ChartKind::Lanes(phases) = c.kind {
                lanes_chart_draws(m.name, c, phases);
                continue;
            }
            let list = result[c.list]
                .as_array()
                .unwrap_or_else(|| panic!("{}: chart list {} missing", m.name, c.list));
            assert!(!list.is_empty(), "{}: chart list {} is empty", m.name, c.list);
            match c.kind {
                ChartKind::Line => {
                    for r in list {
                        assert!(
                            r[c.x].is_number() && r[c.y].is_number(),
                            "{}: {} rows lack {} or {}",
                            m.name,
                            c.list,
                            c.x,
                            c.y
                        );
                        assert!(
                            c.group.is_empty() || r[c.group].is_string(),
                            "{}: {} rows lack {}",
                            m.name,
                            c.list,
                            c.group
                        );
                    }
                }
                ChartKind::Cycle => {
                    assert!(
                        list.iter().all(Value::is_string),
                        "{}: {} is not a list of names",
                        m.name,
                        c.list
                    );
                    assert!(
                        c.group.is_empty() || result[c.group].is_array() || result.get(c.group).is_none()
                    );
                }
                ChartKind::Graph(g) => graph_chart_draws(m.name, m.fields, c, g),
                ChartKind::Lanes(_) => {}
            }
        }
    }
    let models: Value = serde_json::from_slice(&divload_host::models_json().unwrap()).unwrap();
    for (m, j) in MODELS.iter().zip(models.as_array().unwrap()) {
        assert_eq!(j["name"], m.name);
        assert_eq!(j["fields"].as_array().unwrap().len(), m.fields.len());
        assert_eq!(j["gantt"].as_array().unwrap().len(), m.gantt.len());
        assert_eq!(j["charts"].as_array().unwrap().len(), m.charts.len());
    }
    let scatter = &models[0]["fields"];
    let order = scatter.as_array().unwrap().iter().find(|f| f["key"] == "order").unwrap();
    assert_eq!(order["choices"], serde_json::json!(["bandwidth", "given", "search"]));
    let comp =
        &scatter[6]["fields"].as_array().unwrap().iter().find(|f| f["key"] == "comp_per_item").unwrap();
    assert_eq!((comp["min"].as_f64(), comp["min_open"].as_bool()), (Some(0.0), Some(true)));
}

/// A graph chart's keys are its documents' and results': in every example of the model
/// that has the edge list (at least one must), the nodes are named, each edge joins two
/// of them with a weight and a look the chart knows (its looks are the choices of the
/// edge's style field), each route of the result is a walk over the edges from its `from`
/// to its `to` that gets no more than the weight of any edge it crosses, and the nodes
/// left out are placeable nodes (not relays).
/// A lanes chart draws a further example of its model (the scatter's, sent in
/// installments: its plan's chunks): there every row names its lane and has each phase's
/// columns, a phase never ending before it starts, and a lane's rows in time order phase by
/// phase (a chunk arrives while the one before computes).
fn lanes_chart_draws(model: &str, c: &divload::doc::schema::Chart, phases: &[divload::doc::schema::Phase]) {
    assert!(!c.group.is_empty() && !phases.is_empty(), "{model}: lanes {} name no lane or phase", c.list);
    let mut drawn = 0;
    for doc in further_examples(model) {
        let text = serde_json::to_string(&doc).unwrap();
        let result: Value =
            serde_json::from_slice(&divload_host::plan_json(text.as_bytes()).unwrap()).unwrap();
        let Some(rows) = result[c.list].as_array() else { continue };
        // Each phase's end on each lane so far: a lane's rows never overlap in one phase.
        let mut last: std::collections::HashMap<(String, usize), f64> = Default::default();
        for r in rows {
            let lane = r[c.group].to_string();
            assert!(
                r[c.group].is_number() || r[c.group].is_string(),
                "{model}: {} rows lack {}",
                c.list,
                c.group
            );
            for (j, p) in phases.iter().enumerate() {
                let (from, to) = (r[p.start].as_f64(), r[p.end].as_f64());
                assert!(
                    from.is_some() && to.is_some() && from <= to,
                    "{model}: {} row {r}: phase {}",
                    c.list,
                    p.label
                );
                let (from, to) = (from.unwrap(), to.unwrap());
                let before = last.insert((lane.clone(), j), to);
                assert!(
                    before.is_none_or(|t| t <= from),
                    "{model}: lane {lane}'s {} goes back in time",
                    p.label
                );
            }
        }
        drawn += usize::from(!rows.is_empty());
    }
    assert!(drawn > 0, "{model}: no further example's result has {}", c.list);
}

fn graph_chart_draws(
    model: &str,
    fields: &[Field],
    c: &divload::doc::schema::Chart,
    g: &divload::doc::schema::Graph,
) {
    let edge_fields = match fields.iter().find(|f| f.key == g.edges).map(|f| &f.kind) {
        Some(Kind::List(inner)) => *inner,
        _ => panic!("{model}: graph edges {} are not a list of the schema", g.edges),
    };
    for key in ["name", "from", "to", g.weight] {
        assert!(edge_fields.iter().any(|f| f.key == key), "{model}: {} rows have no {key}", g.edges);
    }
    if !g.style.is_empty() {
        let Some(Kind::Choice(names)) = edge_fields.iter().find(|f| f.key == g.style).map(|f| &f.kind) else {
            panic!("{model}: the edges' style {} is not a choice", g.style);
        };
        let choices: Vec<_> = (0..).map_while(|i| names.name_at(i)).collect();
        for look in [g.arrow, g.thick] {
            assert!(choices.contains(&look), "{model}: {look} is not a {} of an edge", g.style);
        }
    }
    let mut drawn = 0;
    for doc in further_examples(model).into_iter().filter(|d| d[g.edges].is_array()) {
        let nodes: Vec<Vec<&str>> = [g.nodes, g.relays]
            .iter()
            .map(|l| {
                doc[*l]
                    .as_array()
                    .map_or(vec![], |rows| rows.iter().map(|r| r["name"].as_str().unwrap()).collect())
            })
            .collect();
        let all: Vec<&str> = nodes.concat();
        let edges = doc[g.edges].as_array().unwrap();
        let mut weight = std::collections::HashMap::new();
        let mut ends = std::collections::HashMap::new();
        for e in edges {
            let (from, to) = (e["from"].as_str().unwrap(), e["to"].as_str().unwrap());
            assert!(all.contains(&from) && all.contains(&to), "{model}: edge {e} joins unknown nodes");
            weight.insert(e["name"].as_str().unwrap(), e[g.weight].as_f64().unwrap());
            ends.insert(e["name"].as_str().unwrap(), (from, to));
        }
        let result: Value = serde_json::from_slice(
            &divload_host::plan_json(serde_json::to_string(&doc).unwrap().as_bytes()).unwrap(),
        )
        .unwrap();
        let routes = result[c.list].as_array().unwrap();
        assert!(!routes.is_empty(), "{model}: no {} to draw", c.list);
        for r in routes {
            let (from, to) = (r["from"].as_str().unwrap(), r["to"].as_str().unwrap());
            assert!(nodes[0].contains(&from) && nodes[0].contains(&to), "{model}: route {r}");
            let mut at = from;
            let mut least = f64::INFINITY;
            for name in r[g.edges].as_array().unwrap() {
                let name = name.as_str().unwrap();
                let (a, b) = ends[name];
                at = if a == at {
                    b
                } else if b == at {
                    a
                } else {
                    panic!("{model}: route {r} leaves {at} by {name}")
                };
                least = least.min(weight[name]);
            }
            assert_eq!(at, to, "{model}: route {r} does not end at {to}");
            let share = r[g.weight].as_f64().unwrap();
            assert!(
                share > 0.0 && share <= least * (1.0 + 1e-12),
                "{model}: route {r} gets {share} of {least}"
            );
        }
        for name in result[c.group].as_array().unwrap() {
            assert!(nodes[0].contains(&name.as_str().unwrap()), "{model}: {name} left out is not a node");
        }
        drawn += 1;
    }
    assert!(drawn > 0, "{model}: no example has {}, so the graph chart is never drawn", g.edges);
}

/// The page loads each model's example from `examples/MODEL.json` (scripts/build-wasm
/// copies them next to the module, which does not carry them): each is `divload example
/// MODEL`, regenerated with `divload example MODEL > examples/MODEL.json`.
#[test]
fn every_model_has_its_example_file() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for m in MODELS {
        let path = root.join("examples").join(format!("{}.json", m.name));
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(
            text,
            m.example(),
            "{} is not `divload example {}`: run `divload example {} > examples/{}.json`",
            path.display(),
            m.name,
            m.name,
            m.name
        );
    }
}
