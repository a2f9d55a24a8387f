// The calculator page: a form for the platform, divload (wasm) for the numbers, SVG for
// the charts. Every number shown comes from divload; this file only translates.
import init, { models, plan, schedules, version } from './pkg/divload_wasm.js';

const $ = (id) => document.getElementById(id);
const MAX_ROWS_DRAWN = 200;
let table1 = null;
let returnsExample = null;
let table4 = null;

// One table of rows (workers, clusters) per model view: the fields of its document, the ids of its inputs
// (`${prefix}${row}-${key}`) and the fields divload's messages may name.
const SCATTER = {
  table: 'workers', prefix: 'w', list: 'workers', noun: 'Worker', items: 'items', formError: 'form-error',
  fields: [
    // [key in the platform JSON, column label]
    ['name', 'Name'],
    ['count', 'Copies'],
    ['comm_per_item', 'Comm per item (s)'],
    ['comm_latency', 'Comm latency (s)'],
    ['comp_per_item', 'Compute per item (s)'],
    ['comp_latency', 'Compute latency (s)'],
  ],
  defaults: { count: 1 }, cost: 0, selects: { root: 'root' }, changed: () => refreshRoots(),
};
const RETURNS = {
  table: 'r-workers', prefix: 'r-w', list: 'workers', noun: 'Worker', items: 'r-items', formError: 'r-form-error',
  fields: [
    ['name', 'Name'],
    ['count', 'Copies'],
    ['comm_per_item', 'Comm per item (s)'],
    ['comp_per_item', 'Comp per item (s)'],
    ['return_per_item', 'Return per item (s)'],
  ],
  defaults: { count: 1 }, cost: 1, selects: { schedule: 'r-schedule', port: 'r-port' }, changed: () => {},
};
// The multicluster view's table is its clusters; links and application are single fields
// (`m-${key}`, `m-${link}-${key}`) that divload's messages name as `links.fast.gap`,
// `application.flip_time` or `application: steps`.
const CLUSTERS = {
  table: 'm-clusters', prefix: 'm-c', list: 'clusters', noun: 'Cluster', formError: 'm-form-error',
  fields: [['name', 'Name'], ['processors', 'Processors'], ['speed', 'Speed']],
  defaults: { processors: 8, speed: 1 }, optional: ['speed'],
  selects: { pattern: 'm-pattern', fixed_costs: 'm-fixed_costs' }, changed: () => {},
  fieldsNamed: [[/links\.(fast|slow)\.(\w+)/, (m) => `m-${m[1]}-${m[2]}`],
                [/application(?:\.|: )(\w+)/, (m) => `m-${m[1]}`]],
};
const LINK_KEYS = [['latency', 'latency L'], ['overhead', 'overhead o'], ['gap', 'gap g per word']];
// Each pattern's fields: [key, the field's unit as a power of ten below the second (µs: 6)
// or 0 for plain numbers, whole number].
const APPLICATION = {
  ring: [['lattice', 0, true], ['flip_time', 6, false], ['steps', 0, true]],
  all_to_all: [['objects', 0, true], ['chunk', 0, true], ['sort_time', 3, false], ['words_per_object', 0, false]],
};
// The what-if candidates and per-pair slow links of the loaded document: shown and sent
// back as they are.
let whatIf = [];
let pairs = [];
// The views this page has, by model name; the list of models itself comes from divload.
const VIEWS = { scatter: 'view-scatter', returns: 'view-returns', multicluster: 'view-multicluster' };

// ---- the workers tables ----------------------------------------------------------------

function addRow(view, w = {}) {
  const tbody = $(view.table).tBodies[0];
  const tr = tbody.insertRow();
  for (const [key, label] of view.fields) {
    const td = tr.insertCell();
    const input = document.createElement('input');
    input.dataset.key = key;
    input.value = w[key] ?? view.defaults[key] ?? (key === 'name' ? `${view.noun.toLowerCase()}${tbody.rows.length}` : view.cost);
    if (key !== 'name') input.inputMode = 'decimal';
    const err = document.createElement('span');
    err.className = 'field-error';
    err.setAttribute('role', 'alert');
    td.append(input, err);
    input.addEventListener('change', view.changed);
    input.dataset.label = label;
  }
  tr.insertCell().append(button('Remove', () => { tr.remove(); relabel(view); view.changed(); }));
  relabel(view);
}

function button(text, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}

