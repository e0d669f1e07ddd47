//! `heap advisors` on a snapshot recorded now from a Node app with planted waste: 300 copies of
//! one config object (beside 50 that differ), 200 copies of one array, and 400 sessions each
//! holding an empty `Map`, a `Set` (empty in 390 of them) and a `new Array(64)`, and a `Map` of
//! 3,000 users to one of three statuses (beside one of 3,000 distinct names and one of 500 entries,
//! which are not low-cardinality findings), and 30 arrays of 4,096 slots holding two objects each
//! (beside 30 full ones). Every finding's
//! count and saving are computed here from the raw snapshot JSON, with retained sizes from
//! DevTools' own heap worker (the oracle), never from jsprof's output.

use std::collections::HashMap;

use serde_json::Value;

use crate::heap_redact::record;
use crate::heap_scale::oracle;
use crate::support::{argv, fresh_dir, json_array, jsprof_json};

const APP: &str = r#"
const v8 = require('v8');
class Config { constructor(region) { this.kind = 'config'; this.region = region; this.mode = 'strict'; } }
class Session {
  constructor(i) {
    this.id = 'session-' + i;
    this.listeners = new Map();
    this.tags = i < 10 ? new Set(['tag-' + i]) : new Set();
    this.slots = new Array(64);
  }
}
globalThis.planted = {
  configs: Array.from({ length: 300 }, () => new Config('eu-west-1')),
  distinct: Array.from({ length: 50 }, (_, i) => new Config('region-' + i)),
  methods: Array.from({ length: 200 }, () => ['GET', 'POST', 'PUT'].map((m) => m)),
  sessions: Array.from({ length: 400 }, (_, i) => new Session(i)),
  statuses: new Map(Array.from({ length: 3000 }, (_, i) => ['user-' + i, ['active', 'idle', 'gone'][i % 3]])),
  names: new Map(Array.from({ length: 3000 }, (_, i) => ['user-' + i, 'name-' + i])),
  few: new Map(Array.from({ length: 500 }, (_, i) => ['key-' + i, i % 2 ? 'on' : 'off'])),
  grids: Array.from({ length: 30 }, (_, i) => { const a = new Array(4096); a[0] = { i }; a[100] = { i }; return a; }),
  full: Array.from({ length: 30 }, (_, i) => Array.from({ length: 600 }, (_, j) => ({ i, j }))),
};
v8.writeHeapSnapshot(process.argv[2]);
"#;

/// The raw graph, read here from the JSON (not through jsprof): per node `(type, name)` and its
/// edges `(type, name, target)`.
pub(crate) struct Graph {
    pub(crate) nodes: Vec<(String, String)>,
    pub(crate) ids: Vec<u64>,
    pub(crate) self_size: Vec<u64>,
    pub(crate) edges: Vec<Vec<(String, String, usize)>>,
}

impl Graph {
    pub(crate) fn parse(text: &[u8]) -> Graph {
        let v: Value = serde_json::from_slice(text).unwrap();
        let meta = &v["snapshot"]["meta"];
        let fields = |k: &str| -> Vec<String> {
            json_array(&meta[k])
                .iter()
                .map(|f| f.as_str().unwrap().to_string())
                .collect()
        };
        let (nf, ef) = (fields("node_fields"), fields("edge_fields"));
        let at = |list: &[String], name: &str| list.iter().position(|f| f == name).unwrap();
        let node_types = json_array(&meta["node_types"][at(&nf, "type")]);
        let edge_types = json_array(&meta["edge_types"][at(&ef, "type")]);
        let strings = json_array(&v["strings"]);
        let text = |i: &Value| strings[i.as_u64().unwrap() as usize].as_str().unwrap();
        let all_edges = json_array(&v["edges"]);
        let mut g = Graph {
            nodes: Vec::new(),
            ids: Vec::new(),
            self_size: Vec::new(),
            edges: Vec::new(),
        };
        let mut e = 0;
        for row in json_array(&v["nodes"]).chunks(nf.len()) {
            let kind = node_types[row[at(&nf, "type")].as_u64().unwrap() as usize]
                .as_str()
                .unwrap();
            g.nodes
                .push((kind.to_string(), text(&row[at(&nf, "name")]).to_string()));
            g.ids.push(row[at(&nf, "id")].as_u64().unwrap());
            g.self_size
                .push(row[at(&nf, "self_size")].as_u64().unwrap());
            let mut out = Vec::new();
            for _ in 0..row[at(&nf, "edge_count")].as_u64().unwrap() {
                let edge = &all_edges[e * ef.len()..(e + 1) * ef.len()];
                let kind = edge_types[edge[at(&ef, "type")].as_u64().unwrap() as usize]
                    .as_str()
                    .unwrap();
                let name = &edge[at(&ef, "name_or_index")];
                let name = match kind {
                    "element" | "hidden" => name.to_string(),
                    _ => text(name).to_string(),
                };
                let to = edge[at(&ef, "to_node")].as_u64().unwrap() as usize / nf.len();
                out.push((kind.to_string(), name, to));
                e += 1;
            }
            g.edges.push(out);
        }
        g
    }

