// The calculator page: a form for the platform, divload (wasm) for the numbers, SVG for
// the charts. Every number shown comes from divload; this file only translates.
import init, { models, plan, schedules, version } from './pkg/divload_wasm.js';

const $ = (id) => document.getElementById(id);
const MAX_ROWS_DRAWN = 200;
let table1 = null;
let returnsExample = null;

// One workers table per model view: the fields of its document, the ids of its inputs
// (`${prefix}${row}-${key}`) and the fields divload's messages may name.
const SCATTER = {
  table: 'workers', prefix: 'w', items: 'items', formError: 'form-error',
  fields: [
    // [key in the platform JSON, column label]
    ['name', 'Name'],
    ['count', 'Copies'],
    ['comm_per_item', 'Comm per item (s)'],
    ['comm_latency', 'Comm latency (s)'],
    ['comp_per_item', 'Compute per item (s)'],
    ['comp_latency', 'Compute latency (s)'],
  ],
  cost: 0, selects: { root: 'root' }, changed: () => refreshRoots(),
};
const RETURNS = {
  table: 'r-workers', prefix: 'r-w', items: 'r-items', formError: 'r-form-error',
  fields: [
    ['name', 'Name'],
    ['count', 'Copies'],
    ['comm_per_item', 'Comm per item (s)'],
    ['comp_per_item', 'Comp per item (s)'],
    ['return_per_item', 'Return per item (s)'],
  ],
  cost: 1, selects: { schedule: 'r-schedule', port: 'r-port' }, changed: () => {},
};
// The views this page has, by model name; the list of models itself comes from divload.
const VIEWS = { scatter: 'view-scatter', returns: 'view-returns' };

// ---- the workers tables ----------------------------------------------------------------

function addRow(view, w = {}) {
  const tbody = $(view.table).tBodies[0];
  const tr = tbody.insertRow();
  for (const [key, label] of view.fields) {
    const td = tr.insertCell();
    const input = document.createElement('input');
    input.dataset.key = key;
    input.value = w[key] ?? (key === 'count' ? 1 : key === 'name' ? `worker${tbody.rows.length}` : view.cost);
    if (key !== 'name') input.inputMode = 'decimal';
    const err = document.createElement('span');
    err.className = 'field-error';
    err.setAttribute('role', 'alert');
    td.append(input, err);
    input.addEventListener('change', view.changed);
    input.dataset.label = label;
  }
  const td = tr.insertCell();
  const rm = document.createElement('button');
  rm.type = 'button';
  rm.textContent = 'Remove';
  rm.addEventListener('click', () => { tr.remove(); relabel(view); view.changed(); });
  td.append(rm);
  relabel(view);
}