// Accessible names and ids follow the row number.
function relabel(view) {
  [...$(view.table).tBodies[0].rows].forEach((tr, i) => {
    for (const input of tr.querySelectorAll('input')) {
      input.id = `${view.prefix}${i}-${input.dataset.key}`;
      const err = input.nextElementSibling;
      err.id = `${input.id}-error`;
      input.setAttribute('aria-label', `${view.noun} ${i + 1} ${input.dataset.label}`);
      input.setAttribute('aria-describedby', err.id);
    }
    tr.querySelector('button').setAttribute('aria-label', `Remove ${view.noun.toLowerCase()} ${i + 1}`);
  });
}

function refreshRoots() {
  const select = $('root');
  const keep = select.value;
  const names = [...$('workers').tBodies[0].rows].map((tr) => tr.querySelector('[data-key=name]').value);
  select.replaceChildren(...names.map((n) => new Option(n, n)));
  if (names.includes(keep)) select.value = keep;
}

function fill(platform) {
  $('workers').tBodies[0].replaceChildren();
  for (const w of platform.workers ?? []) addRow(SCATTER, w);
  $('items').value = platform.items ?? '';
  for (const [id, key, dflt] of [['root-mode', 'root_mode', 'after_send'], ['order', 'order', 'bandwidth'],
                                  ['rounding', 'rounding', 'greedy'], ['solver', 'solver', 'closed_form']]) {
    $(id).value = platform[key] ?? dflt;
  }
  refreshRoots();
  $('root').value = platform.root ?? $('root').value;
}

function fillReturns(doc) {
  $('r-workers').tBodies[0].replaceChildren();
  for (const w of doc.workers ?? []) addRow(RETURNS, w);
  $('r-items').value = doc.items ?? '';
  $('r-schedule').value = typeof doc.schedule === 'string' ? doc.schedule : 'best';
  $('r-port').value = doc.port ?? 'full_duplex';
}

// ---- reading the forms, with errors next to the fields -------------------------------

function clearErrors() {
  for (const e of document.querySelectorAll('.field-error')) e.textContent = '';
  for (const e of document.querySelectorAll('[aria-invalid]')) e.removeAttribute('aria-invalid');
}

function fieldError(input, message) {
  input.setAttribute('aria-invalid', 'true');
  $(`${input.id}-error`).textContent = message;
}

// The item count and the workers of a view's form, marking every field that is not a
// number (`ok` false then). Ranges are checked by divload itself, whose messages name the
// field.
function readWorkers(view) {
  let ok = true;
  const items = $(view.items);
  const n = Number(items.value.trim());
  if (items.value.trim() === '' || !Number.isSafeInteger(n) || n < 1) {
    fieldError(items, 'a whole number of items, at least 1');
    ok = false;
  }
  const { ok: rowsOk, rows } = readRows(view);
  return { ok: ok && rowsOk, items: n, workers: rows };
}

