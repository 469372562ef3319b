// The real-browser test of the published site (docs/site.md), run by `make test` through CTest:
//   node tests/site/browser/site_test.js OPENRECIPES_BINARY ARTIFACT_DIR
// It builds the bundled registry's site, serves it with `openrecipes serve`, and drives Debian's chromium through
// npm playwright-core, headless and offline:
//   - every page loads with no console error, page error, failed request or CSP violation;
//   - every ranking and every number a page shows (each carries its exact value in data-value) equals what
//     `openrecipes build --json` computed, and its text is that value in the site's format;
//   - clicking a column header sorts the table; a filter given in the URL applies and survives;
//   - with JavaScript off the tables are there, in rank order;
//   - a registry of hostile fields (<script>, "'><img onerror>, javascript: links, bidi controls, template tags)
//     renders as inert text: no dialog, no element or attribute the templates do not write.
//   - the index's filters (model, GPU type, GPU count, framework, standard workload only, every recipe) from the URL
//     and from the controls, with their empty states; the changelog and the build time; the Reproduce box of every
//     recipe page (its recipe.yaml shown character for character, its run line, the full rows_sha256).
//   - at 1,280 px no table is wider than its column (index, model and recipe pages) and at 420 px no page is wider
//     than the window; each recipe that is not verified is named with its reasons on its model page.
// Screenshots of the index, a model page, a recipe page and a Reproduce box (at 1,280 and 420 px) go to ARTIFACT_DIR
// and to docs/screenshots/ (the README's, so they are never stale); the site is built at a fixed SOURCE_DATE_EPOCH so
// they change only when the pages do.
'use strict';

const assert = require('assert');
const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const source = path.resolve(__dirname, '../../..');
const modules = path.join(source, 'third_party/oracles/node_modules');
const chromiumPath = process.env.OPENRECIPES_CHROMIUM || '/usr/bin/chromium';

function fail(msg) {
  console.error('site_test: ' + msg);
  process.exit(1);
}

const [binary, artifacts] = process.argv.slice(2);
if (!binary || !artifacts) fail('usage: node site_test.js OPENRECIPES_BINARY ARTIFACT_DIR');
if (!fs.existsSync(chromiumPath)) fail(`no chromium at ${chromiumPath}: run scripts/bootstrap (it installs Debian's chromium)`);
if (!fs.existsSync(path.join(modules, 'playwright-core'))) fail('no playwright-core: run scripts/bootstrap');
const { chromium } = require(path.join(modules, 'playwright-core'));

// The build time every page shows: fixed, so the screenshots change only when the pages do (2026-12-03 12:00 UTC).
const env = { ...process.env, SOURCE_DATE_EPOCH: '1796299200' };

function run(args) {
  const r = childProcess.spawnSync(binary, args, { encoding: 'utf8', maxBuffer: 1 << 28, env });
  if (r.status !== 0) fail(`openrecipes ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

// The site's number formats (src/site/format.h), written again here from their definitions.
function thousands(s) {
  const neg = s.startsWith('-');
  let [int, frac] = (neg ? s.slice(1) : s).split('.');
  int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (neg ? '-' : '') + int + (frac === undefined ? '' : '.' + frac);
}
const formats = {
  tokens_per_s_per_gpu: (v) => thousands(v.toFixed(1)),
  cv: (v) => (100 * v).toFixed(1) + '%',
  mfu: (v) => (100 * v).toFixed(1) + '%',
  gpus: (v) => thousands(String(v)),
  dollars_per_million_tokens: (v) => (v >= 1 ? '$' + v.toFixed(3) : '$' + v.toFixed(4)),
  gpu_hours: (v) => (v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(4)),
  mean_step_time_s: (v) => v.toFixed(4) + ' s',
  rank: (v) => String(v),
  correlation: (v) => v.toFixed(6),
  final_loss_rel_diff: (v) => (100 * v).toFixed(4) + '%',
  dollars_per_gpu_hour: (v) => '$' + v.toFixed(4),
  dense_bf16_tflops: (v) => thousands(v.toFixed(1)),
};

function entryValue(entry, field) {
  if (field === 'correlation' || field === 'final_loss_rel_diff') return entry.checks.convergence[field];
  return entry[field];
}

// Every [data-field] element of the page, checked against `entry` (an object with those fields).
async function checkFields(page, scope, entry, where, getter = entryValue) {
  const cells = await page.$$eval(scope + ' [data-field]', (els) =>
    els.map((e) => ({ field: e.getAttribute('data-field'), value: e.getAttribute('data-value'), text: e.textContent.trim() })));
  let checked = 0;
  for (const c of cells) {
    if (!(c.field in formats)) continue;
    const want = getter(entry, c.field);
    if (want === undefined || want === null) {
      assert.strictEqual(c.value, '', `${where}: ${c.field} has a value but the build computed none`);
      continue;
    }
    assert.strictEqual(Number(c.value), want, `${where}: ${c.field} data-value ${c.value} != build --json ${want}`);
    assert.strictEqual(c.text, formats[c.field](want), `${where}: ${c.field} shows '${c.text}'`);
    checked++;
  }
  return checked;
}

async function startServer(site) {
  const server = childProcess.spawn(binary, ['serve', site, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      if (m) resolve(Number(m[1]));
    });
    server.on('exit', (code) => reject(new Error('serve exited ' + code)));
    setTimeout(() => reject(new Error('serve did not start: ' + out)), 10000);
  });
  return { server, base: `http://127.0.0.1:${port}/` };
}

function stopServer(server) {
  return new Promise((resolve) => {
    server.on('exit', (code, signal) => resolve({ code, signal }));
    server.kill('SIGTERM');
  });
}

function htmlPages(site) {
  const out = [];
  (function walk(dir) {
    for (const name of fs.readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue;
      const p = path.join(dir, name);
      if (fs.statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.html')) out.push(path.relative(site, p).split(path.sep).join('/'));
    }
  })(site);
  return out;
}

// A page that loads with no error of any kind; returns it.
async function visit(context, url, problems) {
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`${url}: console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`${url}: page error: ${e}`));
  page.on('requestfailed', (r) => problems.push(`${url}: request failed: ${r.url()}`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${url}: ${r.status()} for ${r.url()}`); });
  page.on('dialog', (d) => { problems.push(`${url}: a dialog opened: ${d.message()}`); d.dismiss(); });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));
  });
  const res = await page.goto(url);
  if (!res || res.status() !== 200) problems.push(`${url}: status ${res && res.status()}`);
  return page;
}