    pub(crate) fn named(&self, n: usize, kind: &str, name: &str) -> Option<usize> {
        self.edges[n]
            .iter()
            .find(|(k, e, _)| k == kind && e == name)
            .map(|e| e.2)
    }

    fn is(&self, n: usize, kind: &str, name: &str) -> bool {
        self.nodes[n].0 == kind && self.nodes[n].1 == name
    }

    /// A store with nothing in it but its hidden class.
    fn empty(&self, n: usize) -> bool {
        self.edges[n]
            .iter()
            .all(|(k, e, _)| k == "weak" || (k == "internal" && e == "map"))
    }

    /// The texts of the strings an array's elements point at, in order.
    fn element_texts(&self, array: usize) -> Vec<String> {
        self.edges[array]
            .iter()
            .filter(|(k, _, _)| k == "element")
            .map(|(_, _, t)| self.nodes[*t].1.clone())
            .collect()
    }
}

/// Count and what keeping one copy saves: all retained sizes but the smallest.
fn duplicates(members: &[usize], retained: &HashMap<usize, u64>) -> (u64, u64) {
    let sizes: Vec<u64> = members.iter().map(|n| retained[n]).collect();
    let total: u64 = sizes.iter().sum();
    (members.len() as u64, total - sizes.iter().min().unwrap())
}

fn finding<'a>(report: &'a Value, advisor: &str, class: &str, held_by: Option<&str>) -> &'a Value {
    json_array(&report["advice"])
        .iter()
        .find(|f| {
            f["advisor"] == advisor
                && f["class"] == class
                && held_by.is_none_or(|h| f["held_by"] == h)
        })
        .unwrap_or_else(|| panic!("no {advisor} finding for {class} {held_by:?}: {report:#}"))
}