// The rows of a view's table as objects; an optional field left empty is left out.
function readRows(view) {
  let ok = true;
  const rows = [...$(view.table).tBodies[0].rows].map((tr) => {
    const w = {};
    for (const input of tr.querySelectorAll('input')) {
      const key = input.dataset.key;
      const text = input.value.trim();
      if (key === 'name') {
        if (text === '' || /["\\]/.test(text)) {
          fieldError(input, 'a name without quotes or backslashes');
          ok = false;
        }
        w.name = text;
        continue;
      }
      if (text === '' && view.optional?.includes(key)) continue;
      const v = Number(text);
      if (text === '' || !Number.isFinite(v)) {
        fieldError(input, 'must be a number');
        ok = false;
      } else if (key === 'count' && !(Number.isSafeInteger(v) && v >= 1)) {
        fieldError(input, 'a whole number, at least 1');
        ok = false;
      }
      w[key] = v;
    }
    return w;
  });
  if (rows.length === 0) {
    $(view.formError).textContent = `Add at least one ${view.noun.toLowerCase()}.`;
    ok = false;
  }
  return { ok, rows };
}

// Seconds from a field written in 10^-exp seconds. The decimal point is shifted in the
// text, so that 0.05 µs is the document's 0.05e-6 to the last bit.
const toSeconds = (text, exp) => (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(`${text}e-${exp}`) : Number(text) / 10 ** exp);
const fromSeconds = (seconds, exp) => String(Number((seconds * 10 ** exp).toPrecision(12)));

// A single number field (in 10^-exp seconds when exp > 0), or null after marking it.
function readNumber(id, exp, whole) {
  const input = $(id);
  const text = input.value.trim();
  const v = Number(text);
  if (text === '' || !Number.isFinite(v)) {
    fieldError(input, 'must be a number');
    return null;
  }
  if (whole && !(Number.isSafeInteger(v) && v >= 0)) {
    fieldError(input, 'a whole number');
    return null;
  }
  return toSeconds(text, exp);
}

// The scatter platform document from the form, or null after marking the bad fields.
function readForm() {
  const { ok, items, workers } = readWorkers(SCATTER);
  if (!ok) return null;
  return {
    version: 1, items, root: $('root').value, root_mode: $('root-mode').value,
    order: $('order').value, rounding: $('rounding').value, solver: $('solver').value, workers,
  };
}

// The returns document from its form, or null after marking the bad fields.
function readReturnsForm() {
  const { ok, items, workers } = readWorkers(RETURNS);
  if (!ok) return null;
  return { version: 1, model: 'returns', items, schedule: $('r-schedule').value, port: $('r-port').value, workers };
}

// Puts divload's message next to the field it names, or under the view's form. A row is
// named `workers[2]` or `clusters[0]`, not `what_if.clusters[0]` (a candidate's).
function showError(view, message) {
  const row = `(?<![.\\w])${view.list}\\[(\\d+)\\]`;
  const fields = [
    [new RegExp(`${row}\\.(\\w+)`), (m) => `${view.prefix}${m[1]}-${m[2]}`],
    [new RegExp(row), (m) => `${view.prefix}${m[1]}-name`],
    ...(view.items ? [[/(^|: )items\b/, () => view.items]] : []),
    ...(view.fieldsNamed ?? []),
    ...Object.entries(view.selects).map(([key, id]) => [new RegExp(`(^|: )${key}\\b`), () => id]),
  ];
  for (const [re, id] of fields) {
    const m = re.exec(message);
    if (m && $(id(m))) return fieldError($(id(m)), message);
  }
  $(view.formError).textContent = message;
}

// Reads a view's form and runs a binding on its document: { doc, result }, or null after
// showing what was wrong next to its field.
function run(view, read, binding) {
  clearErrors();
  const doc = read();
  if (!doc) return null;
  try {
    return { doc, result: JSON.parse(binding(JSON.stringify(doc))) };
  } catch (e) {
    showError(view, e.message ?? String(e));
    return null;
  }
}

// ---- results ---------------------------------------------------------------------------

const fmt = (t) => (t >= 100 ? t.toFixed(2) : t >= 1 ? t.toFixed(3) : t.toPrecision(4));

function setTime(id, seconds, extra = '') {
  $(id).textContent = `${fmt(seconds)} s${extra}`;
  $(id).dataset.seconds = String(seconds);
}

function setMethod(id, name, { method, gap }, gapText) {
  $(id).textContent = `${name}, ${gap === 0 ? '0' : gapText(gap)} s`;
  $(id).dataset.method = method;
  $(id).dataset.gap = String(gap);
}

const gainText = (speedup) => `${speedup.toFixed(2)}× faster (${(100 * (1 - 1 / speedup)).toFixed(1)}% shorter)`;

// One table row per entry (at most MAX_ROWS_DRAWN), its cells' texts given.
function fillTable(id, rows) {
  const tbody = $(id).tBodies[0];
  tbody.replaceChildren();
  for (const cells of rows.slice(0, MAX_ROWS_DRAWN)) {
    const tr = tbody.insertRow();
    for (const v of cells) tr.insertCell().textContent = v;
  }
  return tbody;
}

// `int counts[]` and `int displs[]` by rank, for MPI_Scatterv.
function cArrays(rows) {
  const byRank = [...rows].sort((a, b) => a.rank - b.rank);
  const p = byRank.length;
  return `int counts[${p}] = {${byRank.map((r) => r.count).join(', ')}};\n`
    + `int displs[${p}] = {${byRank.map((r) => r.displacement).join(', ')}};`;
}

function compute(event) {
  event?.preventDefault();
  const ran = run(SCATTER, readForm, schedules);
  if (ran) render(ran.result);
}

function render({ plan, even, reversed }) {
  $('results').hidden = false;
  setTime('makespan', plan.makespan);
  setTime('bound', plan.bound);
  const methods = { closed_form: 'closed form + rounding', exact_dp: 'exact DP', sampled_dp: 'sampled DP' };
  setMethod('method', methods[plan.method] ?? plan.method, plan, (g) => g.toPrecision(3));
  setTime('uniform', plan.uniform_makespan);
  $('gain').textContent = gainText(plan.speedup);
  setTime('reversed-makespan', reversed.makespan, ` (${(reversed.makespan / plan.makespan).toFixed(2)}× the plan)`);
  $('participating').textContent = `${plan.participating} of ${plan.plan.length}`;

  const names = new Map(plan.plan.map((r) => [r.rank, r.name]));
  const bars = [['Balanced (divload)', plan.makespan, 'comp'], ['Even split', even.makespan, 'even'],
                ['Reversed order', reversed.makespan, 'recv']];
  drawBars($('bars'), bars);
  const scale = Math.max(plan.makespan, even.makespan, reversed.makespan);
  drawGantt($('gantt-plan'), plan.plan, names, scale);
  drawGantt($('gantt-even'), even.rows, names, scale);
  drawGantt($('gantt-reversed'), reversed.rows, names, scale);

  const p = plan.plan.length;
  $('c-arrays').value = cArrays(plan.plan);
  fillTable('plan-table', plan.plan.map((r, k) => [k + 1, r.name, r.rank, r.count, r.displacement, fmt(r.start),
                                                   fmt(r.received), fmt(r.finish)]));
  $('truncated').textContent = p > MAX_ROWS_DRAWN
    ? `Showing the first ${MAX_ROWS_DRAWN} of ${p} workers in the table and charts; the C arrays have all of them.` : '';
}

const SVG = 'http://www.w3.org/2000/svg';
function el(name, attrs, parent) {
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
    el('text', { x: 0, y: y + 16, class: 'label' }, svg).textContent = name;
    const w = ((width - label - 90) * t) / max;
    el('rect', { x: label, y, width: Math.max(w, 1), height: h - 6, class: cls }, svg);
    el('text', { x: label + w + 6, y: y + 16, class: 'label' }, svg).textContent = `${fmt(t)} s`;
  });
}