// What sticks out of its column on `page`: the document wider than the window, or (`tables`) a table that scrolls
// inside itself (the site's wide tables are display: block with overflow-x: auto), each named with its excess in px.
async function overflows(page, tables) {
  return page.evaluate((tables) => {
    const out = [];
    const doc = document.documentElement.scrollWidth - window.innerWidth;
    if (doc > 1) out.push(`the page is ${doc} px wider than the window`);
    if (tables)
      for (const t of document.querySelectorAll('table')) {
        const over = t.scrollWidth - t.clientWidth;
        if (over > 1) out.push(`table ${t.id || t.getAttribute('data-pair') || t.className} is ${over} px wider than its column`);
      }
    return out;
  }, tables);
}

// A screenshot of a page or an element into ARTIFACT_DIR and docs/screenshots/.
async function shoot(target, name, options) {
  const file = path.join(artifacts, name);
  await target.screenshot({ ...options, path: file });
  fs.copyFileSync(file, path.join(source, 'docs/screenshots', name));
}

async function mainSite(browser, work) {
  const site = path.join(work, 'site');
  run(['build', '-o', site]);
  const board = JSON.parse(run(['build', '--json']));
  // The published board the site carries: the same, with each model's predicted starting points (build -o adds them).
  const published = JSON.parse(fs.readFileSync(path.join(site, 'data/leaderboard.json'), 'utf8'));
  const { server, base } = await startServer(site);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: false });
  const problems = [];
  const pages = htmlPages(site);
  const byId = new Map();
  for (const p of board.pairs) for (const e of p.ranked) byId.set(e.id, { pair: p, entry: e });
  let checked = 0;

  // Every page loads cleanly.
  for (const rel of pages) await (await visit(context, base + rel, problems)).close();

  // Index: by default (JavaScript on) the best verified recipe of each pair; every number as build --json has it.
  let page = await visit(context, base + 'index.html', problems);
  const shownRows = (pg) => pg.$$eval('#index-table tbody tr[data-recipe]', (trs) => trs.filter((tr) => !tr.hidden).map((tr) => tr.getAttribute('data-recipe')));
  // The best of each pair, and after it the recipes within noise of it (95% intervals overlapping), marked ≈ best.
  const overlap = (a, b) => a[0] <= (b[1] === null ? Infinity : b[1]) && b[0] <= (a[1] === null ? Infinity : a[1]);
  const bestIds = [], nearIds = [];
  for (const p of board.pairs) {
    const verified = p.ranked.filter((e) => e.verified);
    if (!verified.length) continue;
    bestIds.push(verified[0].id);
    for (const e of verified.slice(1))
      if (overlap(e.tokens_per_s_per_gpu_interval, verified[0].tokens_per_s_per_gpu_interval)) bestIds.push(e.id), nearIds.push(e.id);
  }
  assert.deepStrictEqual(await shownRows(page), bestIds, 'index: the best verified recipe of each pair and those within noise of it');
  assert.ok(nearIds.length > 0, 'the bundled registry has a recipe within noise of its pair\'s best (tulu3-mbs16)');
  const marked = await page.$$eval('#index-table tbody tr[data-recipe]', (trs) => trs.filter((tr) => !tr.hidden && getComputedStyle(tr.querySelector('.near-best')).display !== 'none').map((tr) => tr.getAttribute('data-recipe')));
  assert.deepStrictEqual(marked, nearIds, 'index: ≈ best marks exactly the recipes within noise of the best');
  for (const id of bestIds)
    checked += await checkFields(page, `#index-table tbody tr[data-recipe="${id}"]`, byId.get(id).entry, 'index ' + id);
  assert.match(await page.$eval('footer', (f) => f.textContent), /^Built \d{4}-\d\d-\d\d \d\d:\d\d UTC by /, 'every page says when it was built');
  assert.ok(await page.$('#changes li'), 'index: the changelog has the first build');
  await shoot(page, 'index.png', { fullPage: true });
  assert.deepStrictEqual(await overflows(page, true), [], 'index at 1,280 px: every table fits its column');
  await page.close();
  // The filters, kept in the URL: every recipe of a GPU count, standard workload only (an empty state), a model.
  const allVerified = board.pairs.flatMap((p) => p.ranked.filter((e) => e.verified));
  page = await visit(context, base + `index.html?all=1&gpus=${allVerified[0].gpus}&framework=${allVerified[0].framework}`, problems);
  assert.deepStrictEqual(await shownRows(page), allVerified.filter((e) => e.gpus === allVerified[0].gpus && e.framework === allVerified[0].framework).map((e) => e.id), 'index: every recipe of the filter');
  assert.strictEqual(await page.$eval('input[name=all]', (c) => c.checked), true);
  await page.check('input[name=standard]');
  assert.ok(page.url().includes('standard=1'), 'the standard-workload filter is written into the URL: ' + page.url());
  const standard = allVerified.filter((e) => board.pairs.find((p) => p.ranked.includes(e)).workload.standard);
  assert.deepStrictEqual(await shownRows(page), standard.filter((e) => e.gpus === allVerified[0].gpus && e.framework === allVerified[0].framework).map((e) => e.id));
  const model = board.pairs[0].model;
  await page.selectOption('select[name=model]', model);
  if (standard.length === 0) {
    const empty = await page.$eval(`tr[data-empty-model="${model}"]`, (tr) => ({ hidden: tr.hidden, text: tr.textContent }));
    assert.strictEqual(empty.hidden, false, 'index: the empty state of a model with no standard-workload recipe shows');
    assert.match(empty.text, /no verified recipe on the standard workload yet/);
    await page.screenshot({ path: path.join(artifacts, 'index-empty.png'), fullPage: true });
  }
  await page.close();

  // Model pages: ranked tables in rank order with every number; the GPU-type comparison.
  for (const model of Object.keys(board.models)) {
    page = await visit(context, base + `models/${model}.html`, problems);
    for (const p of board.pairs.filter((x) => x.model === model)) {
      const anchor = `pair:${p.gpu}:${p.workload.key}`;
      const ids = await page.$$eval(`table[data-pair="${anchor}"] tbody tr[data-recipe]`, (trs) => trs.map((tr) => tr.getAttribute('data-recipe')));
      assert.deepStrictEqual(ids, p.ranked.map((e) => e.id), `${model}: ranking of ${anchor}`);
      for (const [i, e] of p.ranked.entries())
        checked += await checkFields(page, `table[data-pair="${anchor}"] tbody tr[data-recipe]:nth-child(${i + 1})`, e, `${model} ${e.id}`);
    }
    const n = await page.$eval('[data-field="active_params"]', (e) => e.getAttribute('data-value'));
    assert.strictEqual(Number(n), board.models[model].active_params, `${model}: N`);
    const singles = await page.$$eval('#gpu-comparison p.single', (ps) => ps.map((x) => x.textContent));
    const gpuTypes = new Set(board.pairs.filter((x) => x.model === model && x.ranked.some((e) => e.verified)).map((x) => x.gpu));
    if (gpuTypes.size === 1) assert.ok(singles.length >= 1, `${model}: one GPU type must say so instead of a comparison chart`);
    // Starting points: predictions, in their own section and tables, never in a ranked table; a model with no verified
    // recipe says so above them; each row's tune command and flags are the published board's (whose every command
    // tests/cli/starting_points_cli_test.cpp parses with the project's own reader and argument parser).
    const points = published.models[model].starting_points;
    const start = await page.$$eval('section.starting-points table.predicted tbody tr', (trs) => trs.map((tr) => ({
      gpus: Number(tr.getAttribute('data-gpus')), fits: tr.getAttribute('data-fits') === '1',
      tune: (tr.querySelector('code.tune-command') || { textContent: null }).textContent,
      args: (tr.querySelector('code.megatron-args') || { textContent: null }).textContent })));
    assert.deepStrictEqual(start.map((r) => [r.gpus, r.fits]), points.map((sp) => [sp.gpus, sp.fits]), `${model}: a starting point per GPU type and count`);
    assert.deepStrictEqual(start.map((r) => r.tune), points.map((sp) => sp.fits ? sp.tune_command : null), `${model}: the tune commands`);
    assert.deepStrictEqual(start.map((r) => r.args), points.map((sp) => sp.fits ? sp.megatron_args : null), `${model}: the layouts' flags`);
    // The page's tune commands go to openrecipes itself (plain words, as tests/cli/starting_points_cli_test.cpp checks
    // with the project's command reader): its parser takes every option, on one node and on several, and tune stops
    // only at the recipe folder the contributor has yet to write.
    const tunes = start.filter((r) => r.tune).map((r) => r.tune);
    for (const cmd of new Set([tunes[0], tunes[tunes.length - 1]].filter((c) => c))) {
      const words = cmd.split(' ');
      assert.strictEqual(words[0], 'openrecipes', cmd);
      const r = childProcess.spawnSync(binary, words.slice(1), { encoding: 'utf8', env, cwd: work });
      assert.strictEqual(r.status, 2, `${cmd}: ${r.stderr}`);
      assert.strictEqual(r.stderr, `openrecipes: error: ${words[2]}/recipe.yaml: file not found (fix: check the path)\n`, cmd);
    }
    assert.strictEqual(await page.$$eval('table.ranked .predicted-row, table.ranked .tag.predicted, table.ranked code.tune-command', (x) => x.length), 0, `${model}: a prediction in a ranked table`);
    assert.strictEqual(await page.$$eval('section.starting-points table.ranked, section.starting-points tr[data-recipe]', (x) => x.length), 0, `${model}: a ranked row among the predictions`);
    const hasVerified = board.pairs.some((p) => p.model === model && p.ranked.some((e) => e.verified));
    assert.strictEqual(await page.$('p.no-verified') !== null, !hasVerified, `${model}: "no verified recipe yet" exactly when it has none`);
    // Each recipe of a pair that is not verified is named with its reasons (the published site gives it no page).
    for (const p of board.pairs.filter((x) => x.model === model))
      for (const e of p.unranked.concat(p.ranked.filter((x) => !x.verified))) {
        const shown = await page.$$eval(`[id="pair:${p.gpu}:${p.workload.key}-unranked"] li[data-recipe="${e.id}"] ul.reasons > li`, (lis) => lis.map((li) => li.textContent));
        assert.deepStrictEqual(shown, e.reasons.map((r) => `${r.stage}: ${r.message}` + (r.fix ? ` Fix: ${r.fix}` : '')), `${model}: ${e.id}'s reasons on its model page`);
      }
    assert.deepStrictEqual(await overflows(page, true), [], `${model} at 1,280 px: every table fits its column`);
    if (model === 'qwen3-0.6b') await shoot(page, 'model.png', { fullPage: true });
    if (model === 'llama-3.1-70b') await shoot(page, 'model-dense-llama-3.1-70b.png', { fullPage: true });
    if (model === 'qwen3-30b-a3b') await shoot(page, 'model-moe-qwen3-30b-a3b.png', { fullPage: true });
    if (model === 'deepseek-v3') await shoot(page, 'model-mla-deepseek-v3.png', { fullPage: true });
    await page.close();
  }
  // The index: predictions only in the models table, marked; its rows follow the model and GPU type filters.
  page = await visit(context, base + 'index.html', problems);
  assert.strictEqual(await page.$$eval('#index-table .tag.predicted', (x) => x.length), 0, 'index: a prediction among the ranked recipes');
  const modelRows = () => page.$$eval('#models-table tbody tr[data-model]', (trs) => trs.filter((tr) => !tr.hidden).map((tr) => [tr.getAttribute('data-model'), tr.getAttribute('data-gpu'), tr.getAttribute('data-kind')]));
  const everyRow = await modelRows();
  for (const [id, m] of Object.entries(published.models))
    for (const gpu of new Set(m.starting_points.map((sp) => sp.gpu))) {
      const verified = board.pairs.some((p) => p.model === id && p.gpu === gpu && p.ranked.some((e) => e.verified));
      assert.ok(everyRow.some((r) => r[0] === id && r[1] === gpu && r[2] === (verified ? 'verified' : 'predicted')), `index: ${id} on ${gpu}`);
    }
  await page.selectOption('select[name=model]', 'deepseek-v3');
  await page.selectOption('select[name=gpu]', 'H100');
  assert.deepStrictEqual(await modelRows(), [['deepseek-v3', 'H100', 'predicted']], 'index: the filters pick the models table\'s rows');
  await page.close();

  // Recipe pages: each number of each ranked recipe.
  for (const [id, { entry }] of byId) {
    page = await visit(context, base + `recipes/${id}.html`, problems);
    checked += await checkFields(page, 'section#numbers', entry, id);
    checked += await checkFields(page, 'section#convergence', entry, id);
    // The Reproduce box: the recipe.yaml it shows is the registry's, character for character (its link unfolds it),
    // and the run line names its folder.
    const rep = await page.$eval('section#reproduce', (s) => ({ href: s.querySelector('a').getAttribute('href'), run: s.querySelector('pre.run-line').textContent }));
    assert.strictEqual(rep.href, '#recipe-yaml', `${id}: the box links its recipe.yaml`);
    assert.strictEqual(await page.$eval('details#recipe-yaml', (d) => d.open), false, `${id}: recipe.yaml folded`);
    await page.click('section#reproduce a[href="#recipe-yaml"]');
    assert.strictEqual(await page.$eval('details#recipe-yaml', (d) => d.open), true, `${id}: its link unfolds recipe.yaml`);
    // Folded again by its reader, the same link (the hash already #recipe-yaml) unfolds it again.
    await page.click('details#recipe-yaml > summary');
    assert.strictEqual(await page.$eval('details#recipe-yaml', (d) => d.open), false, `${id}: recipe.yaml folded by its summary`);
    await page.click('section#reproduce a[href="#recipe-yaml"]');
    assert.strictEqual(await page.$eval('details#recipe-yaml', (d) => d.open), true, `${id}: its link unfolds recipe.yaml a second time`);
    assert.strictEqual(await page.$eval('details#recipe-yaml pre', (p) => p.textContent), fs.readFileSync(path.join(source, 'registry/recipes', id, 'recipe.yaml'), 'utf8'), `${id}: the recipe.yaml shown is the registry's`);
    // One flag a line, continued with " \\" (as a shell reads it): joined, the run line the board gives.
    assert.strictEqual(rep.run.replace(/ \\\n {2}/g, ' '), entry.reproduce.run, `${id}: run line ${rep.run}`);
    assert.ok(rep.run.startsWith(`openrecipes run registry/recipes/${id} \\\n  --launcher `), `${id}: run line ${rep.run}`);
    assert.deepStrictEqual(await overflows(page, true), [], `${id} at 1,280 px: every table and box fits its column`);
    if (entry.reproduce.rows_sha256) assert.ok((await page.$eval('section#reproduce', (s) => s.textContent)).includes(entry.reproduce.rows_sha256), `${id}: the full rows_sha256`);
    const rank = await page.$eval('[data-field="rank"]', (e) => e.textContent.trim());
    assert.strictEqual(rank, String(entry.rank), id + ': rank');
    const charts = await page.$$eval('svg.chart', (s) => s.length);
    assert.strictEqual(charts, entry.series.arm || entry.series.reference_arm ? 2 : 1, id + ': charts');
    // Every evidence link serves the file byte for byte.
    for (const f of entry.evidence) {
      const res = await page.request.get(base + `recipes/${id}/${f.file}`);
      assert.strictEqual(res.status(), 200, `${id}: evidence ${f.file}`);
      const want = fs.readFileSync(path.join(source, 'registry/recipes', id, f.file));
      assert.ok(Buffer.compare(await res.body(), want) === 0, `${id}: evidence ${f.file} is not the registry's file`);
    }
    // A tuned recipe's search: one row per trial in the board's order, the winner's row marked, the file linked.
    const search = await page.$$eval('section#search table.search tbody tr', (trs) => trs.map((tr) => ({ cells: [...tr.cells].map((c) => c.textContent), best: tr.classList.contains('best') })));
    if (entry.search) {
      assert.deepStrictEqual(search.map((r) => r.cells[0]), entry.search.trials.map((t) => String(t.trial)), `${id}: the search's trials`);
      assert.deepStrictEqual(search.map((r) => r.cells[1]), entry.search.trials.map((t) => t.knobs), `${id}: each trial's change`);
      assert.deepStrictEqual(search.map((r) => r.best), entry.search.trials.map((t) => t.best), `${id}: the winner's row`);
      assert.ok(search.every((r, i) => r.cells[7].startsWith(entry.search.trials[i].outcome)), `${id}: outcomes`);
      // Each trial's step time, the step-time model's prediction (– in a search recorded before it) beside its mean.
      const seconds = (v) => (typeof v === 'number' ? String(Number(v.toPrecision(3))) : '–');
      assert.deepStrictEqual(search.map((r) => r.cells[4]), entry.search.trials.map((t) => `${seconds(t.predicted_step_time_s)} / ${seconds(t.mean_step_time_s)}`), `${id}: each trial's predicted and measured step`);
      const link = await page.$eval('section#search p a', (a) => a.getAttribute('href'));
      assert.ok(link.endsWith(`recipes/${id}/${entry.search.file}`), `${id}: the search's link ${link}`);
      // Each trial's log link serves the registry's file, the one the build recomputed the row from.
      const logs = await page.$$eval('section#search table.search tbody tr', (trs) => trs.map((tr) => { const a = tr.querySelector('td:last-child a'); return a ? a.getAttribute('href') : null; }));
      for (const [i, t] of entry.search.trials.entries()) {
        assert.strictEqual(logs[i] !== null, t.log !== null, `${id}: trial ${t.trial}'s log link`);
        if (!t.log) continue;
        const res = await page.request.get(new URL(logs[i], base + `recipes/${id}.html`).href);
        assert.strictEqual(res.status(), 200, `${id}: trial log ${t.log}`);
        assert.ok(Buffer.compare(await res.body(), fs.readFileSync(path.join(source, 'registry/recipes', id, t.log))) === 0, `${id}: trial log ${t.log} is the registry's`);
      }
      await shoot(await page.$('section#search'), 'search.png', {});
    } else {
      assert.strictEqual(search.length, 0, `${id}: no search section without a search`);
    }
    if (id === 'qwen3-0.6b/H200/mbs2') await shoot(page, 'recipe.png', { fullPage: true });
    if (id === 'qwen3-0.6b/H200/tulu3-ref') await shoot(page, 'recipe-reproduce.png', { fullPage: true });
    if (id === 'qwen3-0.6b/H200/tulu3-ref') await shoot(await page.$('section#reproduce'), 'reproduce.png', {});
    await page.close();
  }

  // A phone-sized window (420 px): no page is wider than the window (a wide table scrolls inside itself, a command
  // scrolls inside its box, never breaking a flag); screenshots of the index, a model page and a recipe page with its
  // Reproduce box.
  const narrow = await browser.newContext({ viewport: { width: 420, height: 900 } });
  for (const [rel, shot] of [['index.html', 'index-420.png'], ['models/qwen3-0.6b.html', 'model-420.png'],
    ['recipes/qwen3-0.6b/H200/tulu3-ref.html', 'recipe-420.png'], ['models/deepseek-v3.html', null]]) {
    page = await visit(narrow, base + rel, problems);
    assert.deepStrictEqual(await overflows(page, false), [], `${rel} at 420 px`);
    if (shot) await shoot(page, shot, { fullPage: true });
    if (rel.startsWith('recipes/')) await shoot(await page.$('section#reproduce'), 'reproduce-420.png', {});
    await page.close();
  }
  await narrow.close();

  // Rates: each GPU type's rate and peak.
  page = await visit(context, base + 'rates.html', problems);
  for (const [key, g] of Object.entries(board.gpus))
    checked += await checkFields(page, `tr[data-gpu="${key}"]`, g, 'rates ' + key);
  await page.close();

  // Sorting by clicking a header (the first pair of the first model with two or more ranked recipes).
  const pair = board.pairs.find((p) => p.ranked.length >= 2);
  const anchor = `pair:${pair.gpu}:${pair.workload.key}`;
  page = await visit(context, base + `models/${pair.model}.html`, problems);
  const table = `table[data-pair="${anchor}"]`;
  const order = () => page.$$eval(`${table} tbody tr[data-recipe]`, (trs) => trs.map((tr) => tr.getAttribute('data-recipe')));
  const byScore = [...pair.ranked].sort((a, b) => a.tokens_per_s_per_gpu - b.tokens_per_s_per_gpu).map((e) => e.id);
  await page.click(`${table} thead th:nth-child(3) button`);
  assert.deepStrictEqual(await order(), byScore, 'sorted by tokens/s/GPU ascending');
  assert.strictEqual(await page.$eval(`${table} thead th:nth-child(3)`, (th) => th.getAttribute('aria-sort')), 'ascending');
  await page.click(`${table} thead th:nth-child(3) button`);
  assert.deepStrictEqual(await order(), [...byScore].reverse(), 'sorted by tokens/s/GPU descending');
  const byCv = [...pair.ranked].sort((a, b) => a.cv - b.cv).map((e) => e.id);
  await page.click(`${table} thead th:nth-child(4) button`);
  assert.deepStrictEqual(await order(), byCv, 'sorted by CV ascending');
  await page.close();

  // Filters from the URL: they apply on load, set the controls, and a change keeps the URL in step.
  const fw = pair.ranked[0].framework;
  const visible = (pg) => pg.$$eval(`${table} tbody tr[data-recipe]`, (trs) => trs.filter((tr) => !tr.hidden).map((tr) => tr.getAttribute('data-recipe')));
  page = await visit(context, base + `models/${pair.model}.html?framework=${encodeURIComponent(fw)}&verified=1&gpus=${pair.ranked[0].gpus}`, problems);
  assert.deepStrictEqual(await visible(page), pair.ranked.filter((e) => e.framework === fw && e.verified && e.gpus === pair.ranked[0].gpus).map((e) => e.id));
  assert.strictEqual(await page.$eval('select[name=framework]', (s) => s.value), fw);
  assert.strictEqual(await page.$eval('input[name=verified]', (c) => c.checked), true);
  await page.close();
  page = await visit(context, base + `models/${pair.model}.html?gpus=99999`, problems);
  assert.deepStrictEqual(await visible(page), [], 'a GPU count no recipe has shows no recipe');
  assert.strictEqual(await page.$eval(`${table} tbody tr.empty`, (tr) => tr.hidden), false, 'and says so in the table');
  assert.deepStrictEqual(await page.$$eval('table.compare tbody tr[data-recipe]', (trs) => trs.filter((tr) => !tr.hidden).length), 0, 'the GPU-type comparison follows the filter');
  assert.strictEqual(await page.$eval('select[name=gpus]', (s) => s.value), '99999');
  await page.selectOption('select[name=gpus]', String(pair.ranked[0].gpus));
  assert.ok(page.url().includes(`gpus=${pair.ranked[0].gpus}`), 'a changed filter is written into the URL: ' + page.url());
  const shared = page.url();
  await page.close();
  page = await visit(context, shared, problems);
  assert.deepStrictEqual(await visible(page), pair.ranked.filter((e) => e.gpus === pair.ranked[0].gpus).map((e) => e.id), 'the shared URL shows the same view');
  assert.match(await page.$eval('#filter-status', (o) => o.textContent), /^showing \d+ of \d+ recipes$/);
  await page.close();

  // JavaScript off: the ranked tables are there, in rank order.
  const noJs = await browser.newContext({ javaScriptEnabled: false });
  page = await noJs.newPage();
  await page.goto(base + `models/${pair.model}.html?framework=none`);
  assert.deepStrictEqual(await order(), pair.ranked.map((e) => e.id), 'without JavaScript: every recipe, in rank order');
  await noJs.close();

  await context.close();
  const stopped = await stopServer(server);
  assert.strictEqual(stopped.code, 0, 'serve stops cleanly on SIGTERM (exit 0)');
  assert.deepStrictEqual(problems, [], 'pages loaded with problems');
  assert.ok(checked > 20, 'numbers checked: ' + checked);
  console.log(`site_test: ${pages.length} pages, ${checked} numbers equal to build --json, sorting, filters, no-JS: ok`);
}