// Accessible names and ids follow the row number.
function relabel(view) {
  [...$(view.table).tBodies[0].rows].forEach((tr, i) => {
    for (const input of tr.querySelectorAll('input')) {
      input.id = `${view.prefix}${i}-${input.dataset.key}`;
      const err = input.nextElementSibling;
      err.id = `${input.id}-error`;
      input.setAttribute('aria-label', `Worker ${i + 1} ${input.dataset.label}`);
      input.setAttribute('aria-describedby', err.id);
    }
    tr.querySelector('button').setAttribute('aria-label', `Remove worker ${i + 1}`);
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
  const workers = [...$(view.table).tBodies[0].rows].map((tr) => {
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
  if (workers.length === 0) {
    $(view.formError).textContent = 'Add at least one worker.';
    ok = false;
  }
  return { ok, items: n, workers };
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

// Puts divload's message next to the field it names, or under the view's form.
function showError(view, message) {
  const p = view.prefix;
  let m = /workers\[(\d+)\]\.(\w+)/.exec(message);
  if (m && $(`${p}${m[1]}-${m[2]}`)) return fieldError($(`${p}${m[1]}-${m[2]}`), message);
  m = /workers\[(\d+)\]/.exec(message);
  if (m && $(`${p}${m[1]}-name`)) return fieldError($(`${p}${m[1]}-name`), message);
  if (/(^|: )items\b/.test(message)) return fieldError($(view.items), message);
  for (const [key, id] of Object.entries(view.selects)) {
    if (new RegExp(`(^|: )${key}\\b`).test(message)) return fieldError($(id), message);
  }
  $(view.formError).textContent = message;
}

// ---- results ---------------------------------------------------------------------------

const fmt = (t) => (t >= 100 ? t.toFixed(2) : t >= 1 ? t.toFixed(3) : t.toPrecision(4));

function setTime(id, seconds, extra = '') {
  $(id).textContent = `${fmt(seconds)} s${extra}`;
  $(id).dataset.seconds = String(seconds);
}

function compute(event) {
  event?.preventDefault();
  clearErrors();
  const platform = readForm();
  if (!platform) return;
  let result;
  try {
    result = JSON.parse(schedules(JSON.stringify(platform)));
  } catch (e) {
    showError(SCATTER, e.message ?? String(e));
    return;
  }
  render(result);
}

function render({ plan, even, reversed }) {
  $('results').hidden = false;
  setTime('makespan', plan.makespan);
  setTime('bound', plan.bound);
  const methods = { closed_form: 'closed form + rounding', exact_dp: 'exact DP', sampled_dp: 'sampled DP' };
  $('method').textContent = `${methods[plan.method] ?? plan.method}, ${plan.gap === 0 ? '0' : plan.gap.toPrecision(3)} s`;
  $('method').dataset.method = plan.method;
  $('method').dataset.gap = String(plan.gap);
  setTime('uniform', plan.uniform_makespan);
  $('gain').textContent = `${plan.speedup.toFixed(2)}× faster (${(100 * (1 - 1 / plan.speedup)).toFixed(1)}% shorter)`;
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

  const byRank = [...plan.plan].sort((a, b) => a.rank - b.rank);
  const p = byRank.length;
  $('c-arrays').value = `int counts[${p}] = {${byRank.map((r) => r.count).join(', ')}};\n`
    + `int displs[${p}] = {${byRank.map((r) => r.displacement).join(', ')}};`;

  const tbody = $('plan-table').tBodies[0];
  tbody.replaceChildren();
  plan.plan.slice(0, MAX_ROWS_DRAWN).forEach((r, k) => {
    const tr = tbody.insertRow();
    for (const v of [k + 1, r.name, r.rank, r.count, r.displacement, fmt(r.start), fmt(r.received), fmt(r.finish)]) {
      tr.insertCell().textContent = v;
    }
  });
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

// One row per worker in send order: waiting (0 → start), receiving (start → received),
// computing (received → finish). The staircase of the receiving bars is the root sending
// to one worker after the other.
function drawGantt(svg, rows, names, scale) {
  const width = 900, label = 150, h = 16, top = 22;
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
  clearErrors();
  const doc = readReturnsForm();
  if (!doc) return;
  let chosen;
  try {
    chosen = JSON.parse(plan(JSON.stringify(doc)));
  } catch (e) {
    showError(RETURNS, e.message ?? String(e));
    return;
  }
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
  $('r-method').textContent = `${METHODS[chosen.method] ?? chosen.method}, ${chosen.gap === 0 ? '0' : fmt(chosen.gap)} s`;
  $('r-method').dataset.method = chosen.method;
  $('r-method').dataset.gap = String(chosen.gap);
  setTime('r-lower-bound', chosen.lower_bound);
  $('r-throughput').textContent = `${chosen.throughput.toPrecision(6)} (at most ${chosen.throughput_bound.toPrecision(6)})`;
  $('r-throughput').dataset.value = String(chosen.throughput);
  setTime('r-even', chosen.even_split_makespan);
  $('r-speedup').textContent = `${chosen.speedup.toFixed(2)}× faster (${(100 * (1 - 1 / chosen.speedup)).toFixed(1)}% shorter)`;
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

  const tbody = $('r-plan-table').tBodies[0];
  tbody.replaceChildren();
  chosen.plan.slice(0, MAX_ROWS_DRAWN).forEach((r, k) => {
    const tr = tbody.insertRow();
    for (const v of [k + 1, r.name, r.rank, r.count, r.displacement, fmt(r.send_start), fmt(r.received),
                     fmt(r.computed), fmt(r.idle), fmt(r.return_start), fmt(r.return_end), r.return_position + 1]) {
      tr.insertCell().textContent = v;
    }
  });
  $('r-truncated').textContent = chosen.plan.length > MAX_ROWS_DRAWN
    ? `Showing the first ${MAX_ROWS_DRAWN} of ${chosen.plan.length} workers in the table and charts.` : '';
}

// One row per worker in send order: waiting for its data, receiving, computing, idle
// (results ready, the master's receiving port busy or reserved for an earlier return) and
// returning. The master sends one message at a time, so the receiving bars form a stair;
// the returning bars form another, in the return order.
function drawReturnsGantt(svg, rows, scale) {
  const width = 900, label = 150, h = 16, top = 22;
  const shown = rows.slice(0, MAX_ROWS_DRAWN);
  svg.setAttribute('viewBox', `0 0 ${width} ${top + shown.length * h + 4}`);
  const x = (t) => label + ((width - label - 10) * t) / scale;
  for (let i = 0; i <= 4; i++) {
    const t = (scale * i) / 4;
    el('line', { x1: x(t), x2: x(t), y1: top - 4, y2: top + shown.length * h, class: 'tick' }, svg);
    el('text', { x: x(t), y: 12, class: 'axis', 'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle' }, svg)
      .textContent = `${fmt(t)} s`;
  }
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
  fill(table1);
  fillReturns(returnsExample);
  showModel();
  document.body.dataset.ready = 'true';
}

main().catch((e) => {
  $('form-error').textContent = `The calculator could not start: ${e.message ?? e}`;
});