// The frame every Gantt chart shares: at most MAX_ROWS_DRAWN rows of height H below an
// axis with five ticks from 0 to `scale` seconds; returns the rows shown and the x scale.
const GANTT = { width: 900, label: 150, h: 16, top: 22 };
function ganttFrame(svg, rows, scale) {
  const { width, label, h, top } = GANTT;
  const shown = rows.slice(0, MAX_ROWS_DRAWN);
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${width} ${top + shown.length * h + 4}`);
  const x = (t) => label + ((width - label - 10) * t) / scale;
  for (let i = 0; i <= 4; i++) {
    const t = (scale * i) / 4;
    el('line', { x1: x(t), x2: x(t), y1: top - 4, y2: top + shown.length * h, class: 'tick' }, svg);
    el('text', { x: x(t), y: 12, class: 'axis', 'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle' }, svg)
      .textContent = `${fmt(t)} s`;
  }
  return { shown, x };
}

// One row per worker in send order: waiting (0 → start), receiving (start → received),
// computing (received → finish). The staircase of the receiving bars is the root sending
// to one worker after the other.
function drawGantt(svg, rows, names, scale) {
  const { label, h, top } = GANTT;
  const { shown, x } = ganttFrame(svg, rows, scale);
  shown.forEach((r, i) => {
    const g = el('g', { class: 'gantt-row', 'data-rank': r.rank }, svg);
    const y = top + i * h;
    el('title', {}, g).textContent = `${names.get(r.rank)} (rank ${r.rank}): ${r.count} items, `
      + `receives ${fmt(r.start)}–${fmt(r.received)} s, finishes at ${fmt(r.finish)} s`;
    el('text', { x: 0, y: y + 12, class: 'label' }, g).textContent = `${names.get(r.rank)} · ${r.rank}`;
    el('rect', { x: label, y: y + 2, width: Math.max(x(r.start) - label, 0), height: h - 4, class: 'wait' }, g);
    el('rect', { x: x(r.start), y: y + 2, width: Math.max(x(r.received) - x(r.start), 0.5), height: h - 4, class: 'recv' }, g);
    el('rect', { x: x(r.received), y: y + 2, width: Math.max(x(r.finish) - x(r.received), 0), height: h - 4, class: 'comp' }, g);
  });
}

// ---- the returns view ------------------------------------------------------------------

const SCHEDULES = { best: 'best scenario', lifo: 'LIFO', fifo: 'FIFO', given: 'given scenario' };
const METHODS = { best_scenario: 'best scenario', lifo: 'LIFO optimum', fifo: 'FIFO optimum', scenario_lp: 'scenario LP' };

// The chosen schedule, and the same document planned as LIFO and as FIFO for comparison.
function computeReturns(event) {
  event?.preventDefault();
  const ran = run(RETURNS, readReturnsForm, plan);
  if (!ran) return;
  const { doc, result: chosen } = ran;
  let lifo, fifo;
  try {
    lifo = JSON.parse(plan(JSON.stringify({ ...doc, schedule: 'lifo' })));
    fifo = JSON.parse(plan(JSON.stringify({ ...doc, schedule: 'fifo' })));
  } catch (e) {
    $('r-form-error').textContent = e.message ?? String(e);
    return;
  }
  renderReturns(chosen, lifo, fifo);
}

function orderText(id, names) {
  const shown = names.slice(0, 50).join(' → ');
  $(id).textContent = names.length > 50 ? `${shown} … (${names.length - 50} more)` : shown;
  $(id).dataset.names = JSON.stringify(names);
}

function renderReturns(chosen, lifo, fifo) {
  $('returns-results').hidden = false;
  setTime('r-makespan', chosen.makespan);
  setMethod('r-method', METHODS[chosen.method] ?? chosen.method, chosen, fmt);
  setTime('r-lower-bound', chosen.lower_bound);
  $('r-throughput').textContent = `${chosen.throughput.toPrecision(6)} (at most ${chosen.throughput_bound.toPrecision(6)})`;
  $('r-throughput').dataset.value = String(chosen.throughput);
  setTime('r-even', chosen.even_split_makespan);
  $('r-speedup').textContent = gainText(chosen.speedup);
  $('r-speedup').dataset.value = String(chosen.speedup);
  orderText('r-send-order', chosen.send_order);
  orderText('r-return-order', chosen.return_order);

  const charts = [['chosen', `Chosen: ${SCHEDULES[chosen.schedule] ?? chosen.schedule}`, chosen],
                  ['lifo', 'LIFO', lifo], ['fifo', 'FIFO', fifo]];
  const scale = Math.max(...charts.map(([, , r]) => r.makespan));
  $('r-charts').replaceChildren(...charts.map(([key, title, r]) => {
    const figure = document.createElement('figure');
    figure.className = 'chart';
    figure.dataset.schedule = key;
    figure.dataset.makespan = String(r.makespan);
    const caption = document.createElement('figcaption');
    caption.textContent = `${title}: makespan ${fmt(r.makespan)} s (${METHODS[r.method] ?? r.method}; `
      + `send ${r.send_order.slice(0, 12).join(' → ')}${r.send_order.length > 12 ? ' …' : ''}, `
      + `return ${r.return_order.slice(0, 12).join(' → ')}${r.return_order.length > 12 ? ' …' : ''})`;
    const svg = el('svg', { id: `r-gantt-${key}`, class: 'gantt', role: 'img', 'aria-label': `Gantt chart: ${title}` });
    drawReturnsGantt(svg, r.plan, scale);
    figure.append(caption, svg);
    return figure;
  }));

  fillTable('r-plan-table', chosen.plan.map((r, k) => [
    k + 1, r.name, r.rank, r.count, r.displacement, fmt(r.send_start), fmt(r.received), fmt(r.computed), fmt(r.idle),
    fmt(r.return_start), fmt(r.return_end), r.return_position + 1]));
  $('r-truncated').textContent = chosen.plan.length > MAX_ROWS_DRAWN
    ? `Showing the first ${MAX_ROWS_DRAWN} of ${chosen.plan.length} workers in the table and charts.` : '';
}

// One row per worker in send order: waiting for its data, receiving, computing, idle
// (results ready, the master's receiving port busy or reserved for an earlier return) and
// returning. The master sends one message at a time, so the receiving bars form a stair;
// the returning bars form another, in the return order.
function drawReturnsGantt(svg, rows, scale) {
  const { label, h, top } = GANTT;
  const { shown, x } = ganttFrame(svg, rows, scale);
  shown.forEach((r, i) => {
    const g = el('g', { class: 'gantt-row', 'data-rank': r.rank }, svg);
    const y = top + i * h;
    el('title', {}, g).textContent = `${r.name} (rank ${r.rank}): ${r.count} items, receives ${fmt(r.send_start)}–`
      + `${fmt(r.received)} s, computes until ${fmt(r.computed)} s, idle ${fmt(r.idle)} s, returns `
      + `${fmt(r.return_start)}–${fmt(r.return_end)} s`;
    el('text', { x: 0, y: y + 12, class: 'label' }, g).textContent = `${r.name} · ${r.rank}`;
    for (const [cls, from, to] of [['wait', 0, r.send_start], ['recv', r.send_start, r.received],
                                   ['comp', r.received, r.computed], ['idle', r.computed, r.return_start],
                                   ['ret', r.return_start, r.return_end]]) {
      if (to > from) el('rect', { x: x(from), y: y + 2, width: Math.max(x(to) - x(from), 0.5), height: h - 4, class: cls }, g);
    }
  });
}

// ---- the multicluster view ---------------------------------------------------------------

// The fast and slow links' fields, in µs: one row each in the links table.
function buildLinkFields() {
  for (const tr of $('m-links').tBodies[0].rows) {
    const link = tr.dataset.link;
    for (const [key, label] of LINK_KEYS) {
      const input = document.createElement('input');
      input.id = `m-${link}-${key}`;
      input.inputMode = 'decimal';
      input.setAttribute('aria-label', `${link} link ${label} (µs)`);
      input.setAttribute('aria-describedby', `${input.id}-error`);
      const err = document.createElement('span');
      err.id = `${input.id}-error`;
      err.className = 'field-error';
      err.setAttribute('role', 'alert');
      tr.insertCell().append(input, err);
    }
  }
}

function showPattern() {
  for (const group of document.querySelectorAll('#m-platform [data-pattern]')) {
    group.hidden = group.dataset.pattern !== $('m-pattern').value;
  }
}

function fillMulticluster(doc) {
  $('m-clusters').tBodies[0].replaceChildren();
  for (const c of doc.clusters ?? []) addRow(CLUSTERS, c);
  for (const link of ['fast', 'slow']) {
    for (const [key] of LINK_KEYS) $(`m-${link}-${key}`).value = fromSeconds(doc.links?.[link]?.[key] ?? 0, 6);
  }
  const app = doc.application ?? {};
  $('m-pattern').value = APPLICATION[app.pattern] ? app.pattern : 'ring';
  for (const [key, exp] of Object.values(APPLICATION).flat()) {
    $(`m-${key}`).value = app[key] === undefined ? '' : fromSeconds(app[key], exp);
  }
  $('m-fixed_costs').value = doc.fixed_costs ?? 'balanced';
  pairs = doc.links?.pairs ?? [];
  $('m-pairs').textContent = pairs.length
    ? `${pairs.length} slow link(s) between named clusters kept from the document (${pairs.map((q) => `${q.first}–${q.second}`).join(', ')}).` : '';
  whatIf = doc.what_if ?? [];
  listCandidates();
  showPattern();
}

const clusterText = (c) => `${c.name} (${c.processors} processors${c.speed ? `, speed ${c.speed}` : ''})`;

function listCandidates() {
  $('m-what-if-list').replaceChildren(...whatIf.map((w, i) => {
    const li = document.createElement('li');
    li.textContent = `${w.name}: adds ${w.clusters.map(clusterText).join(', ')} `;
    const rm = button('Remove', () => { whatIf.splice(i, 1); listCandidates(); });
    rm.setAttribute('aria-label', `Remove candidate ${w.name}`);
    li.append(rm);
    return li;
  }));
  if (whatIf.length === 0) $('m-what-if-list').append(Object.assign(document.createElement('li'), { textContent: 'None.' }));
}

// The multicluster document from its form, or null after marking the bad fields.
function readMulticlusterForm() {
  let { ok, rows: clusters } = readRows(CLUSTERS);
  const number = (id, exp, whole) => {
    const v = readNumber(id, exp, whole);
    ok &&= v !== null;
    return v;
  };
  const links = {};
  for (const link of ['fast', 'slow']) {
    links[link] = Object.fromEntries(LINK_KEYS.map(([key]) => [key, number(`m-${link}-${key}`, 6, false)]));
  }
  if (pairs.length) links.pairs = pairs;
  const pattern = $('m-pattern').value;
  const application = { pattern };
  for (const [key, exp, whole] of APPLICATION[pattern]) application[key] = number(`m-${key}`, exp, whole);
  if (!ok) return null;
  const doc = { version: 1, model: 'multicluster', clusters, links, application, fixed_costs: $('m-fixed_costs').value };
  if (whatIf.length) doc.what_if = whatIf;
  return doc;
}

function computeMulticluster(event) {
  event?.preventDefault();
  const ran = run(CLUSTERS, readMulticlusterForm, plan);
  if (ran) renderMulticluster(ran.result, ran.doc);
}

const ms = (seconds) => `${(seconds * 1e3).toPrecision(4)} ms`;

function renderMulticluster(r, doc) {
  $('m-results').hidden = false;
  setTime('m-makespan', r.makespan);
  setMethod('m-method', r.method === 'biased' ? 'BIASED, integer counts' : r.method, r, fmt);
  setTime('m-even', r.even_makespan);
  $('m-speedup').textContent = gainText(r.speedup);
  $('m-speedup').dataset.value = String(r.speedup);
  $('m-steps-compared').textContent = `${ms(r.step_time)} / ${ms(r.even_step_time)}`;
  Object.assign($('m-steps-compared').dataset, { biased: r.step_time, even: r.even_step_time });
  $('m-participating').textContent = `${r.participating} of ${r.plan.length}`
    + (r.dropped_clusters ? ` (${r.dropped_clusters} cluster(s) take no load)` : '');
  orderText('m-ring-order', r.ring_order);

  drawRing($('m-ring'), r);
  drawBars($('m-bars'), [['BIASED (divload)', r.step_time, 'comp'], ['EVEN', r.even_step_time, 'even']]);

  fillTable('m-class-table', r.classes.map((c) => [c.cluster, c.fast_links, c.processors, c.per_load.toPrecision(6),
    c.fixed.toPrecision(6), c.fraction.toPrecision(6), c.units, c.participates ? 'yes' : 'no']));

  const added = new Map((doc.what_if ?? []).map((w) => [w.name, w.clusters.map(clusterText).join(', ')]));
  $('m-what-if-results').hidden = r.what_if.length === 0;
  const tbody = fillTable('m-what-if-table', r.what_if.map((w) => [w.name, added.get(w.name) ?? '', fmt(w.makespan),
    fmt(w.rational_makespan), `${(100 * w.speedup).toFixed(1)} %`]));
  [...tbody.rows].forEach((tr, i) => Object.assign(tr.dataset, { candidate: r.what_if[i].name, speedup: r.what_if[i].speedup }));

  $('m-c-arrays').value = cArrays(r.plan);
}

// The clusters as arcs around the ring, in ring order, with a gap for the slow link
// between neighbours; one mark per processor, its area and colour growing with its count.
// A processor that takes no load is a dashed ring.
const MAX_MARKS = 512;
function drawRing(svg, r) {
  const width = 560, height = 400, cx = width / 2, cy = height / 2, radius = 140;
  svg.replaceChildren(svg.querySelector('title'));
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const byCluster = new Map(r.ring_order.map((name) => [name, []]));
  for (const p of r.plan) byCluster.get(p.cluster)?.push(p);
  const n = r.plan.length, k = byCluster.size;
  const gap = k > 1 ? Math.min(0.3, Math.PI / k) : 0;
  const slot = (2 * Math.PI - k * gap) / n;
  const at = (angle, rad) => [cx + rad * Math.cos(angle), cy + rad * Math.sin(angle)];
  const arc = (from, to, rad) => {
    const [x1, y1] = at(from, rad), [x2, y2] = at(to, rad);
    return `M ${x1} ${y1} A ${rad} ${rad} 0 ${to - from > Math.PI ? 1 : 0} 1 ${x2} ${y2}`;
  };
  const maxCount = Math.max(1, ...r.plan.map((p) => p.count));
  const big = Math.max(1.5, Math.min(12, (radius * slot) / 2 - 1));
  const drawMarks = n <= MAX_MARKS;
  el('circle', { cx, cy, r: radius, class: 'ring-line' }, svg);
  let angle = -Math.PI / 2 + gap / 2;
  for (const [name, procs] of byCluster) {
    const start = angle, end = start + procs.length * slot;
    const g = el('g', { class: 'cluster', 'data-cluster': name }, svg);
    el('title', {}, g).textContent = `cluster ${name}: ${procs.length} processors, `
      + `${procs.reduce((s, p) => s + p.count, 0)} units`;
    if (k === 1) el('circle', { cx, cy, r: radius, class: 'cluster-arc' }, g);
    else el('path', { d: arc(start, end, radius), class: 'cluster-arc' }, g);
    const mid = (start + end) / 2;
    const [lx, ly] = at(mid, radius + 34);
    el('text', { x: lx, y: ly + 4, class: 'label', 'text-anchor': Math.cos(mid) > 0.3 ? 'start' : Math.cos(mid) < -0.3 ? 'end' : 'middle' }, g)
      .textContent = `${name} · ${procs.length} proc.`;
    procs.forEach((p, j) => {
      if (!drawMarks) return;
      const [x, y] = at(start + (j + 0.5) * slot, radius);
      const share = p.count / maxCount;
      const mark = el('circle', {
        cx: x, cy: y, r: p.participates ? big * (0.35 + 0.65 * Math.sqrt(share)) : big * 0.6,
        class: p.participates ? 'proc' : 'proc idle-proc',
        'data-rank': p.rank, 'data-count': p.count,
        ...(p.participates ? { style: `fill: hsl(32, 80%, ${Math.round(82 - 42 * share)}%)` } : {}),
      }, g);
      el('title', {}, mark).textContent = `${name}[${p.index}], rank ${p.rank}: ${p.count} units, ${p.fast_links} fast `
        + `link(s)${p.participates ? `, step ${ms(p.step_time)}` : ', takes no load'}`;
      if (n <= 32) {
        const [tx, ty] = at(start + (j + 0.5) * slot, radius - big - 12);
        el('text', { x: tx, y: ty + 4, class: 'axis', 'text-anchor': 'middle' }, g).textContent = String(p.count);
      }
    });
    angle = end + gap;
    if (k > 1) el('path', { d: arc(end, angle, radius), class: 'slow-link' }, svg);
  }
  el('text', { x: cx, y: cy - 6, class: 'label', 'text-anchor': 'middle' }, svg).textContent = `${r.units} units`;
  el('text', { x: cx, y: cy + 12, class: 'axis', 'text-anchor': 'middle' }, svg).textContent = `step ${ms(r.step_time)} (EVEN ${ms(r.even_step_time)})`;
  $('m-ring-note').textContent = drawMarks ? '' : `${n} processors: too many to draw one by one; the arcs show the clusters.`;
}

// ---- the model choice --------------------------------------------------------------------

function fillModels(list) {
  const select = $('model');
  select.replaceChildren(...list.map((m) => {
    const option = new Option(`${m.name}: ${m.title}`, m.name);
    option.dataset.paper = m.paper;
    if (!VIEWS[m.name]) {
      option.disabled = true;
      option.textContent += ' (command line only)';
    }
    return option;
  }));
  select.value = list.find((m) => VIEWS[m.name])?.name ?? '';
}

function showModel() {
  const name = $('model').value;
  for (const [model, id] of Object.entries(VIEWS)) $(id).hidden = model !== name;
  $('model-paper').textContent = $('model').selectedOptions[0]?.dataset.paper ?? '';
  document.body.dataset.model = name;
}

// ---- import / export ---------------------------------------------------------------------

function exportPlatform() {
  clearErrors();
  const platform = readForm();
  if (!platform) {
    $('io-error').textContent = 'Fix the marked fields before exporting.';
    return;
  }
  const blob = new Blob([JSON.stringify(platform, null, 2) + '\n'], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = 'platform.json';
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

async function importPlatform(file) {
  clearErrors();
  try {
    const platform = JSON.parse(await file.text());
    if (typeof platform !== 'object' || platform === null || !Array.isArray(platform.workers)) {
      throw new Error('not a platform document: "workers" must be a list');
    }
    if (platform.root_candidates) {
      throw new Error('root_candidates are not supported here; give "root" or use the command line');
    }
    fill(platform);
    compute();
  } catch (e) {
    $('io-error').textContent = `${file.name}: ${e.message}`;
  }
}

// ---- start -------------------------------------------------------------------------------

async function main() {
  await init();
  $('version').textContent = version();
  table1 = await (await fetch('./pkg/table1.json')).json();
  returnsExample = await (await fetch('./returns-b.json')).json();
  table4 = await (await fetch('./multicluster-table4.json')).json();
  fillModels(JSON.parse(models()));
  $('model').addEventListener('change', () => { clearErrors(); showModel(); });
  $('platform').addEventListener('submit', compute);
  $('add-worker').addEventListener('click', () => { addRow(SCATTER); refreshRoots(); });
  $('load-table1').addEventListener('click', () => { clearErrors(); fill(table1); compute(); });
  $('export').addEventListener('click', exportPlatform);
  $('import-file').addEventListener('change', (e) => {
    if (e.target.files[0]) importPlatform(e.target.files[0]);
    e.target.value = '';
  });
  $('copy-c').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText($('c-arrays').value);
      $('copy-status').textContent = 'Copied.';
    } catch {
      $('c-arrays').select();
      $('copy-status').textContent = 'Selected: press Ctrl+C to copy.';
    }
  });
  $('returns-platform').addEventListener('submit', computeReturns);
  $('r-add-worker').addEventListener('click', () => addRow(RETURNS));
  $('load-returns-b').addEventListener('click', () => { clearErrors(); fillReturns(returnsExample); computeReturns(); });
  buildLinkFields();
  $('m-platform').addEventListener('submit', computeMulticluster);
  $('m-add-cluster').addEventListener('click', () => addRow(CLUSTERS));
  $('m-pattern').addEventListener('change', showPattern);
  $('load-table4').addEventListener('click', () => { clearErrors(); fillMulticluster(table4); computeMulticluster(); });
  fill(table1);
  fillReturns(returnsExample);
  fillMulticluster(table4);
  showModel();
  document.body.dataset.ready = 'true';
}

main().catch((e) => {
  $('form-error').textContent = `The calculator could not start: ${e.message ?? e}`;
});
