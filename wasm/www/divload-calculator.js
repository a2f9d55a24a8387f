// <divload-calculator>: divload's calculator as a custom element, for any page. One script
// tag loads it (no framework, no build step); it reads pkg/manifest.json beside this file
// (every model's schema: its document's fields with their kinds, ranges and help, and how a
// plan row is drawn), turns that description into a form, a result table and charts, and
// plans with its model's own wasm module (pkg/divload_MODEL.js), loaded when first shown
// (and one of the model's `extra` modules, pkg/divload_MODEL_PART.js, when a document
// needs what the first leaves out).
// It knows no model: a model added to divload's registry works here unchanged.
//
//   <script type="module" src="divload-calculator.js"></script>
//   <divload-calculator model="NAME" editable></divload-calculator>
//
// The document planned first: the `document` attribute (JSON), else a child
// <script type="application/json">, else the `src` attribute (a URL), else the model's
// example (pkg/examples/NAME.json). Each plan is announced by a `divload-plan` event
// (bubbles, composed) whose detail is the result document, as `divload plan --json`
// prints it. Its shadow DOM inherits the page's font and colour; the colours it adds are
// custom properties (`--divload-accent`, …) with fallbacks. docs/widget.md has the rest.

const MAX_ROWS_DRAWN = 200;
// The terms every model answers in, shown first.
const ENVELOPE = ['method', 'makespan', 'lower_bound', 'gap', 'exact'];
// Everything is found in pkg/ beside this module, wherever the page that embeds it lives.
// scripts/build-wasm writes the minified copy pages load into pkg/ itself, with PKG = ''.
const PKG = 'pkg/';
const here = (path) => new URL(PKG + path, import.meta.url).href;

let listed = null;
/** The manifest, fetched once for every element of the page: `{ version, models }`. */
export function manifest() {
  listed ??= fetch(here('manifest.json')).then((res) => {
    if (!res.ok) throw new Error(`its list of models is missing (${res.status})`);
    return res.json();
  });
  return listed;
}

// Each model's module, initialised once, on first use, and shared by the elements that
// show it: a page downloads only the modules of the models it shows. A model's `extra`
// modules (the manifest's) hold the solvers its first one leaves out: the first refuses a
// document that needs one, saying LEFT_OUT and which module plans it, and that module is
// then loaded and plans the document.
const LEFT_OUT = /left out of this build: module (\w+) plans/;
const modules = new Map();
const moduleName = new WeakMap();
function moduleOf(model, name = model.name) {
  if (!modules.has(name)) {
    modules.set(name, import(here(`divload_${name}.js`)).then(async (m) => {
      await m.default();
      moduleName.set(m, name);
      return m;
    }));
  }
  return modules.get(name);
}

const examples = new Map();
async function example(model) {
  if (!examples.has(model.name)) {
    examples.set(model.name, fetch(here(`examples/${model.name}.json`)).then((res) => {
      if (!res.ok) throw new Error(`the example of ${model.name} is missing (${res.status})`);
      return res.json();
    }));
  }
  return structuredClone(await examples.get(model.name));
}

const idOf = (path) => `f-${path.join('-')}`;

function make(tag, props = {}, ...children) {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
}

function button(text, onClick) {
  const b = make('button', { type: 'button', textContent: text });
  b.addEventListener('click', onClick);
  return b;
}

const fmt = (t) => (Number.isInteger(t) ? String(t) : Math.abs(t) >= 100 ? t.toFixed(2) : Math.abs(t) >= 1 ? t.toFixed(3) : t.toPrecision(4));
const show = (v) => (typeof v === 'number' ? fmt(v) : typeof v === 'boolean' ? (v ? 'yes' : 'no') : v === null ? '' : String(v));

// Whether `c` has something to draw: a graph when the document has its edges (a graph
// chart draws the document's own graph, with the result's routes over it), any other
// chart when the result's list has rows.
function drawable(c, result, doc) {
  if (c.kind === 'graph') return Array.isArray(doc?.[c.edges]) && doc[c.edges].length > 0;
  return Array.isArray(result[c.list]) && result[c.list].length > 0;
}

// The element's own style. Font and text colour are the page's (inherited through the
// shadow root); each colour it adds is a custom property the page may set, and the greys
// are mixed from the text colour, so a dark page stays readable.
const STYLE = `
:host { display: block; font: inherit; color: inherit; min-width: 0;
  --accent: var(--divload-accent, #2f6db5); --comp: var(--divload-comp, #e08a1e);
  --ret: var(--divload-ret, #2e9e6a); --idle: var(--divload-idle, #f2c94c); --err: var(--divload-error, #b00020);
  --wait: var(--divload-wait, color-mix(in srgb, currentColor 12%, transparent));
  --even: var(--divload-even, color-mix(in srgb, currentColor 48%, transparent));
  --muted: var(--divload-muted, color-mix(in srgb, currentColor 70%, transparent));
  --line: var(--divload-line, color-mix(in srgb, currentColor 25%, transparent));
  --focus: var(--divload-focus, #ffbf47); }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
:host(:not([editable])) .edit { display: none !important; }
h2 { margin-top: 1.6rem; border-bottom: 1px solid var(--line); font-size: 1.3em; }
h3 { font-size: 1.1em; }
code, textarea { font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.help { color: var(--muted); }
.toolbar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .6rem 0; }
button, .button { font: inherit; color: inherit; padding: .35rem .8rem; border: 1px solid var(--even); border-radius: 4px;
                  background: var(--divload-button, color-mix(in srgb, currentColor 6%, transparent)); cursor: pointer; }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
button:disabled { opacity: .5; cursor: default; }
button:focus-visible, .button:focus-within, input:focus-visible, select:focus-visible, summary:focus-visible,
textarea:focus-visible, .scroll:focus-visible { outline: 3px solid var(--focus); outline-offset: 1px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.settings { display: flex; flex-wrap: wrap; gap: 1rem; }
.field { display: flex; flex-direction: column; min-width: min(11rem, 100%); }
.field label { font-weight: 600; }
input, select, textarea { font: inherit; color: inherit; background: var(--divload-field, transparent);
  padding: .25rem .35rem; border: 1px solid var(--even); border-radius: 3px; }
select option { color: initial; }
textarea { width: 100%; font-size: .85rem; }
[aria-invalid="true"] { border: 2px solid var(--err); background: color-mix(in srgb, var(--err) 6%, transparent); }
.field-error { color: var(--err); font-size: .88rem; display: block; }
.field-error:empty { display: none; }
table { border-collapse: collapse; margin: .5rem 0; width: 100%; }
caption { text-align: left; color: var(--muted); padding-bottom: .3rem; }
th, td { padding: .2rem .35rem; text-align: left; vertical-align: top; }
table.workers input { width: 100%; min-width: 6rem; }
table.workers textarea { min-width: 12rem; }
table.plan td:nth-child(n+3) { text-align: right; font-variant-numeric: tabular-nums; }
table.plan th:nth-child(n+3) { text-align: right; }
table.plan tbody tr:nth-child(odd) { background: color-mix(in srgb, currentColor 5%, transparent); }
.summary { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(15rem, 100%), 1fr)); gap: .5rem 1.5rem; margin: 0; }
.summary dt { color: var(--muted); font-size: .9rem; }
.summary dd { margin: 0; font-size: 1.25rem; font-weight: 600; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
svg.gantt, svg.bars { width: 100%; height: auto; display: block; }
svg .wait { fill: var(--wait); } svg .even { fill: var(--even); }
svg .label { font-size: 11px; fill: currentColor; } svg .axis { font-size: 10px; fill: var(--muted); }
svg .tick { stroke: var(--line); stroke-width: 1; }
.legend .swatch { display: inline-block; width: 1em; height: .8em; vertical-align: middle; margin-left: .6em; }
.swatch.wait { background: var(--wait); }
figure.chart { margin: .8rem 0 1.2rem; }
figure.chart figcaption { font-weight: 600; margin-bottom: .2rem; }
/* Wide tables scroll in their own box; relative, so that their visually hidden labels stay inside it. */
.scroll { overflow-x: auto; max-width: 100%; position: relative; }
svg .proc { stroke: #7a4a0c; stroke-width: 1; }
svg .idle-proc { fill: transparent; stroke: var(--even); stroke-dasharray: 2 2; }
.swatch.idle-proc { border: 1px dashed var(--even); border-radius: 50%; width: .9em; height: .9em; }
/* A plan's phases, in the order of the model's timeline. */
svg .phase0 { fill: var(--accent); } svg .phase1 { fill: var(--comp); } svg .phase2 { fill: var(--ret); } svg .phase3 { fill: var(--idle); }
.swatch.phase0 { background: var(--accent); } .swatch.phase1 { background: var(--comp); }
.swatch.phase2 { background: var(--ret); } .swatch.phase3 { background: var(--idle); }
fieldset.object { border: 1px solid var(--line); border-radius: 4px; margin: .8rem 0; min-width: 0; padding: .3rem .5rem; }
.field input, .field select, .field textarea { max-width: 100%; }
fieldset.object legend { font-weight: 600; }
.list { margin: .8rem 0; }
#doc-comment { font-style: italic; }
svg.chart-line { width: 100%; max-width: 720px; height: auto; display: block; }
svg.chart-cycle { width: 100%; max-width: 420px; height: auto; display: block; }
svg .series { fill: none; stroke-width: 2; }
svg .series0 { stroke: var(--comp); } svg .series1 { stroke: var(--accent); } svg .series2 { stroke: var(--ret); } svg .series3 { stroke: var(--idle); }
svg .dot0 { fill: var(--comp); } svg .dot1 { fill: var(--accent); } svg .dot2 { fill: var(--ret); } svg .dot3 { fill: var(--idle); }
svg .best { stroke: currentColor; stroke-width: 2; }
svg .arc { fill: none; stroke: var(--even); stroke-width: 1.5; }
/* The document's graph: links grey (thick: all of it for every route; arrows: one way),
   each pair's routes in its own colour over them, nodes left out of the plan dimmed. */
svg.chart-graph { width: 100%; min-width: 34rem; height: auto; display: block; }
svg .graph-link { stroke: var(--even); stroke-width: 1.2; }
svg .graph-edge.thick .graph-link { stroke: color-mix(in srgb, currentColor 65%, transparent); stroke-width: 5; }
svg .graph-arrowhead { fill: var(--even); }
svg .graph-route { stroke-width: 2; stroke-linecap: round; }
svg .relay-node { fill: color-mix(in srgb, currentColor 58%, transparent); }
svg .graph-node.left-out { opacity: .5; }
svg .graph-node text { font-size: 9px; }
.graph-legend { font-size: .85rem; }
/* A plan the form has moved on from: still readable, plainly not the form's. */
.stale { border-left: 4px solid var(--err); padding: .3rem .6rem; background: color-mix(in srgb, var(--err) 6%, transparent); font-weight: 600; }
#results[data-stale="true"] #summary, #results[data-stale="true"] #c-arrays { opacity: .55; text-decoration: line-through; }
`;

