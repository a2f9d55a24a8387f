// The embeddable element in real headless Chromium: tests/browser/embed.html, a plain page
// of its own look that embeds two <divload-calculator>s of two models (one editable from
// its model's example, one read-only from inline JSON), served beside the element's files.
// Each plans its example as `divload plan --json` does (run on the same documents here:
// DIVLOAD), shown and in its `divload-plan` event; then a `src` document, a `document`
// attribute and `editable` set later. Only the element's own files are requested (each
// model's module and the manifest once); the page's font and colours reach inside;
// labels, aria-invalid and the live region at a refused value; no sideways scroll at
// 360 px, both forms shown. Exits non-zero on the first failure.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { serve, launch } from './harness.mjs';
import { pierce } from './shadow.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const outDir = process.env.OUT_DIR ?? join(repo, 'target', 'browser');
mkdirSync(outDir, { recursive: true });
const divload = process.env.DIVLOAD;
assert.ok(divload, 'DIVLOAD: the divload binary to take the expected plans from');
// What the command line prints for a document.
const cliPlan = (doc, name) => {
  const file = join(outDir, `widget-${name}.json`);
  writeFileSync(file, JSON.stringify(doc));
  return JSON.parse(execFileSync(divload, ['plan', file, '--json'], { encoding: 'utf8' }));
};
const cliExample = (model) => JSON.parse(execFileSync(divload, ['example', model], { encoding: 'utf8' }));

const html = readFileSync(join(here, 'embed.html'), 'utf8');
// The two elements as the page declares them: id, model, and the inline document if any.
const declared = [...html.matchAll(/<divload-calculator id="([^"]+)" model="([^"]+)"/g)].map((m) => ({ id: m[1], model: m[2] }));
assert.equal(declared.length, 2, 'embed.html declares two elements');
assert.notEqual(declared[0].model, declared[1].model, 'of two models');
const inline = JSON.parse(/<script type="application\/json">([\s\S]*?)<\/script>/.exec(html)[1]);
const [editable, readOnly] = declared;
// The inline document is the model's example, as the command line writes it.
assert.deepEqual(inline, cliExample(readOnly.model), `the inline document is \`divload example ${readOnly.model}\``);
editable.doc = cliExample(editable.model);
readOnly.doc = inline;
for (const w of declared) w.cli = cliPlan(w.doc, w.model);

const { server, url } = await serve(repo);
// The host page and a document for `src` live beside the element's files, as a site that
// copies wasm/www/ would have them; the test serves them itself.
const pageUrl = `${url}embed.html`;
const srcUrl = `${url}documents/table1.json`;

const browser = await launch();
const pageErrors = [];
let step = 'start';