// The hostile registry: the bundled one with a stranger's fields (each within its field's length limit, so the
// recipe still loads and its fields reach the pages), a javascript: author link and a 1 MB command (both refused
// at load: the recipe is listed as unreadable, with its reason).
const HOSTILE = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>{{title}}\u202Eevil\u2066';
const SHOWN = HOSTILE.replace('\u202E', '\\u202E').replace('\u2066', '\\u2066');  // bidi controls written visibly
function hostileRegistry(work) {
  const reg = path.join(work, 'hostile-registry');
  fs.cpSync(path.join(source, 'registry'), reg, { recursive: true });
  const edit = (rel, from, to) => {
    const p = path.join(reg, rel);
    const s = fs.readFileSync(p, 'utf8');
    assert.ok(s.includes(from), `${rel} has no '${from}'`);
    fs.writeFileSync(p, s.replace(from, to));
  };
  const yamlString = JSON.stringify(HOSTILE);  // a JSON string is a YAML double-quoted scalar
  const recipes = 'recipes/qwen3-0.6b/H200/';
  fs.cpSync(path.join(reg, recipes + 'mbs2'), path.join(reg, recipes + 'big'), { recursive: true });
  edit(recipes + 'big/recipe.yaml', 'id: mbs2', 'id: big');
  edit(recipes + 'big/recipe.yaml', 'command: |\n', 'command: |\n  ' + 'x'.repeat(1 << 20) + '\n');
  edit(recipes + 'mbs2/recipe.yaml', 'author:\n  github: openrecipes', `author:\n  name: ${yamlString}\n  link: https://example.com/x`);
  edit(recipes + 'mbs2/recipe.yaml', '    --eval-iters 0 --eval-interval 100000\n', `    --eval-iters 0 --eval-interval 100000\n  # ${HOSTILE}\n`);
  // A "patch" that is an HTML page with a script: the site must keep it as inert text.
  const evil = '<!DOCTYPE html><script>alert(5)</script><img src=x onerror=alert(6)>';
  fs.mkdirSync(path.join(reg, recipes + 'mbs2/patches'));
  fs.writeFileSync(path.join(reg, recipes + 'mbs2/patches/evil.html'), evil);
  const sha = require('crypto').createHash('sha256').update(evil).digest('hex');
  fs.appendFileSync(path.join(reg, recipes + 'mbs2/recipe.yaml'), `patches: [{path: patches/evil.html, sha256: ${sha}}]\n`);
  edit(recipes + 'lr10/recipe.yaml', 'author:\n  github: openrecipes', 'author:\n  name: tool\n  link: "javascript:alert(4)"');
  edit('models/qwen3-0.6b.yaml', 'name: Qwen3-0.6B', `name: ${yamlString}`);
  const modelFile = path.join(reg, 'models/qwen3-0.6b.yaml');
  const model = fs.readFileSync(modelFile, 'utf8');
  assert.match(model, /^notes: >-\n(  .*\n)+/m);
  fs.writeFileSync(modelFile, model.replace(/^notes: >-\n(  .*\n)+/m, `notes: ${yamlString}\n`));
  return reg;
}

