// End-to-end test of the calculator page in real headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core; no browser download).
//
// Serves wasm/www on 127.0.0.1, loads the paper's Table 1, computes, and checks the
// makespan against the command line's result for the same file (CLI_JSON), the Gantt rows,
// the C arrays, keyboard use, errors shown next to the fields for bad input, and export.
// Saves screenshots into OUT_DIR. Exits non-zero on the first failure.
import { spawn } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const cli = JSON.parse(readFileSync(process.env.CLI_JSON, 'utf8'));
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
        caught(() => m.plan('{"comment": ' + '['.repeat(200000))),
      ],
      models: JSON.parse(m.models()).map((x) => x.name),
      version: m.version(),
    };
  });
  assert.equal(api.same, true);
  assert.equal(api.sum, 10);
  assert.equal(api.rows, 3);
  assert.deepEqual(api.nan, [true, 'items: must be at least 1, got 0']);
  assert.deepEqual(api.truncated, [true, 'platform JSON: items: byte 25: truncated document (unexpected end)']);
  // Strict JSON in the browser too: byte offsets, duplicates, and no stack overflow on
  // deep nesting (wasm's whole stack is 1 MiB).
  const strict = ['byte 12: bare word', 'items: byte 10: invalid number', 'items: byte 13: duplicate key',
    'raw control character', 'nesting deeper than 128'];
  strict.forEach((needle, i) => {
    assert.equal(api.strict[i]?.[0], true, `strict case ${i}: ${api.strict[i]}`);
    assert.ok(api.strict[i][1].includes(needle), `strict case ${i}: ${api.strict[i][1]} lacks ${needle}`);
  });
  assert.deepEqual(api.wrongType, [true, 'platform: expected a JSON string or an object']);
  assert.deepEqual(api.models, ['scatter']);
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

  step = 'no JavaScript errors';
  assert.deepEqual(pageErrors, []);
  console.log(`browser test: passed (makespan ${makespan} s = command line; 16 Gantt rows; `
    + `errors shown at their fields; screenshots in ${outDir})`);
} catch (e) {
  console.error(`browser test failed at step "${step}": ${e.message}`);
  if (pageErrors.length) console.error('page errors:', pageErrors);
  process.exitCode = 1;
} finally {
  await browser.close();
  server.kill();
}
