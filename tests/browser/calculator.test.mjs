// End-to-end test of the calculator page in real headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core; no browser download).
//
// The page knows no model: it builds each model's form and charts from `models()`. So
// this test runs the same steps for EVERY model that `divload models` lists (MODELS_TXT),
// with the command line's example (CLI_DIR/example-MODEL.json) and its result
// (CLI_DIR/cli-MODEL.json): the example planned on the page gives the command line's
// makespan, envelope and counts; a value outside its schema range is refused at its field
// with the schema's rule, and an error only divload finds (a repeated name) is shown at
// the field it names; a list row added and removed; export, then import of the exported
// file, gives the same document and plan; a phone-sized viewport does not scroll sideways,
// every control is reached by Tab. Then the ring's platform graph (examples/ring_network.json
// and a generated platform of 70 machines: every node and link, the command line's routes
// highlighted; none for a cost matrix), the scatter's baselines (even split, reversed
// order) against the command line, and the bindings themselves (strict JSON, errors,
// the dynamic programs). Screenshots go to OUT_DIR. Exits non-zero on the first failure.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { serve, launch } from './harness.mjs';
import { pierce } from './shadow.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const cliDir = process.env.CLI_DIR;
const table1Cli = JSON.parse(readFileSync(process.env.CLI_JSON, 'utf8'));
const cli_version = () => /^version = "([^"]+)"/m.exec(readFileSync(join(repo, 'Cargo.toml'), 'utf8'))[1];
const outDir = process.env.OUT_DIR ?? join(repo, 'target', 'browser');
mkdirSync(outDir, { recursive: true });
// `divload models`: one unindented line per model, its name first.
const cliModels = readFileSync(process.env.MODELS_TXT, 'utf8').split('\n').filter((l) => /^\S/.test(l))
  .map((l) => l.split(/\s+/)[0]);
assert.ok(cliModels.length >= 4, `divload models listed ${cliModels.length} models`);
const exampleOf = (m) => JSON.parse(readFileSync(join(cliDir, `example-${m}.json`), 'utf8'));
const cliOf = (m) => JSON.parse(readFileSync(join(cliDir, `cli-${m}.json`), 'utf8'));
const MAX_ROWS_DRAWN = 200;
// models() as the page's module gives it: every model's schema and timeline.
let schemas = [];

const { server, url } = await serve(repo);

const browser = await launch();
const pageErrors = [];
let step = 'start';
const report = [];

// The value the page shows for an envelope term, as divload wrote it.
const shown = async (page, key) => JSON.parse(await page.getAttribute(`#r-${key}`, 'data-value'));

// The page's number format (app.js `fmt`).
const fmtNumber = (t) => (Number.isInteger(t) ? String(t) : Math.abs(t) >= 100 ? t.toFixed(2) : Math.abs(t) >= 1 ? t.toFixed(3) : t.toPrecision(4));

// Chooses `model` and waits for its example's plan.
async function choose(page, model) {
  await page.evaluate(() => { $q('#r-makespan')?.removeAttribute('data-value'); });
  await page.selectOption('#model', model);
  await page.waitForFunction((m) => document.body.dataset.model === m
    && $q('#r-makespan')?.dataset.value !== undefined, model);
}

// The page's plan against the command line's result: envelope, counts, rows drawn.
async function sameAsCli(page, model, cli, schemaName = model) {
  for (const key of ['method', 'makespan', 'lower_bound', 'gap', 'exact']) {
    assert.deepEqual(await shown(page, key), cli[key], `${model}: ${key} on the page`);
  }
  const counts = await page.$$eval('#plan-table tbody td[data-key=count]', (tds) => tds.map((td) => Number(td.textContent)));
  const rows = Math.min(cli.plan.length, MAX_ROWS_DRAWN);
  assert.deepEqual(counts, cli.plan.slice(0, rows).map((r) => r.count), `${model}: counts`);
  assert.equal(await page.locator('#gantt-plan .gantt-row').count(), rows, `${model}: one Gantt row per plan row`);
  // The bars of a row are the model's timeline over the row's own columns: one per phase
  // that lasts, as long as the phase (to the chart's scale, the same for every bar).
  const timeline = schemas.find((m) => m.name === schemaName).gantt;
  for (const i of [0, rows - 1]) {
    const r = cli.plan[i];
    // A phase without its start column in the row starts where the phase before ends.
    const starts = timeline.map((p, j) => (p.start ? r[p.start] ?? r[timeline[j - 1]?.end] ?? 0 : 0));
    const want = timeline.map((p, j) => [j, r[p.end] - starts[j]]).filter(([, d]) => d > 0);
    const bars = await page.$$eval(`#gantt-plan .gantt-row:nth-of-type(${i + 1}) rect[class^=phase]`,
      (rs) => rs.map((b) => [Number(b.getAttribute('class').slice(5)), Number(b.getAttribute('width'))]));
    assert.deepEqual(bars.map(([j]) => j), want.map(([j]) => j), `${model}: row ${i}'s phases`);
    const longest = want.reduce((a, b, k) => (b[1] > want[a][1] ? k : a), 0);
    const perSecond = bars[longest][1] / want[longest][1];
    bars.forEach(([j, w], k) => {
      if (want[k][1] * perSecond > 1) {
        assert.ok(Math.abs(w - want[k][1] * perSecond) <= 1e-6 * w, `${model}: row ${i}, phase ${j}: ${w} px`);
      }
    });
  }
}