// The element's parts; `edit` marks what a read-only element (no `editable`) does not show.
const TEMPLATE = `
<form id="doc" novalidate>
  <div class="toolbar edit">
    <button type="button" id="load-example">Load the model's example</button>
    <label class="button" for="import-file">Import document JSON…</label>
    <input type="file" id="import-file" accept=".json,application/json" class="visually-hidden">
    <button type="button" id="export">Export document JSON</button>
    <span id="io-error" class="field-error" role="alert"></span>
  </div>
  <p id="doc-comment" class="help"></p>
  <div id="fields" class="edit"></div>
  <div class="toolbar">
    <button type="submit" id="compute" class="primary edit">Plan</button>
    <span id="form-error" class="field-error" role="alert"></span>
  </div>
</form>
<section id="results" aria-live="polite" hidden>
  <h2>Plan</h2>
  <p id="stale-note" class="stale" role="status" hidden>Out of date: the form has changed since this plan. Press Plan to plan it again.</p>
  <dl class="summary" id="summary"></dl>
  <div id="comparison">
    <h3>Makespans compared</h3>
    <svg id="bars" class="bars" role="img" aria-labelledby="bars-title"><title id="bars-title">Makespan of the plan and of what it is compared with</title></svg>
    <p id="baseline-note" class="help"></p>
  </div>
  <h3>Gantt chart</h3>
  <p class="legend" id="legend"></p>
  <figure class="chart" id="plan-chart">
    <figcaption>The plan</figcaption>
    <svg id="gantt-plan" class="gantt" role="img" aria-label="Gantt chart of the plan"></svg>
  </figure>
  <div id="baselines"></div>
  <div id="charts"></div>
  <div id="c-block">
    <h3>Counts and displacements by rank (MPI_Scatterv, MPI_Gatherv)</h3>
    <div class="toolbar"><button type="button" id="copy-c">Copy the C arrays</button><span id="copy-status" role="status"></span></div>
    <textarea id="c-arrays" readonly rows="4" aria-label="C arrays counts and displs"></textarea>
  </div>
  <h3>Result</h3>
  <div class="scroll" tabindex="0" role="region" aria-label="Result values (scrolls sideways on a narrow screen)"><table id="scalars" class="plan">
    <thead><tr><th scope="col">Value</th><th scope="col">Result</th></tr></thead>
    <tbody></tbody>
  </table></div>
  <div id="lists"></div>
  <h3>Plan rows</h3>
  <div class="scroll" tabindex="0" role="region" aria-label="Plan table (scrolls sideways on a narrow screen)"><table id="plan-table" class="plan">
    <thead><tr></tr></thead>
    <tbody></tbody>
  </table></div>
  <p id="truncated" class="help"></p>
</section>
`;

// ---- one element: its form and results, found in its shadow root (`root`); `host` is the element ----