// The tags and attributes the templates and charts write; a hostile field must not add any other.
const TAGS = new Set('html head meta title link script body header nav main footer a abbr h1 h2 h3 p span strong ul li table thead tbody tr th td dl dt dd section form fieldset legend label select option input button output details summary figure figcaption pre code svg line text rect polyline polygon circle g sub sup div br q'.split(' '));
async function hostileSite(browser, work) {
  const reg = hostileRegistry(work);
  const site = path.join(work, 'hostile-site');
  run(['build', reg, '--include-unverified', '-o', site]);
  const { server, base } = await startServer(site);
  const context = await browser.newContext();
  const problems = [];
  const texts = {};
  for (const rel of htmlPages(site)) {
    const page = await visit(context, base + rel, problems);
    const bad = await page.evaluate((allowed) => {
      const out = [];
      for (const el of document.querySelectorAll('*')) {
        const tag = el.tagName.toLowerCase();
        if (!allowed.includes(tag)) out.push('element ' + tag);
        if (tag === 'script' && !/assets\/site\.js$/.test(el.getAttribute('src') || '')) out.push('script ' + el.outerHTML);
        for (const a of el.attributes) {
          if (/^on/i.test(a.name)) out.push('handler ' + a.name);
          if ((a.name === 'href' || a.name === 'src') && /^\s*javascript:/i.test(a.value)) out.push('javascript link ' + a.value);
        }
      }
      return out;
    }, [...TAGS]);
    assert.deepStrictEqual(bad, [], `${rel}: the hostile fields made markup`);
    texts[rel] = await page.evaluate(() => document.body.innerText);
    assert.ok(!texts[rel].includes('\u202E') && !texts[rel].includes('\u2066'), `${rel}: a raw bidi control is shown`);
    assert.ok(fs.statSync(path.join(site, rel)).size < 1 << 20, `${rel}: the 1 MB command reached a page`);
    await page.close();
  }
  // The HTML "patch" is copied as evil.html.txt, linked as such, and opens as plain text: no dialog, no element.
  assert.ok(!fs.existsSync(path.join(site, 'recipes/qwen3-0.6b/H200/mbs2/patches/evil.html')));
  const textProblems = [];  // a plain-text document has no favicon link, so chromium asks for /favicon.ico
  const patchPage = await visit(context, base + 'recipes/qwen3-0.6b/H200/mbs2/patches/evil.html.txt', textProblems);
  assert.deepStrictEqual(textProblems.filter((p) => !/favicon\.ico|status of 404/.test(p)), []);
  assert.strictEqual(await patchPage.evaluate(() => document.querySelectorAll('img, script').length), 0);
  assert.ok((await patchPage.evaluate(() => document.body.innerText)).includes('alert(5)'));
  await patchPage.close();
  assert.ok(fs.readFileSync(path.join(site, 'recipes/qwen3-0.6b/H200/mbs2.html'), 'utf8').includes('href="../../../recipes/qwen3-0.6b/H200/mbs2/patches/evil.html.txt"'));
  await context.close();
  await stopServer(server);
  assert.deepStrictEqual(problems, [], 'hostile pages loaded with problems');
  const count = (s, sub) => s.split(sub).length - 1;
  assert.ok(count(texts['index.html'], SHOWN) >= 1, 'index: the hostile model name shows as text');
  assert.ok(count(texts['models/qwen3-0.6b.html'], SHOWN) >= 3, 'model page: name, notes and author show as text');
  assert.ok(count(texts['recipes/qwen3-0.6b/H200/mbs2.html'], SHOWN) >= 2, 'recipe page: author and command show as text');
  assert.match(texts['index.html'], /qwen3-0\.6b\/H200\/lr10[\s\S]*https:\/\/ URL/, 'index: the javascript: link makes lr10 unreadable, with the reason');
  assert.match(texts['index.html'], /qwen3-0\.6b\/H200\/big[\s\S]*over the limit/, 'index: the 1 MB command makes big unreadable, with the reason');
  // The exports hold the field as data: JSON the exact string; CSV one quoted cell, inner quotes doubled.
  const recipes = JSON.parse(fs.readFileSync(path.join(site, 'data/recipes.json'), 'utf8')).recipes;
  assert.strictEqual(recipes.find((r) => r.id === 'qwen3-0.6b/H200/mbs2').author.name, HOSTILE);
  const csv = fs.readFileSync(path.join(site, 'data/recipes.csv'), 'utf8');
  assert.ok(csv.includes('"' + HOSTILE.replace(/"/g, '""') + '"'), 'recipes.csv: the author as one quoted cell');
  console.log(`site_test: hostile fields render as inert text (${Object.keys(texts).length} pages, JSON, CSV): ok`);
}

(async () => {
  fs.mkdirSync(artifacts, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'openrecipes-site-test-'));
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    await mainSite(browser, work);
    await hostileSite(browser, work);
  } finally {
    await browser.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
})().catch((e) => fail(e.stack || String(e)));
