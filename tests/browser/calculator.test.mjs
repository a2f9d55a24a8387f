// End-to-end test of the calculator page in real headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core; no browser download).
//
// Serves wasm/www on 127.0.0.1, loads the paper's Table 1, computes, and checks the
// makespan against the command line's result for the same file (CLI_JSON), the Gantt rows,
// the C arrays, keyboard use, errors shown next to the fields for bad input, and export.
// Then the returns model: the slides' platform B (RETURNS_EXAMPLE, from `divload example
// returns`) against the command line's result (RETURNS_CLI_JSON), the three Gantt charts
// (chosen, LIFO, FIFO) and an error at its field. Then the multicluster model: heien Table 4
// (MULTICLUSTER_EXAMPLE, from `divload example multicluster`) against the command line's
// result (MULTICLUSTER_CLI_JSON): the ring drawing, the what-if answers, errors at their
// fields. Finally every view at a phone's width (390 px) without horizontal scrolling, and
// every control of every view reached by the keyboard (Tab) and on screen when focused.
// MODELS_TXT is `divload models`. Saves screenshots into OUT_DIR. Exits non-zero on the first failure.
import { spawn } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const cli = JSON.parse(readFileSync(process.env.CLI_JSON, 'utf8'));
const returnsCli = JSON.parse(readFileSync(process.env.RETURNS_CLI_JSON, 'utf8'));
const returnsExample = JSON.parse(readFileSync(process.env.RETURNS_EXAMPLE, 'utf8'));
const mcExample = JSON.parse(readFileSync(process.env.MULTICLUSTER_EXAMPLE, 'utf8'));
const mcCli = JSON.parse(readFileSync(process.env.MULTICLUSTER_CLI_JSON, 'utf8'));
const cli_version = () => /^version = "([^"]+)"/m.exec(readFileSync(join(repo, 'Cargo.toml'), 'utf8'))[1];
const outDir = process.env.OUT_DIR ?? join(repo, 'target', 'browser');
mkdirSync(outDir, { recursive: true });