#[test]
fn advisors_find_planted_waste_with_savings_devtools_agrees_on() {
    let dir = fresh_dir("heap-advisors");
    let snapshot = record(&dir, APP);
    let report = jsprof_json(&argv("heap advisors {} --limit 0 --json", &[&snapshot]));
    let Some(devtools) = oracle(&snapshot, 1) else {
        return;
    };
    let retained: HashMap<usize, u64> = json_array(&devtools["sampled_nodes"])
        .iter()
        .map(|n| {
            (
                n["ordinal"].as_u64().unwrap() as usize,
                n["retained"].as_u64().unwrap(),
            )
        })
        .collect();
    let g = Graph::parse(&std::fs::read(&snapshot).unwrap());
    let nodes = 0..g.nodes.len();

    // `globalThis.planted`'s arrays, element by element.
    let planted = nodes
        .clone()
        .find_map(|n| g.named(n, "property", "planted"))
        .unwrap();
    let items = |field: &str| -> Vec<usize> {
        let array = g.named(planted, "property", field).unwrap();
        g.edges[array]
            .iter()
            .filter(|(k, _, _)| k == "element")
            .map(|e| e.2)
            .collect()
    };

    // 300 identical configs; the 50 with their own region are no one's duplicates.
    let configs = items("configs");
    assert_eq!(configs.len(), 300);
    assert!(configs.iter().all(|&n| g.is(n, "object", "Config")
        && g.named(n, "property", "region")
            .is_some_and(|r| g.nodes[r].1 == "eu-west-1")));
    let f = finding(&report, "duplicate_objects", "Config", None);
    let (count, saving) = duplicates(&configs, &retained);
    assert_eq!(
        (f["count"].as_u64().unwrap(), f["saving"].as_u64().unwrap()),
        (count, saving)
    );
    assert!(
        json_array(&report["advice"])
            .iter()
            .filter(|f| f["class"] == "Config")
            .count()
            == 1,
        "the distinct configs are not reported"
    );
    let path = &f["path"]["steps"];
    assert!(
        json_array(path).iter().any(|s| s["edge"] == ".configs"),
        "the path names the field: {path}"
    );

    // 200 copies of ['GET', 'POST', 'PUT'].
    let methods = items("methods");
    assert_eq!(methods.len(), 200);
    assert!(methods
        .iter()
        .all(|&n| g.is(n, "object", "Array") && g.element_texts(n) == ["GET", "POST", "PUT"]));
    let f = finding(&report, "duplicate_objects", "Array", None);
    let (count, saving) = duplicates(&methods, &retained);
    assert_eq!(
        (f["count"].as_u64().unwrap(), f["saving"].as_u64().unwrap()),
        (count, saving)
    );

    // Each session's empty collections: the saving is their retained sizes (DevTools counts the
    // table or store in its single owner's size).
    let sessions = items("sessions");
    assert_eq!(sessions.len(), 400);
    assert!(sessions.iter().all(|&n| g.is(n, "object", "Session")));
    for (field, class, store, expected) in [
        ("listeners", "Map", "table", 400),
        ("tags", "Set", "table", 390),
        ("slots", "Array", "elements", 400),
    ] {
        let empty: Vec<usize> = sessions
            .iter()
            .filter_map(|&s| g.named(s, "property", field))
            .filter(|&c| g.named(c, "internal", store).is_some_and(|t| g.empty(t)))
            .collect();
        assert_eq!(empty.len(), expected, "{field}");
        let saving: u64 = empty.iter().map(|c| retained[c]).sum();
        let held_by = format!("Session.{field}");
        let f = finding(&report, "empty_collections", class, Some(&held_by));
        assert_eq!(f["count"].as_u64().unwrap(), expected as u64, "{held_by}");
        assert_eq!(f["saving"].as_u64().unwrap(), saving, "{held_by}");
        assert_eq!(f["smi_blind"], true);
    }

    // 3,000 entries over three values: one value slot (8 bytes in Node) each to save. The raw
    // table holds exactly 3,000 slots pointing at the three texts.
    let statuses = g.named(planted, "property", "statuses").unwrap();
    let table = g.named(statuses, "internal", "table").unwrap();
    let value_slots = g.edges[table]
        .iter()
        .filter(|(_, _, t)| ["active", "idle", "gone"].contains(&g.nodes[*t].1.as_str()))
        .count();
    assert_eq!(value_slots, 3000);
    let f = finding(
        &report,
        "low_cardinality_maps",
        "Map",
        Some("Object.statuses"),
    );
    assert_eq!(f["count"], 1, "{f}");
    assert_eq!(f["entries"], 3000, "{f}");
    assert_eq!(f["distinct_values"], 3, "{f}");
    assert_eq!(f["saving"], 3000 * 8, "{f}");
    assert_eq!(
        f["retained_size"].as_u64(),
        Some(retained[&statuses]),
        "{f}"
    );
    // Many distinct values, or too few entries: no finding.
    assert_eq!(
        json_array(&report["advice"])
            .iter()
            .filter(|f| f["advisor"] == "low_cardinality_maps")
            .count(),
        1,
        "{report}"
    );

    // 30 arrays of 4,096 slots holding two objects each: a store of the two would save the rest
    // (Node's 16-byte header and 8-byte slots, read here from the raw store's size). The full
    // arrays beside them are not sparse.
    let grids = items("grids");
    assert_eq!(grids.len(), 30);
    let mut saving = 0;
    for &a in &grids {
        let store = g.named(a, "internal", "elements").unwrap();
        // The array's own element edges (the store repeats them as internal ones).
        let used = g.edges[a].iter().filter(|(k, _, _)| k == "element").count() as u64;
        assert_eq!(used, 2);
        saving += g.self_size[store] - 16 - used * 8;
    }
    let f = finding(&report, "sparse_arrays", "Array", Some("Array[]"));
    assert_eq!(f["count"], 30, "{f}");
    assert_eq!(f["saving"].as_u64(), Some(saving), "{f}");
    assert!(
        grids.iter().any(|n| f["sample_id"] == g.ids[*n]),
        "the sample is one of the planted arrays: {f}"
    );
    assert!(
        json_array(&report["advice"])
            .iter()
            .filter(|f| f["advisor"] == "sparse_arrays")
            .all(|f| f["held_by"] != "Object.full" && f["count"] != 600),
        "{report}"
    );

    // The duplicated strings are there too, as `heap strings` counts them.
    let strings = jsprof_json(&argv("heap strings {} --json --limit 0", &[&snapshot]));
    let in_strings: u64 = json_array(&strings["strings"])
        .iter()
        .map(|s| s["wasted_size"].as_u64().unwrap())
        .filter(|&w| w >= 1024)
        .sum();
    let in_advice: u64 = json_array(&report["advice"])
        .iter()
        .filter(|f| f["advisor"] == "duplicate_strings")
        .map(|f| f["saving"].as_u64().unwrap())
        .sum();
    assert_eq!(in_strings, in_advice);
    let _ = std::fs::remove_dir_all(&dir);
}