// A graph chart against the document and the command line's result: one node per node
// of the document (placed, left out or relaying as the result says), one edge per edge
// in the document's order, drawn as its style says; each edge carries exactly the
// result's routes that cross it, one colour per pair of nodes they join, and its
// tooltip names it, its weight and what each of those routes gets. Gives the drawing's
// smallest distance between two nodes (view units).
async function sameGraph(page, name, chart, doc, cli) {
  const svg = page.locator(`#charts figure[data-chart="${chart.list}"] svg.chart-graph`);
  assert.equal(await svg.count(), 1, `${name}: the graph's SVG`);
  const drawn = await svg.evaluate((s) => ({
    nodes: [...s.querySelectorAll('.graph-node')].map((g) => {
      const c = g.querySelector('circle');
      const r = g.querySelector('rect');
      const xy = c ? [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]
        : [Number(r.getAttribute('x')) + Number(r.getAttribute('width')) / 2, Number(r.getAttribute('y')) + Number(r.getAttribute('height')) / 2];
      return { name: g.dataset.name, state: g.dataset.state, xy, title: g.querySelector('title').textContent };
    }),
    edges: [...s.querySelectorAll('.graph-edge')].map((g) => ({
      name: g.dataset.name,
      look: ['plain', 'arrow', 'thick'].filter((k) => g.classList.contains(k)),
      marker: g.querySelector('.graph-link').getAttribute('marker-end'),
      width: Number(getComputedStyle(g.querySelector('.graph-link')).strokeWidth.replace('px', '')),
      routes: g.dataset.routes === '' ? [] : g.dataset.routes.split(',').map(Number),
      pairs: [...g.querySelectorAll('.graph-route')].map((l) => [Number(l.dataset.pair), l.getAttribute('stroke')]),
      title: g.querySelector('title').textContent,
    })),
  }));
  const nodes = (doc[chart.nodes] ?? []).map((n) => n.name);
  const relays = (doc[chart.relays] ?? []).map((n) => n.name);
  assert.deepEqual(drawn.nodes.map((n) => n.name), [...nodes, ...relays], `${name}: one node per ${chart.nodes} and ${chart.relays}`);
  const left = new Set(cli[chart.group] ?? []);
  for (const n of drawn.nodes) {
    const want = relays.includes(n.name) ? 'relay' : left.has(n.name) ? 'left-out' : 'placed';
    assert.equal(n.state, want, `${name}: node ${n.name}`);
  }
  assert.deepEqual(drawn.nodes.filter((n) => n.state === 'placed').map((n) => n.name).sort(),
    nodes.filter((n) => !left.has(n)).sort(), `${name}: the nodes placed`);
  const edges = doc[chart.edges];
  assert.deepEqual(drawn.edges.map((e) => e.name), edges.map((e) => e.name), `${name}: one edge per ${chart.edges}`);
  // Pairs of nodes in the order the result's routes first join them.
  const pairOf = new Map();
  const routes = cli[chart.list];
  const pairs = routes.map((r) => {
    const key = [r.from, r.to].sort().join(' ');
    if (!pairOf.has(key)) pairOf.set(key, pairOf.size);
    return pairOf.get(key);
  });
  const plainWidth = drawn.edges.find((e) => e.look[0] === 'plain')?.width;
  const colours = new Map();
  edges.forEach((e, i) => {
    const d = drawn.edges[i];
    const look = e[chart.style] === chart.arrow ? 'arrow' : e[chart.style] === chart.thick ? 'thick' : 'plain';
    assert.deepEqual(d.look, [look], `${name}: edge ${e.name} (${e[chart.style]}) drawn ${d.look}`);
    assert.equal(d.marker !== null, look === 'arrow', `${name}: edge ${e.name}: an arrowhead iff one way`);
    if (look === 'thick') assert.ok(d.width >= 3 * plainWidth, `${name}: edge ${e.name} is ${d.width} wide, plain ${plainWidth}`);
    const crossing = routes.flatMap((r, j) => (r[chart.edges].includes(e.name) ? [j] : []));
    assert.deepEqual(d.routes, crossing, `${name}: edge ${e.name} carries routes ${d.routes}, the command line's ${crossing}`);
    assert.deepEqual(d.pairs.map(([k]) => k), [...new Set(crossing.map((j) => pairs[j]))], `${name}: edge ${e.name}'s colours`);
    for (const [k, stroke] of d.pairs) {
      if (!colours.has(k)) colours.set(k, stroke);
      assert.equal(colours.get(k), stroke, `${name}: pair ${k} in one colour`);
    }
    assert.ok(d.title.startsWith(`${e.name} (`) && d.title.includes(`${chart.weight} ${fmtNumber(e[chart.weight])}`), `${name}: ${d.title}`);
    for (const j of crossing) {
      const r = routes[j];
      assert.ok(d.title.includes(`\n${r.from} → ${r.to}: ${fmtNumber(r[chart.weight])}`), `${name}: ${e.name}'s tooltip lacks route ${j}: ${d.title}`);
    }
  });
  assert.equal(colours.size, pairOf.size, `${name}: every pair of a route over some edge has its colour`);
  assert.equal(new Set(colours.values()).size, colours.size, `${name}: pairs in colours of their own`);
  let closest = Infinity;
  drawn.nodes.forEach((a, i) => drawn.nodes.slice(i + 1).forEach((b) => {
    closest = Math.min(closest, Math.hypot(a.xy[0] - b.xy[0], a.xy[1] - b.xy[1]));
  }));
  return closest;
}

// Every bounded number of a schema, with the id of its input in the example's form:
// `f-items`, `f-workers-0-comp_per_item`, `f-links-fast-gap`.
function bounded(fields, doc, path, out) {
  for (const f of fields) {
    const here = [...path, f.key];
    const v = doc?.[f.key];
    if ((f.kind === 'number' || f.kind === 'integer') && f.min !== undefined) out.push({ f, id: `f-${here.join('-')}` });
    if (f.kind === 'object' && v) bounded(f.fields, v, here, out);
    if (f.kind === 'list' && Array.isArray(v) && v.length) {
      const i = v.findIndex((r) => r.comp_table === undefined && r.comp_power === undefined);
      if (i >= 0) bounded(f.fields.filter((g) => g.kind !== 'list' && g.kind !== 'object'), v[i], [...here, i], out);
    }
  }
  return out;
}