const server = spawn(process.execPath, [join(repo, 'wasm', 'www', 'serve.mjs'), '--port', '0'],
                     { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  server.stdout.on('data', (d) => {
    const m = /serving (http:\/\/\S+)/.exec(String(d));
    if (m) resolve(m[1]);
  });
  server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const pageErrors = [];
let step = 'start';
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
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

  step = 'load Table 1 and compute';
  await page.click('#load-table1');
  await page.waitForSelector('#results:not([hidden])');
  const makespan = Number(await page.getAttribute('#makespan', 'data-seconds'));
  assert.ok(Math.abs(makespan - cli.makespan) <= 1e-9 * cli.makespan,
            `page makespan ${makespan} != command line ${cli.makespan}`);
  const uniform = Number(await page.getAttribute('#uniform', 'data-seconds'));
  assert.ok(Math.abs(uniform - cli.uniform_makespan) <= 1e-9 * uniform);
  assert.match(await page.textContent('#makespan'), /^403\.9\d s$/);
  assert.equal(await page.locator('#gantt-plan .gantt-row').count(), 16, 'one Gantt row per worker');
  assert.equal(await page.locator('#gantt-even .gantt-row').count(), 16);
  assert.equal(await page.locator('#gantt-reversed .gantt-row').count(), 16);
  assert.equal(await page.locator('#plan-table tbody tr').count(), 16);
  const reversed = Number(await page.getAttribute('#reversed-makespan', 'data-seconds'));
  assert.ok(reversed >= makespan, 'the reversed order is not better than the optimal one');
  // The C arrays are the command line's counts by rank.
  const c = await page.inputValue('#c-arrays');
  const byRank = [...cli.plan].sort((a, b) => a.rank - b.rank);
  assert.ok(c.includes(`int counts[16] = {${byRank.map((r) => r.count).join(', ')}};`), c);
  assert.ok(c.includes(`int displs[16] = {${byRank.map((r) => r.displacement).join(', ')}};`), c);
  await page.screenshot({ path: join(outDir, 'calculator.png'), fullPage: true });

  step = 'keyboard: change the item count and press Enter';
  await page.fill('#items', '1000');
  await page.press('#items', 'Enter');
  await page.waitForFunction(() => document.querySelector('#plan-table tbody').textContent.length > 0
    && [...document.querySelectorAll('#plan-table tbody tr')]
      .reduce((s, tr) => s + Number(tr.cells[3].textContent), 0) === 1000);

  step = 'a negative cost is shown next to its field';
  await page.fill('#w2-comp_per_item', '-1');
  await page.click('#compute');
  const err = await page.textContent('#w2-comp_per_item-error');
  assert.equal(err, 'platform JSON: workers[2].comp_per_item must be finite and > 0, got -1');
  assert.equal(await page.getAttribute('#w2-comp_per_item', 'aria-invalid'), 'true');
  await page.screenshot({ path: join(outDir, 'calculator-error.png') });

  step = 'text where a number belongs is shown next to its field';
  await page.fill('#w2-comp_per_item', 'fast');
  await page.fill('#w4-count', '2.5');
  await page.fill('#items', '');
  await page.click('#compute');
  assert.equal(await page.textContent('#w2-comp_per_item-error'), 'must be a number');
  assert.equal(await page.textContent('#w4-count-error'), 'a whole number, at least 1');
  assert.equal(await page.textContent('#items-error'), 'a whole number of items, at least 1');

  step = 'a zero compute time and a removed root';
  await page.fill('#w2-comp_per_item', '0');
  await page.fill('#w4-count', '2');
  await page.fill('#items', '500');
  await page.click('#compute');
  assert.match(await page.textContent('#w2-comp_per_item-error'), /comp_per_item must be finite and > 0, got 0/);

  step = 'export gives the platform back';
  await page.fill('#w2-comp_per_item', '0.004629');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(exported.items, 500);
  assert.equal(exported.workers.length, 7);
  assert.equal(exported.workers[4].count, 2);

  step = 'the bindings: objects and strings in, JS Errors with the core message out';
  const api = await page.evaluate(async () => {
    const m = await import('./pkg/divload_wasm.js');
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
  const cliModels = readFileSync(process.env.MODELS_TXT, 'utf8').split('\n').filter((l) => /^\S/.test(l))
    .map((l) => l.split(/\s+/)[0]);
  assert.deepEqual(api.models, cliModels);
  assert.deepEqual(api.models.slice(0, 2), ['scatter', 'returns']);
  assert.equal(api.version, cli_version());

  step = 'the solver select: the exact DP from the page';
  await page.click('#load-table1').catch(() => {});
  await page.selectOption('#solver', 'exact');
  await page.click('#compute');
  await page.waitForFunction(() => document.querySelector('#method')?.dataset.method === 'exact_dp');
  const exactMakespan = Number(await page.getAttribute('#makespan', 'data-seconds'));
  assert.ok(Number(await page.getAttribute('#method', 'data-gap')) < 1e-9);
  await page.selectOption('#solver', 'closed_form');
  await page.click('#compute');
  await page.waitForFunction(() => document.querySelector('#method')?.dataset.method === 'closed_form');
  assert.ok(exactMakespan <= Number(await page.getAttribute('#makespan', 'data-seconds')) + 1e-9);

  step = 'the dynamic programs in the browser: measured costs, exact and sampled';
  const measured = readFileSync(new URL('../../examples/measured.json', import.meta.url), 'utf8');
  const table1 = readFileSync(new URL('../../examples/table1.json', import.meta.url), 'utf8');
  const dp = await page.evaluate(async ([measured, table1]) => {
    const m = await import('./pkg/divload_wasm.js');
    const withSolver = (doc, solver) => JSON.stringify({ ...JSON.parse(doc), solver });
    const exact = JSON.parse(m.plan(measured));
    const sampled = JSON.parse(m.plan(withSolver(measured, 'sampled')));
    const paper = JSON.parse(m.plan(withSolver(table1, 'exact')));
    let schedules = null;
    try { m.schedules(measured); } catch (e) { schedules = e.message; }
    return { exact, sampled, paper, schedules };
  }, [measured, table1]);
  assert.equal(dp.exact.method, 'exact_dp');
  assert.equal(dp.exact.plan.reduce((s, r) => s + r.count, 0), 20000);
  assert.equal(dp.sampled.method, 'sampled_dp');
  assert.ok(dp.sampled.lower_bound <= dp.exact.makespan && dp.exact.makespan <= dp.sampled.makespan);
  assert.equal(dp.paper.method, 'exact_dp');
  assert.ok(dp.paper.makespan <= makespan + 1e-9, `exact ${dp.paper.makespan} vs closed form ${makespan}`);
  assert.match(dp.schedules, /affine costs only/);

  step = 'the returns model in the bindings: platform B';
  const rApi = await page.evaluate(async (doc) => {
    const m = await import('./pkg/divload_wasm.js');
    const best = JSON.parse(m.plan(doc));
    let bad = null;
    try {
      m.plan({ ...doc, workers: doc.workers.map((w, i) => (i === 1 ? { ...w, comp_per_item: 0 } : w)) });
    } catch (e) { bad = [e instanceof Error, e.message]; }
    return { best, bad };
  }, returnsExample);
  assert.equal(rApi.best.method, 'best_scenario');
  assert.ok(Math.abs(rApi.best.throughput - 38 / 499) <= 1e-12, `throughput ${rApi.best.throughput} != 38/499`);
  assert.deepEqual(rApi.best, returnsCli, 'plan() in the browser gives the command line\'s document');
  assert.equal(rApi.bad?.[0], true);
  assert.match(rApi.bad[1], /workers\[1\]\.comp_per_item.*> 0, got 0/);

  step = 'the model choice comes from models()';
  assert.deepEqual(await page.$$eval('#model option', (os) => os.map((o) => o.value)), api.models);
  // Models without a view on this page are listed but cannot be chosen.
  assert.deepEqual(await page.$$eval('#model option:not([disabled])', (os) => os.map((o) => o.value)),
                   ['scatter', 'returns', 'multicluster']);
  assert.equal(await page.inputValue('#model'), 'scatter');
  assert.equal(await page.isVisible('#view-returns'), false);
  await page.selectOption('#model', 'returns');
  assert.equal(await page.isVisible('#view-scatter'), false);
  assert.equal(await page.isVisible('#returns-platform'), true);

  step = 'the returns view: the page\'s platform B is the command line\'s example';
  const pageExample = JSON.parse(readFileSync(join(repo, 'wasm', 'www', 'returns-b.json'), 'utf8'));
  assert.deepEqual({ ...pageExample, comment: null }, { ...returnsExample, comment: null });

  step = 'the returns view: load platform B and compute';
  await page.click('#load-returns-b');
  await page.waitForSelector('#returns-results:not([hidden])');
  const rMakespan = Number(await page.getAttribute('#r-makespan', 'data-seconds'));
  assert.equal(rMakespan, returnsCli.makespan, `page makespan ${rMakespan} != command line ${returnsCli.makespan}`);
  assert.equal(rMakespan, 13139);
  assert.equal(await page.getAttribute('#r-method', 'data-method'), 'best_scenario');
  assert.equal(Number(await page.getAttribute('#r-method', 'data-gap')), returnsCli.gap);
  assert.equal(Number(await page.getAttribute('#r-lower-bound', 'data-seconds')), returnsCli.lower_bound);
  assert.equal(Number(await page.getAttribute('#r-throughput', 'data-value')), returnsCli.throughput);
  assert.equal(Number(await page.getAttribute('#r-speedup', 'data-value')), returnsCli.speedup);
  assert.equal(Number(await page.getAttribute('#r-even', 'data-seconds')), returnsCli.even_split_makespan);
  assert.deepEqual(JSON.parse(await page.getAttribute('#r-send-order', 'data-names')), returnsCli.send_order);
  assert.deepEqual(JSON.parse(await page.getAttribute('#r-return-order', 'data-names')), returnsCli.return_order);
  assert.equal(await page.locator('#r-charts figure').count(), 3, 'chosen, LIFO and FIFO charts');
  for (const key of ['chosen', 'lifo', 'fifo']) {
    assert.equal(await page.locator(`#r-gantt-${key} .gantt-row`).count(), 3, `${key}: one Gantt row per worker`);
    for (const cls of ['recv', 'comp', 'ret']) {
      assert.equal(await page.locator(`#r-gantt-${key} .gantt-row rect.${cls}`).count(), 3, `${key}: ${cls} bars`);
    }
  }
  const chartMakespan = async (key) => Number(await page.getAttribute(`#r-charts figure[data-schedule=${key}]`, 'data-makespan'));
  assert.equal(await chartMakespan('chosen'), 13139);
  assert.equal(await chartMakespan('lifo'), 14983);
  assert.equal(await chartMakespan('lifo'), returnsCli.compare.lifo);
  assert.equal(await chartMakespan('fifo'), 13448);
  assert.equal(await chartMakespan('fifo'), returnsCli.compare.fifo);
  // p1 waits 11 s for the master's receiving port in the best scenario.
  assert.equal(await page.locator('#r-gantt-chosen rect.idle').count(), 1);
  assert.equal(await page.locator('#r-plan-table tbody tr').count(), 3);
  await page.screenshot({ path: join(outDir, 'calculator-returns.png'), fullPage: true });

  step = 'the returns view: the schedule select';
  await page.selectOption('#r-schedule', 'lifo');
  await page.click('#r-compute');
  await page.waitForFunction(() => document.querySelector('#r-makespan')?.dataset.seconds === '14983');
  assert.equal(await chartMakespan('chosen'), 14983);
  await page.selectOption('#r-schedule', 'best');

  step = 'the returns view: a zero compute time is shown next to its field';
  await page.fill('#r-w1-comp_per_item', '0');
  await page.press('#r-w1-comp_per_item', 'Enter');
  await page.waitForFunction(() => document.querySelector('#r-w1-comp_per_item-error')?.textContent !== '');
  assert.equal(await page.textContent('#r-w1-comp_per_item-error'), rApi.bad[1]);
  assert.equal(await page.getAttribute('#r-w1-comp_per_item', 'aria-invalid'), 'true');
  await page.screenshot({ path: join(outDir, 'calculator-returns-error.png') });
  await page.fill('#r-w1-comp_per_item', '5');
  await page.click('#r-compute');
  assert.equal(await page.textContent('#r-w1-comp_per_item-error'), '');
  assert.equal(Number(await page.getAttribute('#r-makespan', 'data-seconds')), 13139);

  step = 'back to the scatter view';
  await page.selectOption('#model', 'scatter');
  assert.equal(await page.isVisible('#view-returns'), false);
  assert.equal(await page.isVisible('#platform'), true);

  step = 'the multicluster view: the page\'s Table 4 is the command line\'s example';
  assert.deepEqual(JSON.parse(readFileSync(join(repo, 'wasm', 'www', 'multicluster-table4.json'), 'utf8')), mcExample);
  await page.selectOption('#model', 'multicluster');
  assert.equal(await page.isVisible('#view-scatter'), false);
  assert.equal(await page.isVisible('#m-platform'), true);

  step = 'the multicluster view: load Table 4 and compute';
  await page.click('#load-table4');
  await page.waitForSelector('#m-results:not([hidden])');
  // The form shows link times in µs; the document (and the result) keeps seconds.
  assert.equal(await page.inputValue('#m-fast-latency'), '45');
  assert.equal(await page.inputValue('#m-slow-gap'), '0.5');
  assert.equal(await page.inputValue('#m-flip_time'), '0.55');
  const mcMakespan = Number(await page.getAttribute('#m-makespan', 'data-seconds'));
  assert.equal(mcMakespan, mcCli.makespan, `page makespan ${mcMakespan} != command line ${mcCli.makespan}`);
  assert.match(await page.textContent('#m-makespan'), /^54\.444 s$/);
  assert.equal(await page.getAttribute('#m-method', 'data-method'), mcCli.method);
  for (const [selector, attribute, want] of [['#m-method', 'data-gap', mcCli.gap], ['#m-even', 'data-seconds', mcCli.even_makespan],
    ['#m-speedup', 'data-value', mcCli.speedup], ['#m-steps-compared', 'data-biased', mcCli.step_time],
    ['#m-steps-compared', 'data-even', mcCli.even_step_time]]) {
    assert.equal(Number(await page.getAttribute(selector, attribute)), want, `${selector} ${attribute}`);
  }
  assert.deepEqual(JSON.parse(await page.getAttribute('#m-ring-order', 'data-names')), mcCli.ring_order);
  assert.equal(await page.locator('#m-ring .cluster-arc').count(), 2, 'one arc per cluster');
  assert.equal(await page.locator('#m-ring .proc').count(), 16, 'one mark per processor');
  assert.equal(await page.locator('#m-ring .idle-proc').count(), 0);
  assert.equal(await page.locator('#m-ring .slow-link').count(), 2, 'two slow links close the ring of two clusters');
  for (const [i, name] of mcCli.ring_order.entries()) {
    const counts = await page.$$eval(`#m-ring [data-cluster="${name}"] .proc`, (ms) => ms.map((m) => Number(m.dataset.count)));
    assert.deepEqual(counts, mcCli.plan.filter((p) => p.cluster === name).map((p) => p.count), `cluster ${i} counts`);
  }
  assert.equal(await page.locator('#m-bars rect').count(), 2, 'EVEN and BIASED step times');
  assert.equal(await page.locator('#m-class-table tbody tr').count(), mcCli.classes.length);
  const byRankMc = [...mcCli.plan].sort((a, b) => a.rank - b.rank);
  assert.ok((await page.inputValue('#m-c-arrays')).includes(`int counts[16] = {${byRankMc.map((r) => r.count).join(', ')}};`));

  step = 'the multicluster view: the what-if answers';
  const answers = await page.$$eval('#m-what-if-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.candidate,
    100 * Number(tr.dataset.speedup), tr.cells[4].textContent]));
  assert.deepEqual(answers.map((a) => a[0]), ['+8P', '+3x4P']);
  for (const [[, pct, text], want] of answers.map((a, i) => [a, [28.3, 33.4][i]])) {
    assert.ok(Math.abs(pct - want) <= 0.1, `speedup ${pct} % != ${want} %`);
    assert.equal(text, `${want.toFixed(1)} %`);
  }
  assert.deepEqual(answers.map((a) => a[1] / 100), mcCli.what_if.map((w) => w.speedup));
  await page.screenshot({ path: join(outDir, 'calculator-multicluster.png'), fullPage: true });

  step = 'the multicluster view: a cluster that takes no load is drawn apart';
  await page.fill('#m-slow-gap', '1e15');
  await page.click('#m-compute');
  await page.waitForFunction(() => document.querySelectorAll('#m-ring .idle-proc').length === 8);
  assert.equal(await page.locator('#m-ring .proc').count(), 16);
  await page.fill('#m-slow-gap', '0.5');

  step = 'the multicluster view: bad values are shown next to their fields';
  const mcBad = await page.evaluate(async (doc) => {
    const m = await import('./pkg/divload_wasm.js');
    try { m.plan({ ...doc, clusters: [{ name: 'a', processors: 0 }, doc.clusters[1]] }); } catch (e) { return e.message; }
    return null;
  }, mcExample);
  assert.equal(mcBad, 'platform JSON: clusters[0].processors: must be in 1..=16777216');
  await page.fill('#m-c0-processors', '0');
  await page.click('#m-compute');
  assert.equal(await page.textContent('#m-c0-processors-error'), mcBad);
  assert.equal(await page.getAttribute('#m-c0-processors', 'aria-invalid'), 'true');
  await page.screenshot({ path: join(outDir, 'calculator-multicluster-error.png') });
  await page.fill('#m-c0-processors', '8');
  await page.fill('#m-fast-overhead', '-1');
  await page.click('#m-compute');
  assert.match(await page.textContent('#m-fast-overhead-error'), /links\.fast\.overhead: must be finite and >= 0/);
  await page.fill('#m-fast-overhead', '5');
  await page.fill('#m-steps', '0');
  await page.click('#m-compute');
  assert.match(await page.textContent('#m-steps-error'), /application: steps: missing or 0/);
  await page.fill('#m-steps', '2.5');
  await page.fill('#m-slow-latency', 'slow');
  await page.click('#m-compute');
  assert.equal(await page.textContent('#m-steps-error'), 'a whole number');
  assert.equal(await page.textContent('#m-slow-latency-error'), 'must be a number');
  await page.fill('#m-slow-latency', '400');
  await page.fill('#m-steps', '20');
  await page.click('#m-compute');
  assert.equal(await page.locator('#m-platform [aria-invalid]').count(), 0);
  assert.equal(Number(await page.getAttribute('#m-makespan', 'data-seconds')), mcCli.makespan);

  step = 'the multicluster view: the all-to-all pattern, sort time in ms';
  const sort = { pattern: 'all_to_all', objects: 10000000, chunk: 4096, sort_time: 3.42e-3, words_per_object: 25 };
  const sortCli = await page.evaluate(async (doc) => JSON.parse((await import('./pkg/divload_wasm.js')).plan(doc)),
                                      { ...mcExample, application: sort });
  await page.selectOption('#m-pattern', 'all_to_all');
  assert.equal(await page.isVisible('#m-lattice'), false);
  await page.fill('#m-objects', '10000000');
  await page.fill('#m-chunk', '4096');
  await page.fill('#m-sort_time', '3.42');
  await page.fill('#m-words_per_object', '25');
  await page.click('#m-compute');
  await page.waitForFunction((t) => document.querySelector('#m-makespan')?.dataset.seconds === String(t), sortCli.makespan);
  await page.selectOption('#m-pattern', 'ring');
  await page.click('#m-compute');
  assert.equal(Number(await page.getAttribute('#m-makespan', 'data-seconds')), mcCli.makespan);

  step = 'a phone\'s width: no view scrolls sideways (tables scroll in their own box)';
  await page.setViewportSize({ width: 390, height: 844 });
  const widths = {};
  for (const model of ['scatter', 'returns', 'multicluster']) {
    await page.selectOption('#model', model);
    widths[model] = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(widths[model] <= 390, `${model}: the page is ${widths[model]} px wide at a 390 px viewport`);
  }
  await page.screenshot({ path: join(outDir, 'calculator-multicluster-390.png'), fullPage: true });

  step = 'a phone\'s width: every control of every view is reached by Tab, and shown when focused';
  const tabbed = {};
  for (const model of ['scatter', 'returns', 'multicluster']) {
    await page.selectOption('#model', model);
    // Every visible control (and every table box that scrolls, which a keyboard user must
    // be able to scroll), numbered so that Tab's path can be checked against it.
    const controls = await page.evaluate(() => {
      const all = [...document.querySelectorAll(
        'button, input:not([type=hidden]), select, textarea, a[href], [tabindex]:not([tabindex="-1"])')];
      const shown = all.filter((e) => !e.disabled && e.getClientRects().length > 0
        && getComputedStyle(e).visibility !== 'hidden');
      shown.forEach((e, i) => { e.dataset.kb = String(i); });
      return shown.map((e) => e.id || e.getAttribute('aria-label') || e.textContent.trim().slice(0, 30) || e.tagName);
    });
    await page.evaluate(() => { document.activeElement?.blur(); window.scrollTo(0, 0); });
    const reached = new Set();
    const offscreen = [];
    for (let i = 0; i < controls.length * 2 + 10 && reached.size < controls.length; i++) {
      await page.keyboard.press('Tab');
      const at = await page.evaluate(() => {
        const e = document.activeElement;
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
  console.log(`browser test: passed (makespan ${makespan} s = command line; 16 Gantt rows; `
    + `errors shown at their fields; returns: makespan ${rMakespan} s = command line, LIFO 14983, FIFO 13448, `
    + `3 charts × 3 Gantt rows; multicluster: makespan ${mcMakespan} s = command line, 16 processors on 2 arcs, `
    + `what-if ${mcCli.what_if.map((w) => `${w.name} ${(100 * w.speedup).toFixed(1)} %`).join(', ')}; `
    + `390 px wide: ${Object.values(widths).join('/')} px, Tab reaches all ${Object.values(tabbed).join('/')} `
    + `controls; screenshots in ${outDir})`);
} catch (e) {
  console.error(`browser test failed at step "${step}": ${e.message}`);
  if (pageErrors.length) console.error('page errors:', pageErrors);
  process.exitCode = 1;
} finally {
  await browser.close();
  server.kill();
}