try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.addInitScript(pierce);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
  const requested = [];
  page.on('request', (r) => requested.push(r.url()));
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u === pageUrl) return route.fulfill({ contentType: 'text/html; charset=utf-8', body: html });
    if (u === srcUrl) return route.fulfill({ path: join(repo, 'examples', 'table1.json'), contentType: 'application/json' });
    if (new URL(u).hostname !== '127.0.0.1') {
      pageErrors.push(`request outside the page's server: ${u}`);
      return route.abort();
    }
    return route.continue();
  });
  const inside = (id, selector) => page.locator(`#${id}`).locator(selector);
  // The envelope, the plan's counts and the event's document of one element.
  const sameAsCli = async (w, cli, what) => {
    for (const key of ['method', 'makespan', 'lower_bound', 'gap', 'exact']) {
      assert.deepEqual(JSON.parse(await inside(w.id, `#r-${key}`).getAttribute('data-value')), cli[key], `${what}: ${key}`);
    }
    const counts = await inside(w.id, '#plan-table tbody td[data-key=count]').allTextContents();
    assert.deepEqual(counts.map(Number), cli.plan.map((r) => r.count), `${what}: counts`);
    const heard = await page.evaluate((id) => window.plans.filter((p) => p.from === id).at(-1)?.plan, w.id);
    assert.deepEqual(heard, cli, `${what}: the divload-plan event's document is the command line's result`);
  };

  step = 'load the page: each element plans its example';
  await page.goto(pageUrl);
  await page.waitForFunction((ids) => ids.every((id) => window.plans.some((p) => p.from === id)),
    declared.map((w) => w.id), { timeout: 20000 });
  for (const w of declared) await sameAsCli(w, w.cli, `${w.id} (${w.model})`);
  assert.match(await page.textContent('#heard'), new RegExp(`${editable.id}: ${editable.cli.makespan} s`));

  step = 'only the elements\' own files were requested, each model\'s once';
  const paths = requested.map((u) => new URL(u).pathname);
  const files = (model) => [`/pkg/divload_${model}.js`, `/pkg/divload_${model}_bg.wasm`];
  const want = ['/embed.html', '/pkg/divload-calculator.js', '/pkg/manifest.json', ...files(editable.model),
    `/pkg/examples/${editable.model}.json`, ...files(readOnly.model)];
  // wasm-bindgen's JS snippets of the modules (pkg/snippets/…) are the element's files too.
  const own = paths.filter((p) => !/^\/pkg\/snippets\/[\w-]+\/[\w-]+\.js$/.test(p));
  assert.deepEqual([...own].sort(), [...want].sort(), `requests: ${paths.join(', ')}`);
  assert.ok(requested.every((u) => new URL(u).origin === new URL(url).origin), 'a request left the page\'s server');

  step = 'editable and read-only';
  assert.ok(await inside(editable.id, '#fields').isVisible(), 'the editable element shows its form');
  assert.ok(await inside(editable.id, '#compute').isVisible());
  for (const part of ['#fields', '#compute', '#load-example', '#export']) {
    assert.ok(await inside(readOnly.id, part).isHidden(), `the read-only element shows ${part}`);
  }
  assert.ok(await inside(readOnly.id, '#results').isVisible(), 'the read-only element shows its plan');

  step = 'the page\'s font and colours inside the elements';
  const looks = await page.evaluate((ids) => ids.map((id) => {
    const root = document.getElementById(id).shadowRoot;
    const style = (e) => getComputedStyle(e);
    const body = style(document.body);
    const texts = ['#r-makespan', '#plan-table td', 'label', 'h2'].map((s) => root.querySelector(s)).filter(Boolean);
    return {
      fonts: texts.map((e) => style(e).fontFamily),
      colours: texts.map((e) => style(e).color),
      body: [body.fontFamily, body.color],
      accent: style(root.getElementById('compute')).backgroundColor,
    };
  }), declared.map((w) => w.id));
  for (const [i, look] of looks.entries()) {
    assert.ok(look.fonts.length >= 3, `${declared[i].id}: text found`);
    for (const f of look.fonts) assert.equal(f, look.body[0], `${declared[i].id}: font ${f}`);
    for (const c of look.colours) assert.equal(c, look.body[1], `${declared[i].id}: colour ${c}`);
    assert.equal(look.accent, 'rgb(120, 30, 90)', `${declared[i].id}: --divload-accent not used`);
  }

  step = 'two elements on one page keep their own labels and ids';
  const labels = await page.evaluate((id) => {
    const root = document.getElementById(id).shadowRoot;
    const inputs = [...root.querySelectorAll('[data-kind]')];
    return {
      count: inputs.length,
      unlabelled: inputs.filter((e) => !e.getAttribute('aria-label') && root.querySelector(`label[for="${e.id}"]`)?.control !== e).map((e) => e.id),
      // The page's document sees none of them: ids do not clash between elements.
      leaked: inputs.filter((e) => e.id && document.getElementById(e.id)).length,
    };
  }, editable.id);
  assert.ok(labels.count > 3, 'the editable element has inputs');
  assert.deepEqual(labels.unlabelled, [], 'inputs without their own label');
  assert.equal(labels.leaked, 0);

  step = 'a refused value: marked, described, said in the live region, the plan hidden, no event';
  {
    const before = await page.evaluate(() => window.plans.length);
    const items = inside(editable.id, '#f-items');
    const good = await items.inputValue();
    await items.fill('0');
    await inside(editable.id, '#compute').click();
    assert.equal(await items.getAttribute('aria-invalid'), 'true');
    assert.ok((await items.getAttribute('aria-describedby')).split(' ').includes('f-items-error'));
    assert.match(await inside(editable.id, '#f-items-error').textContent(), /^items: must be/);
    assert.equal(await inside(editable.id, '#f-items-error').getAttribute('role'), 'alert');
    assert.equal(await inside(editable.id, '#form-error').textContent(), 'Fix the marked fields.');
    assert.ok(await inside(editable.id, '#results').isHidden(), 'the old plan is still shown');
    assert.equal(await page.evaluate(() => window.plans.length), before, 'a refused form announced a plan');
    assert.ok(await inside(readOnly.id, '#results').isVisible(), 'the other element lost its plan');
    await items.fill(good);
    await inside(editable.id, '#compute').click();
    assert.equal(await items.getAttribute('aria-invalid'), null);
    await sameAsCli(editable, editable.cli, `${editable.id}, fixed`);
  }

  step = 'a `src` document';
  {
    const table1 = JSON.parse(readFileSync(join(repo, 'examples', 'table1.json'), 'utf8'));
    const cli = cliPlan(table1, 'table1');
    const count = await page.evaluate(() => window.plans.length);
    await page.evaluate((u) => document.getElementById('editable').setAttribute('src', u), srcUrl);
    await page.waitForFunction((n) => window.plans.length > n, count);
    await sameAsCli(editable, cli, `${editable.id} from src`);
    assert.equal(await inside(editable.id, '#f-items').inputValue(), String(table1.items));
  }

  step = 'a `document` attribute, before the inline document; `editable` set later shows the form';
  {
    const doc = { ...inline, items: inline.items / 2 };
    const cli = cliPlan(doc, `${readOnly.model}-half`);
    const count = await page.evaluate(() => window.plans.length);
    await page.evaluate(([id, text]) => document.getElementById(id).setAttribute('document', text), [readOnly.id, JSON.stringify(doc)]);
    await page.waitForFunction((n) => window.plans.length > n, count);
    await sameAsCli(readOnly, cli, `${readOnly.id} from its document attribute`);
    await page.evaluate((id) => document.getElementById(id).setAttribute('editable', ''), readOnly.id);
    assert.ok(await inside(readOnly.id, '#fields').isVisible(), 'editable set, the form is still hidden');
    assert.equal(await inside(readOnly.id, '#f-items').inputValue(), String(doc.items));
  }

  step = 'a phone\'s width: 360 px, no sideways scroll';
  await page.setViewportSize({ width: 360, height: 780 });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 360, `the page is ${width} px wide at a 360 px viewport`);
  await page.screenshot({ path: join(outDir, 'widget-360.png'), fullPage: true });

  step = 'no JavaScript errors';
  assert.deepEqual(pageErrors, []);
  console.log(`widget test: passed (${declared.map((w) => `${w.id} ${w.model} ${w.cli.makespan} s`).join(', ')}; `
    + `requests: ${paths.length} files, the elements' own; 360 px wide: ${width} px; screenshot in ${outDir})`);
} catch (e) {
  console.error(`widget test failed at step "${step}": ${e.message}`);
  if (pageErrors.length) console.error('page errors:', pageErrors);
  process.exitCode = 1;
} finally {
  await browser.close();
  server.kill();
}