function calculator(root, host) {
  const $ = (id) => root.getElementById(id);
  // The model shown and the document the form was built from: keys the form does not edit
  // (version, comment, a row's comment) are kept from it.
  let current = { model: null, doc: {}, api: null };

  // ---- the form, from the schema ------------------------------------------------------

  // The rule a number must follow, in words, from the schema's range.
  function rangeText(f) {
    const parts = [];
    if (f.min !== undefined) parts.push(`${f.min_open ? '>' : '≥'} ${f.min}`);
    if (f.max !== undefined) parts.push(`${f.max_open ? '<' : '≤'} ${f.max}`);
    return parts.length ? `must be ${f.kind === 'integer' ? 'a whole number ' : ''}${parts.join(' and ')}` : '';
  }

  const isScalar = (f) => !['list', 'object'].includes(f.kind);

  // The input for one value: `kind` on its dataset says how it is read back. A choice whose
  // value is not one of its names (a given scenario written as an object) and a list or
  // object inside a table row are edited as JSON text.
  function control(f, value, id, nested) {
    let kind = nested ? 'json' : f.kind;
    if (kind === 'choice' && value !== undefined && !f.choices.includes(value)) kind = 'json';
    let input;
    if (kind === 'choice') {
      input = make('select');
      if (f.default === undefined) input.append(new Option('', ''));
      input.append(...f.choices.map((c) => new Option(c, c)));
      input.value = value ?? f.default ?? '';
      // A choice the document left out stays out while it shows its default (the reader
      // takes the default then): an optional object is not created by its selects alone.
      input.given = value !== undefined;
      input.addEventListener('change', () => { input.given = true; });
    } else if (kind === 'flag') {
      input = make('input', { type: 'checkbox', checked: value === true });
    } else if (kind === 'json') {
      input = make('textarea', { rows: 2, value: value === undefined ? '' : JSON.stringify(value) });
    } else {
      input = make('input', { value: value === undefined ? '' : String(value) });
      if (kind !== 'text') input.inputMode = kind === 'integer' ? 'numeric' : 'decimal';
      if (f.default !== undefined) input.placeholder = String(f.default);
    }
    Object.assign(input, { id });
    input.dataset.kind = kind;
    input.dataset.key = f.key;
    input.field = f;
    const err = make('span', { id: `${id}-error`, className: 'field-error' });
    err.setAttribute('role', 'alert');
    input.setAttribute('aria-describedby', `${id}-error${f.help && !nested ? ` ${id}-help` : ''}`);
    return { input, err };
  }

  // A top-level or nested scalar: label, input, help, error.
  function scalarField(f, value, path) {
    const id = idOf(path);
    const { input, err } = control(f, value, id, false);
    const label = make('label', { htmlFor: id, textContent: f.unit ? `${f.key} (${f.unit})` : f.key });
    const box = make('div', { className: 'field' }, label, input);
    if (f.help) box.append(make('span', { id: `${id}-help`, className: 'help', textContent: f.help }));
    box.append(err);
    return box;
  }

  // Scalars side by side, then each object as a fieldset and each list as a table.
  function fieldsOf(fields, obj, path) {
    const settings = make('div', { className: 'settings' });
    const rest = [];
    for (const f of fields) {
      const here = [...path, f.key];
      if (f.kind === 'list') rest.push(listTable(f, obj?.[f.key], here));
      else if (f.kind === 'object') rest.push(fieldset(f, obj?.[f.key], here));
      else settings.append(scalarField(f, obj?.[f.key], here));
    }
    return [settings, ...rest];
  }

  function fieldset(f, value, path) {
    const id = idOf(path);
    const box = make('fieldset', { id, className: 'object' });
    box.field = f;
    const err = make('span', { id: `${id}-error`, className: 'field-error' });
    err.setAttribute('role', 'alert');
    box.append(make('legend', { textContent: f.help ? `${f.key}: ${f.help}` : f.key }), ...fieldsOf(f.fields, value ?? {}, path), err);
    return box;
  }

  // An editable table: one row per object, one column per field, add and remove.
  function listTable(f, rows, path) {
    const id = idOf(path);
    const table = make('table', { className: 'workers' });
    table.append(make('caption', { textContent: f.help ? `${f.key}: ${f.help}` : f.key }));
    const head = table.createTHead().insertRow();
    for (const g of f.fields) {
      const th = make('th', { scope: 'col', textContent: g.key, title: g.help ?? '' });
      if (g.unit) th.append(make('small', { textContent: ` (${g.unit})` }));
      head.append(th);
    }
    head.append(make('th', { scope: 'col' }, make('span', { className: 'visually-hidden', textContent: 'Remove' })));
    table.createTBody();
    const box = make('div', { id, className: 'list' });
    box.field = f;
    box.path = path;
    box.table = table;
    const scroll = make('div', { className: 'scroll', tabIndex: 0 }, table);
    scroll.setAttribute('role', 'region');
    scroll.setAttribute('aria-label', `${f.key} table (scrolls sideways on a narrow screen)`);
    const err = make('span', { id: `${id}-error`, className: 'field-error' });
    err.setAttribute('role', 'alert');
    const add = button(`Add a row to ${f.key}`, () => addRow(box, nextRow(box)));
    box.append(scroll, make('div', { className: 'toolbar' }, add), err);
    for (const r of Array.isArray(rows) ? rows : []) addRow(box, r);
    return box;
  }

  function addRow(box, obj) {
    const tr = box.table.tBodies[0].insertRow();
    tr.orig = obj;
    for (const g of box.field.fields) {
      const { input, err } = control(g, obj?.[g.key], '', !isScalar(g));
      tr.insertCell().append(input, err);
    }
    tr.insertCell().append(button('Remove', () => { tr.remove(); relabel(box); markStale(); }));
    relabel(box);
    markStale();
  }

  // A new row: the last one's values, its names made unique, or the schema's defaults.
  function nextRow(box) {
    const rows = box.table.tBodies[0].rows;
    const n = rows.length + 1;
    if (n === 1) {
      return Object.fromEntries(box.field.fields.filter((g) => g.default !== undefined).map((g) => [g.key, g.default]));
    }
    const last = readRow(rows[n - 2], () => {});
    for (const g of box.field.fields) if (g.kind === 'text' && typeof last[g.key] === 'string') last[g.key] += `-${n}`;
    return last;
  }

  // Ids and accessible names follow the row number: `f-workers-2-comp_per_item`, as
  // divload's messages name the field (`workers[2].comp_per_item`).
  function relabel(box) {
    [...box.table.tBodies[0].rows].forEach((tr, i) => {
      for (const input of tr.querySelectorAll('[data-kind]')) {
        input.id = idOf([...box.path, i, input.dataset.key]);
        input.nextElementSibling.id = `${input.id}-error`;
        input.setAttribute('aria-describedby', `${input.id}-error`);
        input.setAttribute('aria-label', `${box.field.key} ${i + 1} ${input.dataset.key}`);
      }
      tr.lastElementChild.firstElementChild.setAttribute('aria-label', `Remove ${box.field.key} ${i + 1}`);
    });
  }

  function buildForm(model, doc, api) {
    current = { model, doc, api };
    $('doc-comment').textContent = typeof doc.comment === 'string' ? doc.comment : '';
    $('fields').replaceChildren(...fieldsOf(model.fields, doc, []));
    // The attribute follows the model shown (an imported document may name another), and
    // the page around hears of it (a chooser of models shows it).
    if (host.getAttribute('model') !== model.name) host.setAttribute('model', model.name);
    host.dispatchEvent(new CustomEvent('divload-model', { bubbles: true, composed: true, detail: model }));
  }

  // ---- reading the form back, checked against the schema --------------------------------

  function clearErrors() {
    for (const e of root.querySelectorAll('.field-error')) e.textContent = '';
    for (const e of root.querySelectorAll('[aria-invalid]')) e.removeAttribute('aria-invalid');
    for (const e of root.querySelectorAll('[data-described-by]')) {
      e.setAttribute('aria-describedby', e.dataset.describedBy);
      delete e.dataset.describedBy;
    }
  }

  function fieldError(el, message) {
    el.setAttribute('aria-invalid', 'true');
    const err = $(`${el.id}-error`);
    if (err) err.textContent = message;
  }

  // One input's value (undefined: leave the key out), or `bad(message)`.
  function readInput(input, bad) {
    const f = input.field;
    const kind = input.dataset.kind;
    if (kind === 'flag') return input.checked ? true : undefined;
    if (kind === 'choice') return input.value === '' || (!input.given && input.value === f.default) ? undefined : input.value;
    const text = input.value.trim();
    if (text === '') return undefined;
    if (kind === 'text') return input.value;
    if (kind === 'json') {
      try {
        return JSON.parse(text);
      } catch (e) {
        return bad(`not JSON: ${e.message}`);
      }
    }
    const v = Number(text);
    const range = rangeText(f);
    if (!Number.isFinite(v)) return bad(`must be a number${range ? `; ${range}` : ''}`);
    const inRange = (f.min === undefined || (f.min_open ? v > f.min : v >= f.min))
      && (f.max === undefined || (f.max_open ? v < f.max : v <= f.max));
    if ((kind === 'integer' && !Number.isSafeInteger(v)) || !inRange) return bad(range || 'must be a whole number');
    return v;
  }

  function setKey(obj, key, v) {
    if (v === undefined) delete obj[key];
    else obj[key] = v;
  }

  function readRow(tr, bad) {
    const row = { ...(tr.orig ?? {}) };
    for (const input of tr.querySelectorAll('[data-kind]')) setKey(row, input.dataset.key, readInput(input, (m) => bad(input, m)));
    return row;
  }

  // The fields of `container` into `obj` (a copy of what was loaded).
  function readFields(fields, obj, path, bad) {
    for (const f of fields) {
      const el = $(idOf([...path, f.key]));
      if (!el) continue;
      if (f.kind === 'list') {
        const rows = [...el.table.tBodies[0].rows].map((tr) => readRow(tr, bad));
        setKey(obj, f.key, rows.length ? rows : undefined);
      } else if (f.kind === 'object') {
        const inner = readFields(f.fields, { ...(obj[f.key] ?? {}) }, [...path, f.key], bad);
        setKey(obj, f.key, Object.keys(inner).length ? inner : undefined);
      } else {
        setKey(obj, f.key, readInput(el, (m) => bad(el, m)));
      }
    }
    return obj;
  }

  // The document from the form, or null after marking every field that breaks its schema.
  function readForm() {
    let ok = true;
    const bad = (input, message) => {
      fieldError(input, `${input.dataset.key}: ${message}`);
      ok = false;
      return undefined;
    };
    const doc = readFields(current.model.fields, structuredClone(current.doc), [], bad);
    doc.model = current.model.name;
    return ok ? doc : null;
  }

  // Puts divload's message next to the field it names (`workers[2].comp_per_item`,
  // `links.fast.gap`, `items`), or the nearest enclosing one, else under the form.
  function showError(message) {
    for (const m of message.matchAll(/[a-z_]+(?:\[\d+\])?(?:\.[a-z_]+(?:\[\d+\])?)*/g)) {
      const parts = m[0].replace(/\[(\d+)\]/g, '.$1').split('.');
      for (; parts.length; parts.pop()) {
        const el = $(idOf(parts));
        if (!el) continue;
        fieldError(el, message);
        if (el.tagName === 'FIELDSET') markMissing(el, message);
        return;
      }
    }
    $('form-error').textContent = message;
  }

  // A message about a group ("links.fast: needs latency, overhead and gap") is about the
  // fields of it that were left empty: each empty one it names is marked, and the group's
  // message describes it, so a screen reader on that field hears why.
  function markMissing(box, message) {
    const words = new Set(message.match(/[a-z_]+/g));
    for (const input of box.querySelectorAll(':scope > .settings [data-kind]')) {
      if (input.dataset.kind === 'flag' || input.value.trim() !== '' || !words.has(input.dataset.key)) continue;
      input.setAttribute('aria-invalid', 'true');
      input.dataset.describedBy = input.getAttribute('aria-describedby') ?? '';
      input.setAttribute('aria-describedby', `${box.id}-error ${input.dataset.describedBy}`.trim());
    }
  }

  // ---- planning and the results -------------------------------------------------------------

  function compute(event) {
    event?.preventDefault();
    clearErrors();
    const doc = readForm();
    if (!doc) {
      $('form-error').textContent = 'Fix the marked fields.';
      hideResults();
      return;
    }
    const text = JSON.stringify(doc);
    let all, note = '';
    try {
      all = JSON.parse(current.api.schedules(text));
    } catch (e) {
      // A document may plan without the comparisons (costs the baselines do not cover).
      try {
        all = { plan: JSON.parse(current.api.plan(text)) };
        note = `No comparison: ${e.message ?? e}`;
      } catch (e2) {
        const message = e2.message ?? String(e2);
        const model = current.model;
        const needs = LEFT_OUT.exec(message)?.[1];
        if (needs && (model.extra ?? []).includes(needs) && moduleName.get(current.api) !== needs) {
          // Planned again once that module is there, unless the form moved on.
          hideResults();
          moduleOf(model, needs).then((api) => {
            if (current.model !== model) return;
            current.api = api;
            compute();
          }, (err) => showError(`the module ${needs} did not load: ${err.message ?? err}`));
          return;
        }
        showError(message);
        hideResults();
        return;
      }
    }
    const { plan: result, ...baselines } = all;
    render(current.model, result, baselines, note, doc);
    host.dispatchEvent(new CustomEvent('divload-plan', { bubbles: true, composed: true, detail: result }));
  }

  // A plan that is not the form's is never shown, nor left where Copy could take it.
  function hideResults() {
    $('results').hidden = true;
    $('c-arrays').value = '';
    $('copy-status').textContent = '';
  }

  // An edit after planning leaves the plan on screen (to compare with the next) but says it
  // is out of date, and Copy refuses it until the form is planned again.
  function markStale(event) {
    if (event && !event.target.dataset?.kind) return;
    if ($('results').hidden || $('results').dataset.stale === 'true') return;
    $('results').dataset.stale = 'true';
    $('stale-note').hidden = false;
    $('copy-c').disabled = true;
  }

  function render(model, result, baselines, note, doc) {
    const charts = (model.charts ?? []).filter((c) => drawable(c, result, doc));
    $('results').hidden = false;
    delete $('results').dataset.stale;
    $('stale-note').hidden = true;
    $('copy-c').disabled = false;
    $('summary').replaceChildren(...ENVELOPE.filter((k) => k in result).map((k) => {
      const dd = make('dd', { id: `r-${k}`, textContent: show(result[k]) + (k === 'makespan' || k === 'lower_bound' || k === 'gap' ? ' s' : '') });
      dd.dataset.value = JSON.stringify(result[k]);
      return make('div', {}, make('dt', { textContent: k }), dd);
    }));

    // Every other value: scalars, objects of scalars (`compare.lifo`) and lists of names as
    // rows of one table; lists of objects other than the plan as tables of their own.
    const scalars = [];
    const lists = [];
    for (const [k, v] of Object.entries(result)) {
      if (ENVELOPE.includes(k) || k === 'plan') continue;
      if (Array.isArray(v) && v.some((x) => x !== null && typeof x === 'object')) lists.push([k, v]);
      else if (Array.isArray(v)) scalars.push([k, v.join(' → ')]);
      else if (v !== null && typeof v === 'object') for (const [j, x] of Object.entries(v)) scalars.push([`${k}.${j}`, show(x)]);
      else scalars.push([k, show(v)]);
    }
    const tbody = $('scalars').tBodies[0];
    tbody.replaceChildren(...scalars.map(([k, v]) => {
      const tr = make('tr', {}, make('th', { scope: 'row', textContent: k }), make('td', { textContent: v }));
      tr.dataset.key = k;
      return tr;
    }));
    // A list a chart draws is its data: folded under the chart's name, open on demand.
    const charted = new Map(charts.map((c) => [c.list, c.title]));
    $('lists').replaceChildren(...lists.map(([k, rows]) => {
      const table = make('table', { className: 'plan', id: `list-${k}` });
      table.append(make('caption', { textContent: k }));
      fillRows(table, rows);
      const scroll = make('div', { className: 'scroll', tabIndex: 0 }, table);
      scroll.setAttribute('role', 'region');
      scroll.setAttribute('aria-label', `${k} (scrolls sideways on a narrow screen)`);
      if (!charted.has(k)) return scroll;
      // Folded, the table is not shown: Tab reaches it once it is opened.
      scroll.tabIndex = -1;
      const details = make('details', {}, make('summary', { textContent: `${k}: the data of "${charted.get(k)}" (${rows.length} rows)` }), scroll);
      details.addEventListener('toggle', () => { scroll.tabIndex = details.open ? 0 : -1; });
      return details;
    }));

    const rows = result.plan ?? [];
    fillRows($('plan-table'), rows);
    $('truncated').textContent = rows.length > MAX_ROWS_DRAWN
      ? `Showing the first ${MAX_ROWS_DRAWN} of ${rows.length} rows in the tables and charts; the C arrays have all of them.` : '';

    // One time scale for the plan and its comparisons.
    const names = new Map(rows.map((r) => [r.rank, rowName(r)]));
    const schedulesShown = Object.entries(baselines).filter(([, b]) => Array.isArray(b?.rows));
    const ends = (rs) => rs.slice(0, MAX_ROWS_DRAWN).flatMap((r) => model.gantt.map((p) => r[p.end] ?? 0));
    const scale = Math.max(1e-300, ...ends(rows), ...schedulesShown.flatMap(([, b]) => ends(b.rows)));
    $('legend').replaceChildren(...model.gantt.flatMap((p, j) => [
      make('span', { className: `swatch phase${j}` }), ` ${p.label} `]));
    drawGantt($('gantt-plan'), rows, model.gantt, names, scale);
    $('baselines').replaceChildren(...schedulesShown.map(([key, b]) => {
      const figure = make('figure', { className: 'chart' });
      Object.assign(figure.dataset, { baseline: key, makespan: String(b.makespan) });
      figure.append(make('figcaption', { textContent: `${key}: makespan ${fmt(b.makespan)} s (${(b.makespan / result.makespan).toFixed(2)}× the plan)` }));
      const svg = svgEl('svg', { id: `gantt-${key}`, class: 'gantt', role: 'img', 'aria-label': `Gantt chart: ${key}` }, figure);
      drawGantt(svg, b.rows, model.gantt, names, scale);
      return figure;
    }));
    $('charts').replaceChildren(...charts.map((c) => {
      const data = result[c.list];
      const figure = make('figure', { className: 'chart' });
      figure.dataset.chart = c.list;
      figure.append(make('figcaption', { textContent: c.title }));
      const svg = svgEl('svg', { class: `chart-${c.kind}`, role: 'img', 'aria-label': c.title }, figure);
      if (c.kind === 'line') drawLine(svg, data.slice(0, MAX_ROWS_DRAWN * 4), c);
      else if (c.kind === 'lanes') drawLanes(svg, data, c);
      else if (c.kind === 'cycle') drawCycle(svg, data.slice(0, MAX_ROWS_DRAWN), c.group ? result[c.group] ?? [] : []);
      else if (c.kind === 'graph') {
        // A graph is wider than a phone: it scrolls in its own box there, as the tables do.
        const scroll = make('div', { className: 'scroll', tabIndex: 0 }, svg);
        scroll.setAttribute('role', 'region');
        scroll.setAttribute('aria-label', `${c.title} (scrolls sideways on a narrow screen)`);
        const legend = make('p', { className: 'legend graph-legend' });
        figure.append(scroll, legend);
        drawGraph(svg, legend, c, doc, result, model.fields);
      }
      return figure;
    }));

    const compared = Object.entries(baselines).filter(([, b]) => typeof b?.makespan === 'number');
    $('comparison').hidden = compared.length === 0 && !note;
    $('bars').hidden = compared.length === 0;
    $('baseline-note').textContent = note;
    if (compared.length) drawBars($('bars'), [['plan', result.makespan, 'phase1'], ...compared.map(([k, b]) => [k, b.makespan, 'even'])]);

    const counted = rows.length > 0 && rows.every((r) => Number.isInteger(r.count) && Number.isInteger(r.displacement));
    $('c-block').hidden = !counted;
    if (counted) $('c-arrays').value = cArrays(rows);
  }


  // ---- examples, import and export ------------------------------------------------------

  async function loadExample() {
    clearErrors();
    $('io-error').textContent = '';
    display(current.model, await example(current.model), current.api);
  }

  function exportDocument() {
    clearErrors();
    const doc = readForm();
    if (!doc) {
      $('io-error').textContent = 'Fix the marked fields before exporting.';
      return;
    }
    const blob = new Blob([JSON.stringify(doc, null, 2) + '\n'], { type: 'application/json' });
    const a = make('a', { href: URL.createObjectURL(blob), download: `${doc.model}.json` });
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  // A document names its model; one without `model` is read as the registry's first, as
  // divload reads it.
  async function importDocument(file) {
    clearErrors();
    try {
      const doc = JSON.parse(await file.text());
      const { model, api } = await modelOfDocument(doc);
      $('io-error').textContent = '';
      display(model, doc, api);
    } catch (e) {
      $('io-error').textContent = `${file.name}: ${e.message}`;
    }
  }

  function display(model, doc, api) {
    clearErrors();
    buildForm(model, doc, api);
    compute();
  }

  function fail(e) {
    $('form-error').textContent = `The calculator could not start: ${e.message ?? e}`;
    hideResults();
  }

  $('doc').addEventListener('submit', compute);
  $('doc').addEventListener('input', markStale);
  $('doc').addEventListener('change', markStale);
  $('load-example').addEventListener('click', () => loadExample().catch(fail));
  $('export').addEventListener('click', exportDocument);
  $('import-file').addEventListener('change', (e) => {
    if (e.target.files[0]) importDocument(e.target.files[0]);
    e.target.value = '';
  });
  $('copy-c').addEventListener('click', async () => {
    if ($('results').hidden || $('results').dataset.stale === 'true') return;
    try {
      await navigator.clipboard.writeText($('c-arrays').value);
      $('copy-status').textContent = 'Copied.';
    } catch {
      $('c-arrays').select();
      $('copy-status').textContent = 'Selected: press Ctrl+C to copy.';
    }
  });

  return {
    display,
    fail,
    loadExample: () => loadExample().catch(fail),
    shown: () => current.model?.name,
    read: () => (current.model ? readForm() : null),
  };
}

// The model a document names (the registry's first when it names none) and its module.
async function modelOfDocument(doc) {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not a JSON object');
  const { models } = await manifest();
  const name = doc.model ?? models[0].name;
  const model = models.find((m) => m.name === name);
  if (!model) throw new Error(`"model" must be one of ${models.map((m) => m.name).join(', ')}`);
  return { model, api: await moduleOf(model) };
}

// ---- drawing ----------------------------------------------------------------------------

// A row's name: its first text column (a worker's or cluster's name).
const rowName = (r) => Object.values(r).find((v) => typeof v === 'string') ?? '';

// A table's head and rows from a list of objects: one column per key of its first row.
function fillRows(table, rows) {
  const keys = Object.keys(rows[0] ?? {});
  const head = table.tHead ?? table.createTHead();
  head.replaceChildren(make('tr', {}, ...keys.map((k) => make('th', { scope: 'col', textContent: k }))));
  const body = table.tBodies[0] ?? table.createTBody();
  body.replaceChildren(...rows.slice(0, MAX_ROWS_DRAWN).map((r) => {
    const tr = make('tr');
    for (const k of keys) {
      const td = tr.insertCell();
      td.textContent = show(r[k]);
      td.dataset.key = k;
    }
    return tr;
  }));
}

// `int counts[]` and `int displs[]` by rank.
function cArrays(rows) {
  const byRank = [...rows].sort((a, b) => a.rank - b.rank);
  const p = byRank.length;
  return `int counts[${p}] = {${byRank.map((r) => r.count).join(', ')}};\n`
    + `int displs[${p}] = {${byRank.map((r) => r.displacement).join(', ')}};`;
}

const SVG = 'http://www.w3.org/2000/svg';
function svgEl(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent?.append(e);
  return e;
}

function drawBars(svg, bars) {
  const width = 720, label = 160, h = 26;
  svg.replaceChildren(svg.querySelector('title'));
  svg.setAttribute('viewBox', `0 0 ${width} ${bars.length * h + 4}`);
  const max = Math.max(...bars.map((b) => b[1]));
  bars.forEach(([name, t, cls], i) => {
    const y = i * h + 2;
    svgEl('text', { x: 0, y: y + 16, class: 'label' }, svg).textContent = name;
    const w = ((width - label - 90) * t) / max;
    svgEl('rect', { x: label, y, width: Math.max(w, 1), height: h - 6, class: cls }, svg);
    svgEl('text', { x: label + w + 6, y: y + 16, class: 'label' }, svg).textContent = `${fmt(t)} s`;
  });
}

// One row per plan row (at most MAX_ROWS_DRAWN) below an axis with five ticks from 0 to
// `scale` seconds: waiting until its first phase, then each phase of the model's
// timeline from its start column to its end column (an empty start is 0).
const GANTT = { width: 900, label: 150, h: 16, top: 22 };
function drawGantt(svg, rows, timeline, names, scale) {
  const { label, h, top } = GANTT;
  const shown = rows.slice(0, MAX_ROWS_DRAWN);
  const x = timeAxis(svg, scale, shown.length);
  shown.forEach((r, i) => {
    const g = svgEl('g', { class: 'gantt-row', 'data-rank': r.rank }, svg);
    const y = top + i * h;
    const name = names.get(r.rank) ?? rowName(r);
    // A row without a phase's start column starts it where the phase before ends; a row
    // with it may wait in between (a release time), drawn as a wait.
    const phases = [];
    timeline.forEach((p, j) => {
      const before = j > 0 ? phases[j - 1][2] : 0;
      phases.push([p.label, p.start ? r[p.start] ?? before : 0, r[p.end] ?? 0, before]);
    });
    svgEl('title', {}, g).textContent = `${name} (rank ${r.rank}): ${r.count} items, `
      + phases.map(([l, from, to]) => `${l} ${fmt(from)}–${fmt(to)} s`).join(', ');
    svgEl('text', { x: 0, y: y + 12, class: 'label' }, g).textContent = `${name} · ${r.rank}`;
    const first = phases[0]?.[1] ?? 0;
    if (first > 0) svgEl('rect', { x: label, y: y + 2, width: x(first) - label, height: h - 4, class: 'wait' }, g);
    phases.forEach(([, from, to, before], j) => {
      if (j > 0 && from > before) svgEl('rect', { x: x(before), y: y + 2, width: x(from) - x(before), height: h - 4, class: 'wait' }, g);
      if (to > from) svgEl('rect', { x: x(from), y: y + 2, width: Math.max(x(to) - x(from), 0.5), height: h - 4, class: `phase${j}` }, g);
    });
  });
}

// The Gantt charts' frame for `lanes` lanes: the axis with five ticks from 0 to `scale`
// seconds; gives the x of a time.
function timeAxis(svg, scale, lanes) {
  const { width, label, h, top } = GANTT;
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${width} ${top + lanes * h + 4}`);
  const x = (t) => label + ((width - label - 10) * t) / scale;
  for (let i = 0; i <= 4; i++) {
    const t = (scale * i) / 4;
    svgEl('line', { x1: x(t), x2: x(t), y1: top - 4, y2: top + lanes * h, class: 'tick' }, svg);
    svgEl('text', { x: x(t), y: 12, class: 'axis', 'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle' }, svg)
      .textContent = `${fmt(t)} s`;
  }
  return x;
}

// A lanes chart: the rows on one time axis, a lane per value of the chart's `group` key (the
// first MAX_ROWS_DRAWN lanes), each row's phases in the colours of the plan's (a chunk's
// transfer and computation on its worker's lane).
function drawLanes(svg, rows, chart) {
  const { h, top } = GANTT;
  const lanes = new Map();
  for (const r of rows) {
    const key = r[chart.group];
    if (!lanes.has(key)) {
      if (lanes.size === MAX_ROWS_DRAWN) continue;
      lanes.set(key, { name: rowName(r), rows: [] });
    }
    lanes.get(key).rows.push(r);
  }
  const drawn = [...lanes.values()].flatMap((l) => l.rows);
  const scale = Math.max(1e-300, ...drawn.flatMap((r) => chart.phases.map((p) => r[p.end] ?? 0)));
  const x = timeAxis(svg, scale, lanes.size);
  [...lanes].forEach(([key, lane], i) => {
    const g = svgEl('g', { class: 'gantt-row', 'data-lane': key }, svg);
    const y = top + i * h;
    const items = lane.rows.reduce((sum, r) => sum + (r.count ?? 0), 0);
    svgEl('title', {}, g).textContent = `${lane.name} (${chart.group} ${key}): ${lane.rows.length} rows, ${items} items`;
    svgEl('text', { x: 0, y: y + 12, class: 'label' }, g).textContent = `${lane.name} · ${key}`;
    for (const r of lane.rows) {
      chart.phases.forEach((p, j) => {
        const [from, to] = [r[p.start] ?? 0, r[p.end] ?? 0];
        if (to > from) svgEl('rect', { x: x(from), y: y + 2, width: Math.max(x(to) - x(from), 0.5), height: h - 4, class: `phase${j}` }, g);
      });
    }
  });
}

// Rows of numbers as one line per series (the rows' `group` value, or one series), on axes
// from the smallest to the largest x and from 0 to the largest y; with one series, its
// lowest point is circled (the best value of the chart).
const LINE = { width: 720, height: 260, left: 70, bottom: 30, top: 12, right: 16 };
function drawLine(svg, rows, chart) {
  const { width, height, left, bottom, top, right } = LINE;
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const points = rows.filter((r) => Number.isFinite(r[chart.x]) && Number.isFinite(r[chart.y]));
  if (points.length === 0) return;
  const xs = points.map((r) => r[chart.x]);
  const ys = points.map((r) => r[chart.y]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const y1 = Math.max(...ys, 1e-300);
  const x = (v) => left + ((width - left - right) * (x1 > x0 ? (v - x0) / (x1 - x0) : 0.5));
  const y = (v) => height - bottom - ((height - bottom - top) * v) / y1;
  for (let i = 0; i <= 4; i++) {
    const v = (y1 * i) / 4;
    svgEl('line', { x1: left, x2: width - right, y1: y(v), y2: y(v), class: 'tick' }, svg);
    svgEl('text', { x: left - 4, y: y(v) + 4, class: 'axis', 'text-anchor': 'end' }, svg).textContent = fmt(v);
  }
  for (const v of [...new Set([x0, (x0 + x1) / 2, x1])]) {
    svgEl('text', { x: x(v), y: height - bottom + 16, class: 'axis', 'text-anchor': 'middle' }, svg).textContent = fmt(v);
  }
  svgEl('text', { x: width - right, y: height - 2, class: 'axis', 'text-anchor': 'end' }, svg).textContent = chart.x;
  svgEl('text', { x: 2, y: top, class: 'axis' }, svg).textContent = chart.y;
  const series = new Map();
  for (const r of points) {
    const key = chart.group ? String(r[chart.group]) : '';
    if (!series.has(key)) series.set(key, []);
    series.get(key).push(r);
  }
  [...series.entries()].forEach(([key, rs], j) => {
    const g = svgEl('g', { class: 'line-series', 'data-series': key }, svg);
    svgEl('polyline', { points: rs.map((r) => `${x(r[chart.x])},${y(r[chart.y])}`).join(' '), class: `series series${j % 4}` }, g);
    for (const r of rs) {
      const dot = svgEl('circle', { cx: x(r[chart.x]), cy: y(r[chart.y]), r: 3, class: `dot dot${j % 4}` }, g);
      svgEl('title', {}, dot).textContent = `${key ? `${key}: ` : ''}${chart.x} ${fmt(r[chart.x])}, ${chart.y} ${fmt(r[chart.y])}`;
    }
  });
  if (!chart.group) {
    const best = points.reduce((a, b) => (b[chart.y] < a[chart.y] ? b : a));
    svgEl('circle', { cx: x(best[chart.x]), cy: y(best[chart.y]), r: 7, fill: 'none', class: 'best' }, svg);
  }
}

// Names around a circle in their order, each joined to the next and the last to the first
// (a cycle), and the names left off it below.
function drawCycle(svg, names, aside) {
  const size = 360, r = 130, c = size / 2;
  svg.replaceChildren();
  const extra = aside.length ? 24 : 0;
  svg.setAttribute('viewBox', `0 0 ${size} ${size + extra}`);
  const at = (i) => {
    const a = (2 * Math.PI * i) / names.length - Math.PI / 2;
    return [c + r * Math.cos(a), c + r * Math.sin(a)];
  };
  if (names.length > 1) {
    names.forEach((_, i) => {
      const [ax, ay] = at(i);
      const [bx, by] = at((i + 1) % names.length);
      svgEl('line', { x1: ax, y1: ay, x2: bx, y2: by, class: 'arc' }, svg);
    });
  }
  names.forEach((name, i) => {
    const [px, py] = at(i);
    const g = svgEl('g', { class: 'cycle-node', 'data-name': name }, svg);
    svgEl('circle', { cx: px, cy: py, r: 6, class: 'proc phase1' }, g);
    svgEl('title', {}, g).textContent = `${i + 1}. ${name} → ${names[(i + 1) % names.length]}`;
    const right = px >= c;
    svgEl('text', { x: px + (right ? 9 : -9), y: py + 4, class: 'label', 'text-anchor': right ? 'start' : 'end' }, g).textContent = name;
  });
  if (aside.length) {
    svgEl('text', { x: 4, y: size + extra - 6, class: 'axis' }, svg).textContent = `left out: ${aside.join(', ')}`;
  }
}

// The document's graph: the nodes of its `nodes` list (circles: filled when the plan
// places them, dimmed when it leaves them out) and of its `relays` list (squares), its
// `edges` as lines (arrows for the `arrow` style, thick for the `thick` one), and over
// them the result's routes, the two of each pair of nodes (either way) in one colour.
// Deterministic layout in layers around the thick edges (or the graph's centre): a
// breadth-first tree from them, each node's sector of the circle as wide as the leaves
// below it, the nodes of a layer on one circle and the leaves of `nodes` on the outermost.
const GRAPH = { spacing: 16, minRadius: 150, margin: 64, node: 5 };
function drawGraph(svg, legend, chart, doc, result, fields) {
  svg.replaceChildren();
  const nodes = [];
  const index = new Map();
  for (const [list, relay] of [[chart.nodes, false], [chart.relays, true]]) {
    for (const n of Array.isArray(doc[list]) ? doc[list] : []) {
      if (typeof n?.name !== 'string' || index.has(n.name)) continue;
      index.set(n.name, nodes.length);
      nodes.push({ name: n.name, relay, adj: [] });
    }
  }
  const edges = [];
  for (const e of doc[chart.edges]) {
    const a = index.get(e?.from);
    const b = index.get(e?.to);
    if (a === undefined || b === undefined) continue;
    const style = chart.style ? e[chart.style] : undefined;
    const look = style !== undefined && style === chart.arrow ? 'arrow' : style !== undefined && style === chart.thick ? 'thick' : 'plain';
    nodes[a].adj.push(b);
    nodes[b].adj.push(a);
    edges.push({ e, a, b, look, routes: [] });
  }
  const at = graphLayout(nodes, edges);

  // The routes: each edge they cross, and a colour per pair of nodes they join.
  const routes = Array.isArray(result[chart.list]) ? result[chart.list] : [];
  const byName = new Map(edges.map((d) => [d.e.name, d]));
  const pairs = new Map();
  routes.forEach((r, i) => {
    const key = [r.from, r.to].sort().join('\u0000');
    if (!pairs.has(key)) pairs.set(key, { k: pairs.size, from: r.from, to: r.to, routes: [] });
    const pair = pairs.get(key);
    pair.routes.push(r);
    for (const name of Array.isArray(r[chart.edges]) ? r[chart.edges] : []) {
      const d = byName.get(name);
      if (d && !d.routes.some((x) => x.i === i)) d.routes.push({ i, r, k: pair.k });
    }
  });
  const colour = (k) => `hsl(${(k * 137.508) % 360} 72% 40%)`;
  const unit = fields.find((f) => f.key === chart.edges)?.fields?.find((g) => g.key === chart.weight)?.unit ?? '';
  const amount = (v) => (typeof v === 'number' ? `${fmt(v)}${unit ? ` ${unit}` : ''}` : '');

  const { size } = at;
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  // A small graph is not blown up past half again its size (its labels would be huge).
  svg.style.maxWidth = `${Math.min(860, Math.round(size * 1.5))}px`;
  const defs = svgEl('defs', {}, svg);
  const marker = svgEl('marker', { id: 'graph-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' }, defs);
  svgEl('path', { d: 'M0,0 L10,5 L0,10 z', class: 'graph-arrowhead' }, marker);

  const edgeLayer = svgEl('g', { class: 'graph-edges' }, svg);
  for (const d of edges) {
    // An arrow stops at its head's node and runs beside the arrow the other way, if any.
    let [x1, y1] = at.xy[d.a];
    let [x2, y2] = at.xy[d.b];
    const len = Math.hypot(x2 - x1, y2 - y1) || 1;
    const [ux, uy] = [(x2 - x1) / len, (y2 - y1) / len];
    if (d.look === 'arrow') {
      const cut = Math.min(GRAPH.node + 1, len / 3);
      [x1, y1, x2, y2] = [x1 + ux * cut - uy * 2, y1 + uy * cut + ux * 2, x2 - ux * cut - uy * 2, y2 - uy * cut + ux * 2];
    }
    const g = svgEl('g', { class: `graph-edge ${d.look}`, 'data-name': String(d.e.name ?? ''), 'data-routes': d.routes.map((x) => x.i).join(',') }, edgeLayer);
    const line = svgEl('line', { x1, y1, x2, y2, class: 'graph-link' }, g);
    if (d.look === 'arrow') line.setAttribute('marker-end', 'url(#graph-arrow)');
    const colours = [...new Set(d.routes.map((x) => x.k))];
    colours.forEach((k, j) => {
      const off = (j - (colours.length - 1) / 2) * 2.4;
      svgEl('line', { x1: x1 - uy * off, y1: y1 + ux * off, x2: x2 - uy * off, y2: y2 + ux * off, class: 'graph-route', stroke: colour(k), 'data-pair': k }, g);
    });
    const ends = d.look === 'arrow' ? `${d.e.from} → ${d.e.to}` : `${d.e.from} — ${d.e.to}`;
    const style = chart.style && d.e[chart.style] !== undefined ? `, ${d.e[chart.style]}` : '';
    const shares = d.routes.map((x) => `\n${x.r.from} → ${x.r.to}: ${amount(x.r[chart.weight])}`).join('');
    svgEl('title', {}, g).textContent = `${d.e.name ?? ''} (${ends}${style}): ${chart.weight} ${amount(d.e[chart.weight])}`
      + (shares ? `; the routes over it and what each gets:${shares}` : '; no route over it');
  }

  const left = new Set(chart.group && Array.isArray(result[chart.group]) ? result[chart.group] : []);
  const rows = new Map((result.plan ?? []).map((r) => [rowName(r), r]));
  const nodeLayer = svgEl('g', { class: 'graph-nodes' }, svg);
  const labelAll = nodes.length <= 60;
  nodes.forEach((n, i) => {
    const [x, y] = at.xy[i];
    const state = n.relay ? 'relay' : left.has(n.name) ? 'left-out' : 'placed';
    const g = svgEl('g', { class: `graph-node ${state}`, 'data-name': n.name, 'data-state': state }, nodeLayer);
    if (n.relay) svgEl('rect', { x: x - 3.5, y: y - 3.5, width: 7, height: 7, class: 'relay-node' }, g);
    else svgEl('circle', { cx: x, cy: y, r: GRAPH.node, class: state === 'placed' ? 'proc phase1' : 'idle-proc' }, g);
    const row = rows.get(n.name);
    const joined = [...pairs.values()].filter((p) => p.from === n.name || p.to === n.name)
      .map((p) => (p.from === n.name ? p.to : p.from));
    svgEl('title', {}, g).textContent = n.relay ? `${n.name}: relays`
      : state === 'left-out' ? `${n.name}: left out`
        : `${n.name}: in the plan${row && 'count' in row ? `, count ${show(row.count)}` : ''}${joined.length ? `, joined to ${joined.join(' and ')}` : ''}`;
    if (n.relay && !labelAll) return;
    // Labels point away from the centre, upright on both halves.
    const a = at.angle[i];
    const out = at.outer[i] || !n.relay;
    const right = Math.cos(a) >= 0;
    const dx = Math.cos(a) * 9;
    const dy = Math.sin(a) * 9;
    const deg = (a * 180) / Math.PI + (right ? 0 : 180);
    const text = svgEl('text', { x: x + dx, y: y + dy + 3, class: n.relay ? 'axis' : 'label', 'text-anchor': right ? 'start' : 'end' }, g);
    if (out) text.setAttribute('transform', `rotate(${deg.toFixed(2)} ${x + dx} ${y + dy})`);
    text.textContent = n.name;
  });

  legend.replaceChildren(...[...pairs.values()].flatMap((p) => {
    const sw = make('span', { className: 'swatch' });
    sw.style.background = colour(p.k);
    const shares = p.routes.map((r) => (typeof r[chart.weight] === 'number' ? fmt(r[chart.weight]) : '')).filter((t) => t);
    return [sw, ` ${p.from} ⇄ ${p.to}${shares.length ? `: ${shares.join(' / ')}${unit ? ` ${unit}` : ''}` : ''} `];
  }));
  if (left.size) legend.append(make('span', { className: 'swatch idle-proc' }), ` left out: ${[...left].join(', ')}`);
}

// Positions for drawGraph: layer 0 is the ends of the thick edges, else each connected
// part's centre (the node whose farthest node is nearest; the first one past 400 nodes);
// a node's layer is its distance from layer 0, its sector its share of the leaves below
// it in the breadth-first tree. Gives the view's size, each node's [x, y], its angle and
// whether it sits on the outer circle.
function graphLayout(nodes, edges) {
  const n = nodes.length;
  const depth = new Array(n).fill(-1);
  const children = nodes.map(() => []);
  const order = [];
  const tops = [];
  const bfs = (starts) => {
    const queue = [];
    for (const s of starts) if (depth[s] < 0) { depth[s] = 0; tops.push(s); queue.push(s); }
    for (let h = 0; h < queue.length; h++) {
      const v = queue[h];
      order.push(v);
      for (const u of nodes[v].adj) {
        if (depth[u] < 0) { depth[u] = depth[v] + 1; children[v].push(u); queue.push(u); }
      }
    }
  };
  const far = (s) => {
    const dist = new Map([[s, 0]]);
    const queue = [s];
    for (let h = 0; h < queue.length; h++) {
      for (const u of nodes[queue[h]].adj) if (!dist.has(u)) { dist.set(u, dist.get(queue[h]) + 1); queue.push(u); }
    }
    return dist;
  };
  bfs(edges.filter((d) => d.look === 'thick').flatMap((d) => [d.a, d.b]));
  for (let i = 0; i < n; i++) {
    if (depth[i] >= 0) continue;
    const part = [...far(i).keys()];
    let centre = i;
    if (part.length <= 400) {
      let best = Infinity;
      for (const v of part) {
        let e = 0;
        for (const d of far(v).values()) e = Math.max(e, d);
        if (e < best) { best = e; centre = v; }
      }
    }
    bfs([centre]);
  }
  // A node's sector is as wide as the leaves below it, and at least as wide as keeps it
  // GRAPH.spacing from its neighbours on its own circle (a node with few leaves near the
  // centre would be crowded): (D + inner) / (d + inner) leaves' width at layer d.
  const maxDepth = depth.reduce((m, d) => Math.max(m, d), 0);
  const inner = tops.length > 1 ? 0.5 : 0;
  const outer = nodes.map((v, i) => !v.relay && children[i].length === 0 && maxDepth > 0);
  const leaves = new Array(n).fill(0);
  for (let j = order.length - 1; j >= 0; j--) {
    const v = order[j];
    const below = children[v].reduce((s, u) => s + leaves[u], 0);
    const own = outer[v] ? 1 : depth[v] + inner > 0 ? (maxDepth + inner) / (depth[v] + inner) : 1;
    leaves[v] = Math.max(below, own);
  }
  const total = tops.reduce((s, v) => s + leaves[v], 0) || 1;
  const radius = Math.max(GRAPH.minRadius, (total * GRAPH.spacing) / (2 * Math.PI));
  const size = 2 * (radius + GRAPH.margin);
  // Layer d on the circle of radius (d + inner) / (D + inner): one top sits at the
  // centre, several share a small inner circle; leaves of `nodes` on the outermost.
  const layer = (d) => (maxDepth + inner > 0 ? (radius * (d + inner)) / (maxDepth + inner) : 0);
  // Sectors handed down in breadth-first order (parents first; no recursion, a chain of
  // routers may be long).
  const from = new Array(n).fill(0);
  const span = new Array(n).fill(0);
  let start = 0;
  for (const v of tops) {
    [from[v], span[v]] = [start, (2 * Math.PI * leaves[v]) / total];
    start += span[v];
  }
  const angle = new Array(n).fill(0);
  const xy = new Array(n);
  for (const v of order) {
    angle[v] = from[v] + span[v] / 2 - Math.PI / 2;
    const r = outer[v] ? radius : layer(depth[v]);
    xy[v] = [size / 2 + r * Math.cos(angle[v]), size / 2 + r * Math.sin(angle[v])];
    let at = from[v];
    for (const u of children[v]) {
      [from[u], span[u]] = [at, (span[v] * leaves[u]) / leaves[v]];
      at += span[u];
    }
  }
  return { size, xy, angle, outer };
}


// ---- the element ------------------------------------------------------------------------

class DivloadCalculator extends HTMLElement {
  static observedAttributes = ['model', 'src', 'document'];
  #ui = null;
  #loads = 0;
  #settle = null;

  constructor() {
    super();
    /** Settles when the element has planned its first document (or failed to start). */
    this.ready = new Promise((resolve, reject) => { this.#settle = { resolve, reject }; });
    // A page that never awaits `ready` must not see an unhandled rejection: the element
    // shows its own error.
    this.ready.catch(() => {});
  }

  connectedCallback() {
    if (this.#ui) return;
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${STYLE}</style>${TEMPLATE}`;
    this.#ui = calculator(root, this);
    this.#load();
  }

  attributeChangedCallback(name, old, value) {
    if (!this.#ui || old === value) return;
    // The element sets `model` itself when it shows an imported document's model.
    if (name === 'model' && value === this.#ui.shown()) return;
    this.#load();
  }

  /** Shows the model's example again and plans it (the form's "Load the model's example"). */
  loadExample() {
    this.#ui?.loadExample();
  }

  /** The document the form holds now (null while a field is refused), as a host would plan it. */
  get document() {
    return this.#ui?.read() ?? null;
  }

  // The document the host gave: the `document` attribute, a child JSON script, or `src`.
  async #given() {
    const inline = this.getAttribute('document')
      ?? this.querySelector(':scope > script[type="application/json"]')?.textContent;
    if (inline != null && inline.trim() !== '') return JSON.parse(inline);
    const src = this.getAttribute('src');
    if (!src) return null;
    const res = await fetch(new URL(src, document.baseURI));
    if (!res.ok) throw new Error(`${src}: ${res.status} ${res.statusText}`);
    return res.json();
  }

  // Shows the given document if it is of the model asked for (or no model is asked
  // for), else the model's example. A later change of attributes wins over a load
  // still under way.
  async #load() {
    const load = ++this.#loads;
    try {
      const { models } = await manifest();
      const given = await this.#given();
      const asked = this.getAttribute('model');
      const name = asked ?? given?.model ?? models[0].name;
      const model = models.find((m) => m.name === name);
      if (!model) throw new Error(`model "${name}" is not one of ${models.map((m) => m.name).join(', ')}`);
      const doc = given !== null && (given.model ?? models[0].name) === name ? given : await example(model);
      const api = await moduleOf(model);
      if (load !== this.#loads) return;
      this.#ui.display(model, doc, api);
      this.#settle.resolve();
    } catch (e) {
      if (load !== this.#loads) return;
      this.#ui.fail(e);
      this.#settle.reject(e);
    }
  }
}

customElements.define('divload-calculator', DivloadCalculator);
