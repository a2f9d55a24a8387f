// The calculator page: a form for the platform, divload (wasm) for the numbers, SVG for
// the charts. Every number shown comes from divload; this file only translates.
import init, { schedules, version } from './pkg/divload_wasm.js';

const $ = (id) => document.getElementById(id);
const FIELDS = [
  // [key in the platform JSON, column label, kind]
  ['name', 'Name', 'name'],
  ['count', 'Copies', 'copies'],
  ['comm_per_item', 'Comm per item (s)', 'cost'],
  ['comm_latency', 'Comm latency (s)', 'cost'],
  ['comp_per_item', 'Compute per item (s)', 'cost'],
  ['comp_latency', 'Compute latency (s)', 'cost'],
];
const MAX_ROWS_DRAWN = 200;
let table1 = null;

// ---- the workers table ---------------------------------------------------------------

function addRow(w = {}) {
  const tbody = $('workers').tBodies[0];
  const tr = tbody.insertRow();
  for (const [key, label] of FIELDS) {
    const td = tr.insertCell();
    const input = document.createElement('input');
    input.dataset.key = key;
    input.value = w[key] ?? (key === 'count' ? 1 : key === 'name' ? `worker${tbody.rows.length}` : 0);
    if (key !== 'name') input.inputMode = 'decimal';
    const err = document.createElement('span');
    err.className = 'field-error';
    err.setAttribute('role', 'alert');
    td.append(input, err);
    input.addEventListener('change', refreshRoots);
    input.dataset.label = label;
  }
  const td = tr.insertCell();
  const rm = document.createElement('button');
  rm.type = 'button';
  rm.textContent = 'Remove';
  rm.addEventListener('click', () => { tr.remove(); relabel(); refreshRoots(); });
  td.append(rm);
  relabel();
}

// Accessible names and ids follow the row number.
function relabel() {
  [...$('workers').tBodies[0].rows].forEach((tr, i) => {
    for (const input of tr.querySelectorAll('input')) {
      input.id = `w${i}-${input.dataset.key}`;
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
  for (const w of platform.workers ?? []) addRow(w);
  $('items').value = platform.items ?? '';
  for (const [id, key, dflt] of [['root-mode', 'root_mode', 'after_send'], ['order', 'order', 'bandwidth'],
                                  ['rounding', 'rounding', 'greedy'], ['solver', 'solver', 'closed_form']]) {
    $(id).value = platform[key] ?? dflt;
  }
  refreshRoots();
  $('root').value = platform.root ?? $('root').value;
}

// ---- reading the form, with errors next to the fields -------------------------------

function clearErrors() {
  for (const e of document.querySelectorAll('.field-error')) e.textContent = '';
  for (const e of document.querySelectorAll('[aria-invalid]')) e.removeAttribute('aria-invalid');
}

function fieldError(input, message) {
  input.setAttribute('aria-invalid', 'true');
  $(`${input.id}-error`).textContent = message;
}

// The platform document from the form, or null after marking every field that is not a
// number. Ranges are checked by divload itself, whose messages name the field.
function readForm() {
  let ok = true;
  const items = $('items');
  const n = Number(items.value.trim());
  if (items.value.trim() === '' || !Number.isSafeInteger(n) || n < 1) {
    fieldError(items, 'a whole number of items, at least 1');
    ok = false;
  }
  const workers = [...$('workers').tBodies[0].rows].map((tr) => {
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
    $('form-error').textContent = 'Add at least one worker.';
    ok = false;
  }
  if (!ok) return null;
  return {
    version: 1, items: n, root: $('root').value, root_mode: $('root-mode').value,
    order: $('order').value, rounding: $('rounding').value, solver: $('solver').value, workers,
  };
}

// Puts divload's message next to the field it names, or under the form.
function showError(message) {
  let m = /workers\[(\d+)\]\.(\w+)/.exec(message);
  if (m && $(`w${m[1]}-${m[2]}`)) return fieldError($(`w${m[1]}-${m[2]}`), message);
  m = /workers\[(\d+)\]/.exec(message);
  if (m && $(`w${m[1]}-name`)) return fieldError($(`w${m[1]}-name`), message);
  if (/(^|: )items\b/.test(message)) return fieldError($('items'), message);
  if (/(^|: )root\b/.test(message)) return fieldError($('root'), message);
  $('form-error').textContent = message;
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
    showError(e.message ?? String(e));
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
  $('platform').addEventListener('submit', compute);
  $('add-worker').addEventListener('click', () => { addRow(); refreshRoots(); });
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
  fill(table1);
  document.body.dataset.ready = 'true';
}

main().catch((e) => {
  $('form-error').textContent = `The calculator could not start: ${e.message ?? e}`;
});