try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  await page.addInitScript(pierce);
  const requested = [];
  page.on('request', (r) => requested.push(r.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
  // Offline: any request that leaves 127.0.0.1 fails the test.
  await page.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.hostname !== '127.0.0.1') {
      pageErrors.push(`request outside the page's server: ${u}`);
      return route.abort();
    }
    return route.continue();
  });

  step = 'load the page';
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]', { timeout: 20000 });
  // What a first visit downloads (page, scripts, style, manifest, the first model's module
  // and example), each file compressed by `gzip -9` as a server would send it: issue 44's
  // budget, 80 000 bytes. The scatter's first module leaves its installment planner and
  // dynamic programs to two more, loaded when a document needs them (checked below).
  const firstLoad = [...new Set(requested.map((u) => new URL(u)).filter((u) => u.origin === new URL(url).origin)
    .map((u) => (u.pathname.endsWith('/') ? `${u.pathname}index.html` : u.pathname)))]
    .map((path) => [path, execFileSync('gzip', ['-9', '-c', join(repo, 'wasm', 'www', path)]).length]);
  const firstLoadBytes = firstLoad.reduce((sum, [, n]) => sum + n, 0);
  const budget = 80000;
  assert.ok(firstLoadBytes <= budget, `the first load is ${firstLoadBytes} bytes gzip -9, over its budget of `
    + `${budget}: ${firstLoad.map(([path, n]) => `${path.slice(1)} ${n}`).join(', ')}`);
  schemas = await page.evaluate(async () => (await (await fetch('./pkg/manifest.json')).json()).models);

  step = 'only the shown model\'s module is loaded, the others when chosen';
  const wasmLoaded = () => requested.filter((u) => u.endsWith('.wasm')).map((u) => /divload_(\w+)_bg\.wasm$/.exec(u)?.[1]);
  assert.deepEqual(wasmLoaded(), [cliModels[0]], `modules loaded with the page: ${wasmLoaded()}`);

  step = 'the model choice is models(), the command line\'s list';
  assert.deepEqual(await page.$$eval('#model option', (os) => os.map((o) => o.value)), cliModels);
  assert.deepEqual(schemas.map((m) => m.name), cliModels);
  assert.equal(await page.inputValue('#model'), cliModels[0], 'the first model is shown first');

  let addedRowsPlanned = 0;
  for (const schema of schemas) {
    const model = schema.name;
    const cli = cliOf(model);
    const example = exampleOf(model);

    step = `${model}: its example planned on the page is the command line's plan`;
    if (model !== (await page.inputValue('#model'))) {
      await choose(page, model);
      assert.equal(wasmLoaded().at(-1), model, `${model}: its module was not the one loaded`);
    }
    else {
      await page.click('#load-example');
      await page.waitForFunction(() => $q('#r-makespan')?.dataset.value !== undefined);
    }
    await sameAsCli(page, model, cli);
    assert.equal(await page.locator('#legend .swatch').count(), schema.gantt.length, `${model}: one legend entry per phase`);

    step = `${model}: its baselines are the schedules its result compares with`;
    // A result that lists what it was compared with (`compare`) has those schedules
    // drawn beside the plan, each with the makespan the command line printed.
    if (cli.compare) {
      const drawn = await page.$$eval('#baselines figure', (fs) => fs.map((f) => [f.dataset.baseline, Number(f.dataset.makespan)]));
      assert.ok(drawn.length > 0, `${model}: no baseline drawn`);
      for (const [key, makespan] of drawn) {
        assert.equal(makespan, cli.compare[key], `${model}: baseline ${key}'s makespan`);
        assert.ok(await page.locator(`#gantt-${key} .gantt-row`).count() > 0, `${model}: baseline ${key} has rows`);
      }
    }

    step = `${model}: its charts draw the command line's result`;
    for (const chart of schema.charts) {
      const figure = page.locator(`#charts figure[data-chart="${chart.list}"]`);
      const data = cli[chart.list];
      // A graph chart draws the document's own graph: only for a document that has one;
      // any other chart its list, when the result has it (the scatter's lanes: a plan sent
      // in installments).
      const drawn = chart.kind === 'graph' ? (example[chart.edges]?.length ?? 0) > 0
        : Array.isArray(data) && data.length > 0;
      assert.equal(await figure.count(), drawn ? 1 : 0, `${model}: chart of ${chart.list}`);
      if (chart.kind === 'graph' && drawn) await sameGraph(page, model, chart, example, cli);
      else if (chart.kind === 'line') {
        assert.equal(await figure.locator('circle.dot').count(), data.length, `${model}: one point per ${chart.list} row`);
        // The circled best point is the row of the smallest y.
        const best = Math.min(...data.map((r) => r[chart.y]));
        const titles = await figure.locator('circle.dot title').allTextContents();
        assert.equal(titles.length, data.length);
        assert.ok(titles.some((t) => t.endsWith(`${chart.y} ${fmtNumber(best)}`)), `${model}: ${chart.y} ${best} drawn`);
      } else if (chart.kind === 'cycle') {
        const names = await figure.locator('.cycle-node').evaluateAll((ns) => ns.map((n) => n.dataset.name));
        assert.deepEqual(names, data, `${model}: the ${chart.list} drawn in its order`);
        assert.equal(await figure.locator('line.arc').count(), data.length > 1 ? data.length : 0);
      }
    }
    await page.screenshot({ path: join(outDir, `calculator-${model}.png`), fullPage: true });

    step = `${model}: every bounded field refuses a value outside its range, at the field`;
    const fields = bounded(schema.fields, example, [], []);
    assert.ok(fields.length > 0, `${model}: no bounded field in the form`);
    for (const { f, id } of fields) {
      const before = await page.inputValue(`#${id}`);
      const out = f.min_open ? f.min : f.min - 1;
      await page.fill(`#${id}`, String(out));
      await page.click('#compute');
      assert.equal(await page.getAttribute(`#${id}`, 'aria-invalid'), 'true', `${model}: ${id} = ${out} not marked`);
      const err = await page.textContent(`#${id}-error`);
      assert.ok(err.startsWith(`${f.key}: must be`) && err.includes(`${f.min_open ? '>' : '≥'} ${f.min}`),
                `${model}: ${id} = ${out}: ${err}`);
      await page.fill(`#${id}`, 'many');
      await page.click('#compute');
      assert.match(await page.textContent(`#${id}-error`), /must be a number/);
      await page.fill(`#${id}`, before);
    }
    await page.click('#compute');
    assert.equal(await page.locator('#doc [aria-invalid]').count(), 0, `${model}: errors left after the fix`);
    await sameAsCli(page, model, cli);

    step = `${model}: an error only divload finds is shown at the field it names`;
    const list = schema.fields.find((f) => f.kind === 'list' && (example[f.key]?.length ?? 0) >= 2
      && f.fields.some((g) => g.key === 'name'));
    if (list) {
      const first = await page.inputValue(`#f-${list.key}-0-name`);
      await page.fill(`#f-${list.key}-1-name`, first);
      await page.click('#compute');
      const err = await page.textContent(`#f-${list.key}-1-name-error`);
      assert.match(err, new RegExp(`${list.key}\\[1\\]\\.name`), `${model}: ${err}`);
      assert.equal(await page.getAttribute(`#f-${list.key}-1-name`, 'aria-invalid'), 'true');
      await page.screenshot({ path: join(outDir, `calculator-${model}-error.png`) });
      await page.fill(`#f-${list.key}-1-name`, example[list.key][1].name);
    }

    step = `${model}: a row added to a list, then removed`;
    const table = schema.fields.find((f) => f.kind === 'list' && (example[f.key]?.length ?? 0) >= 1);
    const n = example[table.key].length;
    await page.click(`#f-${table.key} .toolbar button`);
    assert.equal(await page.locator(`#f-${table.key} tbody tr`).count(), n + 1);
    const added = await page.inputValue(`#f-${table.key}-${n}-name`).catch(() => null);
    if (added !== null) assert.notEqual(added, example[table.key][n - 1].name, 'a new row gets a name of its own');
    await page.click('#compute');
    // The added row plans, unless another field must change with it (a ring's cost matrix
    // has a row per processor): then divload's error is shown at that field.
    const invalid = await page.locator('#doc [aria-invalid]').count();
    const formError = await page.textContent('#form-error');
    if (invalid === 0 && formError === '') {
      assert.notDeepEqual(await shown(page, 'makespan'), undefined);
      addedRowsPlanned += 1;
    } else {
      assert.ok(invalid > 0, `${model}: the added row's error is shown at a field (${formError})`);
    }
    await page.click(`#f-${table.key} tbody tr:last-child td:last-child button`);
    assert.equal(await page.locator(`#f-${table.key} tbody tr`).count(), n);
    await page.click('#compute');
    await sameAsCli(page, model, cli);

    step = `${model}: export, then import the exported file`;
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
    // The example as it was: a choice the document leaves out is not written out for
    // showing its default (nor an optional object for its selects).
    const expected = structuredClone(example);
    assert.deepEqual(exported, expected, `${model}: the exported document`);
    const file = join(outDir, `exported-${model}.json`);
    writeFileSync(file, JSON.stringify(exported));
    await page.evaluate(() => { $q('#r-makespan').removeAttribute('data-value'); });
    await page.setInputFiles('#import-file', file);
    await page.waitForFunction(() => $q('#r-makespan')?.dataset.value !== undefined);
    await sameAsCli(page, model, cli);
    const [again] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    assert.deepEqual(JSON.parse(readFileSync(await again.path(), 'utf8')), exported, `${model}: import then export`);
    report.push(`${model} ${cli.makespan} s, ${cli.plan.length} rows, ${fields.length} bounded fields`);
  }
  assert.ok(addedRowsPlanned >= schemas.length - 1, `an added row planned in only ${addedRowsPlanned} models`);

  step = 'a value the form refuses hides the plan shown, and Copy has nothing stale to copy';
  {
    const first = schemas[0];
    await choose(page, first.name);
    const f = first.fields.find((g) => g.kind === 'integer' && g.min !== undefined);
    const id = `#f-${f.key}`;
    const good = await page.inputValue(id);
    const arrays = await page.inputValue('#c-arrays');
    assert.ok(arrays.length > 0 && !(await page.isHidden('#results')), 'a plan with C arrays to start from');
    for (const bad of ['abc', '-1', '1e', 'NaN', 'Infinity', '1e400', '9'.repeat(10000)]) {
      await page.fill(id, bad);
      await page.click('#compute');
      assert.equal(await page.getAttribute(id, 'aria-invalid'), 'true', `${f.key} = ${bad.slice(0, 12)} not marked`);
      assert.equal(await page.textContent('#form-error'), 'Fix the marked fields.');
      assert.ok(await page.isHidden('#results'), `${f.key} = ${bad.slice(0, 12)}: the old plan is still shown`);
      assert.equal(await page.inputValue('#c-arrays'), '', `${f.key} = ${bad.slice(0, 12)}: the old C arrays are kept`);
      await page.evaluate(() => $q('#copy-c').click());
      assert.equal(await page.textContent('#copy-status'), '', 'Copy acted on a hidden plan');
      await page.fill(id, good);
      await page.click('#compute');
      assert.ok(!(await page.isHidden('#results')));
      assert.equal(await page.inputValue('#c-arrays'), arrays, 'the fixed form plans the same arrays again');
    }

    step = 'an edit after planning marks the plan out of date until Plan is pressed';
    assert.ok(await page.isHidden('#stale-note'));
    await page.fill(id, String(Number(good) + 1));
    assert.ok(!(await page.isHidden('#stale-note')), 'the plan of the old value is not marked out of date');
    assert.ok(await page.isDisabled('#copy-c'), 'Copy stays enabled on an out-of-date plan');
    await page.evaluate(() => $q('#copy-c').click());
    assert.equal(await page.textContent('#copy-status'), '', 'Copy acted on an out-of-date plan');
    await page.click('#compute');
    assert.ok(await page.isHidden('#stale-note'));
    assert.ok(!(await page.isDisabled('#copy-c')));
    assert.notEqual(await page.inputValue('#c-arrays'), arrays, 'the arrays follow the new value');
    await page.fill(id, good);
    await page.click('#compute');
    assert.equal(await page.inputValue('#c-arrays'), arrays);
  }

  step = 'an emptied field of a group is marked itself and described by the group\'s message';
  // Every field of an object of objects (the multi-cluster `links.fast`) emptied in turn.
  for (const schema of schemas) {
    const example = exampleOf(schema.name);
    for (const outer of schema.fields.filter((g) => g.kind === 'object' && example[g.key])) {
      for (const inner of outer.fields.filter((g) => g.kind === 'object' && example[outer.key][g.key])) {
        await choose(page, schema.name);
        for (const leaf of inner.fields.filter((g) => isFinite(example[outer.key][inner.key][g.key]))) {
          const group = `f-${outer.key}-${inner.key}`;
          const id = `${group}-${leaf.key}`;
          const described = await page.getAttribute(`#${id}`, 'aria-describedby');
          const before = await page.inputValue(`#${id}`);
          await page.fill(`#${id}`, '');
          await page.click('#compute');
          const message = await page.textContent(`#${group}-error`);
          assert.match(message, new RegExp(`${outer.key}\\.${inner.key}.*\\b${leaf.key}\\b`), `${id}: ${message}`);
          assert.equal(await page.getAttribute(`#${id}`, 'aria-invalid'), 'true', `${id} emptied but not marked`);
          const ids = (await page.getAttribute(`#${id}`, 'aria-describedby')).split(' ');
          assert.ok(ids.includes(`${group}-error`), `${id} is not described by the message (${ids})`);
          const others = inner.fields.filter((g) => g.key !== leaf.key).map((g) => `#${group}-${g.key}`);
          for (const o of others) assert.equal(await page.getAttribute(o, 'aria-invalid'), null, `${o} marked though filled`);
          assert.ok(await page.isHidden('#results'));
          await page.fill(`#${id}`, before);
          await page.click('#compute');
          assert.equal(await page.locator('#doc [aria-invalid]').count(), 0, `${id}: marks left after the fix`);
          assert.equal(await page.getAttribute(`#${id}`, 'aria-describedby'), described);
          report.push(`${id} emptied: marked`);
        }
      }
    }
  }
  assert.ok(report.some((r) => r.endsWith('emptied: marked')), 'no model has a group of groups to empty a field of');

  step = 'no extra module before a document needs one';
  const extras = schemas.flatMap((m) => m.extra ?? []);
  const extraLoaded = () => wasmLoaded().filter((m) => extras.includes(m));
  assert.deepEqual(extraLoaded(), [], 'every example plans with its model\'s first module');

  // Every document of examples/ (each model's further examples: a partition of related
  // processors, a learned cost, a ring over shared links, measured tables) imported into
  // the page plans as the command line plans it, its charts included.
  for (const name of readdirSync(join(repo, 'examples')).filter((n) => n.endsWith('.json'))) {
    step = `examples/${name}: imported, planned as the command line plans it`;
    const doc = JSON.parse(readFileSync(join(repo, 'examples', name), 'utf8'));
    const cli = JSON.parse(readFileSync(join(cliDir, `cli-file-${name}`), 'utf8'));
    const model = doc.model ?? 'scatter';
    await page.evaluate(() => { $q('#r-makespan')?.removeAttribute('data-value'); });
    await page.setInputFiles('#import-file', join(repo, 'examples', name));
    await page.waitForFunction((m) => document.body.dataset.model === m
      && $q('#r-makespan')?.dataset.value !== undefined, model);
    await sameAsCli(page, `${model} (${name})`, cli, model);
    for (const chart of schemas.find((m) => m.name === model).charts) {
      const figure = page.locator(`#charts figure[data-chart="${chart.list}"]`);
      if (chart.kind === 'graph') {
        const drawn = (doc[chart.edges]?.length ?? 0) > 0;
        assert.equal(await figure.count(), drawn ? 1 : 0, `${name}: graph of ${chart.edges}`);
        if (drawn) await sameGraph(page, name, chart, doc, cli);
      } else if (Array.isArray(cli[chart.list]) && cli[chart.list].length) {
        assert.equal(await figure.count(), 1, `${name}: chart of ${chart.list}`);
        if (chart.kind === 'lanes') {
          // Every row's phases drawn on its lane: one bar a phase that lasts.
          const lanes = new Set(cli[chart.list].map((r) => r[chart.group]));
          assert.equal(await figure.locator('g.gantt-row').count(), Math.min(lanes.size, MAX_ROWS_DRAWN), `${name}: lanes`);
          for (const [j, p] of chart.phases.entries()) {
            const lasting = cli[chart.list].filter((r) => r[p.end] > r[p.start]).length;
            assert.equal(await figure.locator(`rect.phase${j}`).count(), lasting, `${name}: ${p.label} bars`);
          }
          report.push(`${name}: ${cli[chart.list].length} ${chart.list} on ${lanes.size} lanes`);
        }
      }
    }
    if (Array.isArray(cli.chunks)) {
      // A plan in installments is compared with one installment: the even split, and the
      // planner's best where one installment holds the items within the caps.
      const shown = await page.locator('#baselines figure').evaluateAll((fs) => fs.map((f) => [f.dataset.baseline, Number(f.dataset.makespan)]));
      assert.ok(shown.some(([key]) => key === 'even'), `${name}: baselines ${shown}`);
      for (const [key, m] of shown) {
        assert.ok(['even', 'one_round'].includes(key) && m >= cli.makespan, `${name}: baseline ${key} ${m} against the plan's ${cli.makespan}`);
      }
      report.push(`${name}: baselines ${shown.map(([k, m]) => `${k} ${m}`).join(', ')}`);
    }
    report.push(`${name} ${cli.makespan} s`);
    for (const m of extraLoaded().filter((m) => !report.some((r) => r.startsWith(`module ${m} `)))) {
      report.push(`module ${m} loaded for ${name}`);
    }
  }
  step = 'the extra modules, each loaded once, for the documents that need them';
  assert.deepEqual([...extraLoaded()].sort(), [...extras].sort(),
    'a document of examples/ needs each extra module (measured.json: scatter_dp; scatter_installments.json: scatter_installments)');

  // Named here rather than taken from the schema, so that this fails when the chart goes.
  step = 'the platform graph: examples/ring_network.json drawn with the command line\'s routes';
  const graphChart = schemas.find((m) => m.name === 'ring').charts.find((c) => c.kind === 'graph');
  assert.ok(graphChart, 'the ring model declares no graph chart');
  const importDoc = async (file, model) => {
    await page.evaluate(() => { $q('#r-makespan')?.removeAttribute('data-value'); });
    await page.setInputFiles('#import-file', file);
    await page.waitForFunction((m) => document.body.dataset.model === m
      && $q('#r-makespan')?.dataset.value !== undefined, model, { timeout: 60000 });
  };
  const network = JSON.parse(readFileSync(join(repo, 'examples', 'ring_network.json'), 'utf8'));
  await importDoc(join(repo, 'examples', 'ring_network.json'), 'ring');
  assert.equal(await page.locator('#charts svg.chart-graph').count(), 1, 'ring_network.json: no graph drawn');
  assert.equal(await page.locator('#charts svg.chart-graph .graph-node').count(), network.processors.length + network.routers.length);
  assert.equal(await page.locator('#charts svg.chart-graph .graph-edge').count(), network.links.length);
  const networkCli = JSON.parse(readFileSync(join(cliDir, 'cli-file-ring_network.json'), 'utf8'));
  const highlighted = await page.$$eval('#charts svg.chart-graph .graph-edge', (gs) => gs
    .filter((g) => g.querySelector('.graph-route')).map((g) => g.dataset.name).sort());
  assert.deepEqual(highlighted, [...new Set(networkCli.paths.flatMap((p) => p.links))].sort(), 'the links highlighted are the paths\' links');
  const networkClosest = await sameGraph(page, 'ring_network.json', graphChart, network, networkCli);
  await page.locator('#charts svg.chart-graph').screenshot({ path: join(outDir, 'graph-ring_network.png') });

  step = 'the platform graph: none for a cost matrix, whose result draws the other charts';
  await importDoc(join(repo, 'examples', 'ring.json'), 'ring');
  assert.equal(await page.locator('#charts svg.chart-graph').count(), 0, 'a graph drawn for a cost matrix');
  assert.ok(await page.locator('#charts figure').count() >= 2, 'the cost matrix\'s other charts are drawn');

  step = 'the platform graph: 70 machines (divload example ring --machines 70 --seed 1), nodes apart';
  const big = JSON.parse(readFileSync(join(cliDir, 'graph-70.json'), 'utf8'));
  const bigCli = JSON.parse(readFileSync(join(cliDir, 'cli-graph-70.json'), 'utf8'));
  const started = Date.now();
  await importDoc(join(cliDir, 'graph-70.json'), 'ring');
  const bigMs = Date.now() - started;
  await sameAsCli(page, 'ring (70 machines)', bigCli, 'ring');
  const bigClosest = await sameGraph(page, '70 machines', graphChart, big, bigCli);
  // Nodes are circles of radius 5 and squares of 7: 12 view units keep each clear of the others.
  assert.ok(bigClosest >= 12, `70 machines: two nodes ${bigClosest} apart`);
  await page.locator('#charts svg.chart-graph').screenshot({ path: join(outDir, 'graph-70.png') });
  report.push(`graph of 70 machines (${big.processors.length + big.routers.length} nodes, ${big.links.length} links) `
    + `imported, planned and drawn in ${bigMs} ms, nodes at least ${bigClosest.toFixed(1)} apart (${networkClosest.toFixed(1)} for ring_network.json)`);

  step = 'a document that is not JSON is refused at the import button';
  const junk = join(outDir, 'junk.json');
  writeFileSync(junk, '{"items": .5}');
  await page.setInputFiles('#import-file', junk);
  await page.waitForFunction(() => $q('#io-error').textContent !== '');
  assert.match(await page.textContent('#io-error'), /^junk\.json: /);

  step = 'the scatter baselines: even split and reversed order beside the plan';
  const scatter = cliOf('scatter');
  await choose(page, 'scatter');
  const baselines = await page.$$eval('#baselines figure', (fs) => fs.map((f) => [f.dataset.baseline, Number(f.dataset.makespan)]));
  assert.deepEqual(baselines.map(([k]) => k), ['even', 'reversed']);
  const [[, even], [, reversed]] = baselines;
  assert.ok(Math.abs(even - scatter.uniform_makespan) <= 1e-9 * even, `even split ${even} != ${scatter.uniform_makespan}`);
  assert.ok(reversed >= scatter.makespan, 'the reversed order is not better than the optimal one (Thm 3)');
  for (const key of ['even', 'reversed']) {
    assert.equal(await page.locator(`#gantt-${key} .gantt-row`).count(), scatter.plan.length);
  }
  assert.equal(await page.locator('#bars rect').count(), 3, 'the plan and its two baselines compared');
  // The C arrays are the command line's counts by rank.
  const c = await page.inputValue('#c-arrays');
  const byRank = [...scatter.plan].sort((a, b) => a.rank - b.rank);
  assert.ok(c.includes(`int counts[${byRank.length}] = {${byRank.map((r) => r.count).join(', ')}};`), c);
  // Without baselines (measured costs) the plan is still drawn, with the reason.
  await page.setInputFiles('#import-file', join(repo, 'examples', 'measured.json'));
  await page.waitForFunction(() => $q('#baseline-note').textContent !== '');
  assert.match(await page.textContent('#baseline-note'), /affine costs only/);
  assert.equal(await page.locator('#baselines figure').count(), 0);

  step = 'the bindings: objects and strings in, JS Errors with the core message out';
  const api = await page.evaluate(async () => {
    const m = await import('./pkg/divload_scatter.js');
    const platform = { version: 1, items: 10, root: 'a', workers: [
      { name: 'a', comm_per_item: 0, comp_per_item: 1 }, { name: 'b', count: 2, comm_per_item: 0.1, comp_per_item: 2 }] };
    const fromObject = JSON.parse(m.plan(platform));
    const fromString = JSON.parse(m.plan(JSON.stringify(platform)));
    const caught = (f) => { try { f(); return null; } catch (e) { return [e instanceof Error, e.message]; } };
    return {
      same: JSON.stringify(fromObject) === JSON.stringify(fromString),
      sum: fromObject.plan.reduce((s, r) => s + r.count, 0),
      rows: fromObject.plan.length,
      nan: caught(() => m.plan({ ...platform, items: 0 })),
      truncated: caught(() => m.schedules('{"version": 1, "items": 5')),
      wrongType: caught(() => m.plan(42)),
      strict: [
        caught(() => m.plan('{"comment": hello world, "items": 5}')),
        caught(() => m.plan('{"items": .5}')),
        caught(() => m.plan('{"items": 5, "items": 6}')),
        caught(() => m.plan('{"root": "a\u0001b"}')),
        caught(() => m.plan('{"x": ' + '['.repeat(200000))),
        caught(() => m.plan('{"comment": {"a": 1, "a": 2}, "items": 5}')),
      ],
      // JSON.stringify's failures keep no externref slot (each kept one, and the module
      // trapped for good after 8·10⁶), and say why; unpaired surrogates are refused, not
      // turned into U+FFFD on the way in.
      bigint: caught(() => m.plan({ b: 1n })),
      surrogate: caught(() => m.plan('{"version": 1, "root": "\uD800"}')),
      table: await (async () => {
        const w = await m.default();
        const before = w.__wbindgen_externrefs.length;
        for (let i = 0; i < 5000; i++) caught(() => m.plan({ b: 1n }));
        return w.__wbindgen_externrefs.length - before;
      })(),
      models: JSON.parse(m.models()).map((x) => x.name),
      other: caught(() => m.plan('{"version": 1, "model": "returns"}')),
      version: m.version(),
    };
  });
  assert.equal(api.same, true);
  assert.equal(api.sum, 10);
  assert.equal(api.rows, 3);
  assert.deepEqual(api.nan, [true, 'items: must be at least 1, got 0']);
  assert.deepEqual(api.truncated, [true, 'platform JSON: items: byte 25: truncated document (unexpected end)']);
  // Strict JSON in the browser too: byte offsets, duplicates, no stack overflow on deep
  // nesting (wasm's whole stack is 1 MiB; the model is looked for past it), and comments
  // are text (an object could hide repeated keys).
  const strict = ['comment: byte 12: expected a string', 'items: byte 10: invalid number', 'items: byte 13: duplicate key',
    'raw control character', 'byte 1: unknown key', 'comment: byte 12: expected a string'];
  strict.forEach((needle, i) => {
    assert.equal(api.strict[i]?.[0], true, `strict case ${i}: ${api.strict[i]}`);
    assert.ok(api.strict[i][1].includes(needle), `strict case ${i}: ${api.strict[i][1]} lacks ${needle}`);
  });
  assert.deepEqual(api.wrongType, [true, 'platform: expected a JSON string or an object']);
  assert.deepEqual(api.bigint,
    [true, 'platform: the object cannot be converted to JSON (Do not know how to serialize a BigInt)']);
  assert.deepEqual(api.surrogate,
    [true, 'platform: the string holds an unpaired UTF-16 surrogate (not Unicode text)']);
  assert.ok(api.table < 1000, `5000 failed conversions grew the externref table by ${api.table}`);
  // The bindings list the core's registry, the same as `divload models` (MODELS_TXT: one
  // unindented line per model, its name first).
  assert.deepEqual(api.models, ['scatter'], 'the scatter module carries its model alone');
  assert.equal(api.other[0], true);
  assert.match(api.other[1], /model: .*must be a model of this build/, 'another model\'s document in the scatter module');
  assert.deepEqual(schemas.slice(0, 2).map((m) => m.name), ['scatter', 'returns']);
  assert.equal(wasmLoaded().length, new Set(wasmLoaded()).size, `a module loaded twice: ${wasmLoaded()}`);
  assert.equal(api.version, cli_version());

  step = 'the dynamic programs in the browser: measured costs, exact and sampled';
  const measured = readFileSync(new URL('../../examples/measured.json', import.meta.url), 'utf8');
  const table1 = readFileSync(new URL('../../examples/table1.json', import.meta.url), 'utf8');
  const dp = await page.evaluate(async ([measured, table1]) => {
    // The first module refuses them, saying so; the module scatter_dp plans them.
    const first = await import('./pkg/divload_scatter.js');
    let refused = null;
    try { first.plan(measured); } catch (e) { refused = e.message; }
    const m = await import('./pkg/divload_scatter_dp.js');
    await m.default();
    const withSolver = (doc, solver) => JSON.stringify({ ...JSON.parse(doc), solver });
    const exact = JSON.parse(m.plan(measured));
    const sampled = JSON.parse(m.plan(withSolver(measured, 'sampled')));
    const paper = JSON.parse(m.plan(withSolver(table1, 'exact')));
    let schedules = null;
    try { m.schedules(measured); } catch (e) { schedules = e.message; }
    return { refused, exact, sampled, paper, schedules };
  }, [measured, table1]);
  assert.match(dp.refused ?? '', /^platform JSON: solver: the dynamic programs .* left out of this build: module scatter_dp plans them/);
  assert.equal(dp.exact.method, 'exact_dp');
  assert.equal(dp.exact.plan.reduce((s, r) => s + r.count, 0), 20000);
  assert.equal(dp.sampled.method, 'sampled_dp');
  assert.ok(dp.sampled.lower_bound <= dp.exact.makespan && dp.exact.makespan <= dp.sampled.makespan);
  assert.equal(dp.paper.method, 'exact_dp');
  assert.ok(dp.paper.makespan <= table1Cli.makespan + 1e-9, `exact ${dp.paper.makespan} vs closed form ${table1Cli.makespan}`);
  assert.match(dp.schedules, /affine costs only/);


  step = 'a phone\'s width: no model\'s page scrolls sideways (tables scroll in their own box)';
  await page.setViewportSize({ width: 390, height: 844 });
  const widths = {};
  for (const model of cliModels) {
    await choose(page, model);
    widths[model] = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(widths[model] <= 390, `${model}: the page is ${widths[model]} px wide at a 390 px viewport`);
    await page.screenshot({ path: join(outDir, `calculator-${model}-390.png`), fullPage: true });
  }
  // The graph is wider than a phone: it scrolls in its own box.
  await importDoc(join(repo, 'examples', 'ring_network.json'), 'ring');
  widths.graph = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(widths.graph <= 390, `the graph's page is ${widths.graph} px wide at a 390 px viewport`);
  assert.equal(await page.locator('#charts .scroll:has(svg.chart-graph)').getAttribute('tabindex'), '0', 'the graph\'s box is reached by Tab');
  await page.screenshot({ path: join(outDir, 'calculator-graph-390.png'), fullPage: true });

  step = 'a phone\'s width: every control of every model\'s form is labelled, reached by Tab, and shown when focused';
  const tabbed = {};
  for (const model of cliModels) {
    await choose(page, model);
    const unlabelled = await page.$$eval('[data-kind]', (es) => es.filter((e) => !e.getAttribute('aria-label')
      && !e.getRootNode().querySelector(`label[for="${e.id}"]`)).map((e) => e.id));
    assert.deepEqual(unlabelled, [], `${model}: inputs without a label`);
    // Every visible control (and every table box that scrolls, which a keyboard user must
    // be able to scroll), numbered so that Tab's path can be checked against it.
    const controls = await page.evaluate(() => {
      const all = [...$qa(
        'button, input:not([type=hidden]), select, textarea, a[href], [tabindex]:not([tabindex="-1"])')];
      const shown = all.filter((e) => !e.disabled && e.getClientRects().length > 0
        && getComputedStyle(e).visibility !== 'hidden');
      shown.forEach((e, i) => { e.dataset.kb = String(i); });
      return shown.map((e) => e.id || e.getAttribute('aria-label') || e.textContent.trim().slice(0, 30) || e.tagName);
    });
    await page.evaluate(() => { $active()?.blur(); window.scrollTo(0, 0); });
    const reached = new Set();
    const offscreen = [];
    for (let i = 0; i < controls.length * 2 + 10 && reached.size < controls.length; i++) {
      await page.keyboard.press('Tab');
      const at = await page.evaluate(() => {
        const e = $active();
        if (!e || e.dataset.kb === undefined) return null;
        const r = e.getBoundingClientRect();
        // Shown: some of it inside the viewport (a focused control scrolls into view).
        const shown = r.right > 0 && r.left < innerWidth && r.bottom > 0 && r.top < innerHeight;
        return { kb: Number(e.dataset.kb), shown, hidden: e.classList.contains('visually-hidden') };
      });
      if (at === null) continue;
      reached.add(at.kb);
      if (!at.shown && !at.hidden) offscreen.push(controls[at.kb]);
    }
    const missed = controls.filter((_, i) => !reached.has(i));
    assert.deepEqual(missed, [], `${model}: Tab never reaches ${missed.join(', ')}`);
    assert.deepEqual(offscreen, [], `${model}: focused but not on screen: ${offscreen.join(', ')}`);
    tabbed[model] = controls.length;
  }

  step = 'no JavaScript errors';
  assert.deepEqual(pageErrors, []);
  console.log(`first load: ${firstLoadBytes} bytes gzip -9 (budget ${budget}; `
    + `${firstLoadBytes > budget ? `over by ${firstLoadBytes - budget}` : `${budget - firstLoadBytes} to spare`}): `
    + firstLoad.sort((a, b) => b[1] - a[1]).map(([path, n]) => `${path.slice(1)} ${n}`).join(', '));
  console.log(`browser test: passed for every model (${report.join('; ')}): the command line's envelope and `
    + `counts, range errors at their fields, rows added and removed, export/import round trips; scatter baselines `
    + `even ${even} s, reversed ${reversed} s; 390 px wide: ${Object.values(widths).join('/')} px, Tab reaches all `
    + `${Object.values(tabbed).join('/')} controls; screenshots in ${outDir})`);
} catch (e) {
  console.error(`browser test failed at step "${step}": ${e.message}`);
  if (pageErrors.length) console.error('page errors:', pageErrors);
  process.exitCode = 1;
} finally {
  await browser.close();
  server.kill();
}
