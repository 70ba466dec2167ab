// Benchmark of the chat pane in Chromium (`/usr/bin/chromium`, nothing downloaded), on the built
// app over the fake backend (chat-bench/), with a performance trace:
//  - a ~5,000-token answer streamed at 200 tokens/s in 30 ms batches (the engine's coalescing):
//    the longest main-thread task (trace `RunTask` events) and the lag from each batch's
//    arrival to the frame that painted it (the last token's lag is reported on its own);
//  - four models answering side by side, each streaming at 200 tokens/s: the same figures;
//  - opening a 2,000-message conversation: from the route change to the first frame that shows
//    its last messages;
//  - loading the app page to its first painted conversation list, reloaded in one page and in a
//    fresh browser context each time (no caches).
// Medians over several runs; prints figures, asserts nothing. Run: npm run bench:chat
// (BENCH_BREAKDOWN=1 also prints what each traced run's longest task spent its time on).
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { servedBuild } from './served-build.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const OPENS = Number(process.env.BENCH_OPENS ?? 5);
const TURNS = Number(process.env.BENCH_TURNS ?? 300);
const served = await servedBuild('chat-bench');
const base = served.url;

/** The streamed answer: the Markdown benchmark's mix (prose, code, tables, task lists, math). */
function answer() {
  const para =
    'Streaming **Markdown** stays smooth: `inline code`, a [link](https://example.com/docs), ' +
    'some *emphasis* and math such as $a^2 + b^2 = c^2$ or $\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$. ';
  const parts = [];
  for (let i = 0; parts.join('').length < 20000; i++) {
    parts.push(`## Step ${i + 1}\n\n${para.repeat(3)}\n\n`);
    parts.push('```rust\nfn area(r: f64) -> f64 {\n    // the area of a circle\n    std::f64::consts::PI * r * r\n}\n```\n\n');
    parts.push('| tool | calls | ms |\n|---|--:|--:|\n| echo | 3 | 12 |\n| fetch | 1 | 240 |\n\n');
    parts.push('- [x] read the file\n- [ ] write the summary\n\n$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\n');
  }
  return parts.join('');
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => `${x.toFixed(1)} ms`;

/** The main-thread tasks of the renderer (trace `RunTask` events): the longest by wall-clock
 * time, the longest by the thread's CPU time (on a loaded machine a task's wall time includes
 * waiting for a core), and how many took over 50 ms of wall-clock time. */
function tasks(trace) {
  const events = JSON.parse(trace.toString('utf8')).traceEvents;
  const main = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const run = events.filter((e) => e.name === 'RunTask' && e.ph === 'X' && main.has(`${e.pid}:${e.tid}`));
  if (process.env.BENCH_BREAKDOWN) {
    const longest = run.reduce((a, b) => (b.dur > (a?.dur ?? 0) ? b : a), null);
    if (longest) {
      const inside = events.filter((e) => e.ph === 'X' && `${e.pid}:${e.tid}` === `${longest.pid}:${longest.tid}` && e.ts >= longest.ts && e.ts + (e.dur ?? 0) <= longest.ts + longest.dur && e !== longest);
      const by = new Map();
      for (const e of inside) by.set(e.name, (by.get(e.name) ?? 0) + e.dur / 1000);
      console.log('  longest task, what it spent (ms):', (longest.dur / 1000).toFixed(1), JSON.stringify([...by.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => [k, +v.toFixed(1)])));
    }
  }
  return {
    wall: Math.max(0, ...run.map((e) => e.dur / 1000)),
    cpu: Math.max(0, ...run.map((e) => (e.tdur ?? 0) / 1000)),
    over50: run.filter((e) => e.dur > 50_000).length,
  };
}

/** In the page: streams `tokens` at `rate` tokens/s in batches every `every` ms and times each
 * batch from its arrival to the end of the frame that first changed the DOM after it. */
async function streamInPage({ tokens, rate, every }) {
  const list = document.querySelector('[data-testid="messages"]');
  const arrived = [];
  const painted = [];
  let pending = [];
  const observer = new MutationObserver(() => {
    const covered = pending;
    pending = [];
    if (covered.length === 0) return;
    // Scheduled from the mutation (inside the frame's rendering), run once the frame is painted.
    setTimeout(() => covered.forEach((i) => (painted[i] = performance.now())));
  });
  observer.observe(list, { subtree: true, childList: true, characterData: true });
  const conversation = location.hash.split('/').pop();
  window.chatBench.deliver([
    { type: 'started', conversation_id: conversation, user_message_id: 'bench-user' },
    { type: 'message_started', message_id: 'bench-answer', model: 'fake-model', step: 1 },
  ]);
  await new Promise((r) => setTimeout(r, 200));
  const perBatch = Math.round((rate * every) / 1000);
  const started = performance.now();
  for (let b = 0; b * perBatch < tokens.length; b++) {
    const due = started + b * every;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const text = tokens.slice(b * perBatch, (b + 1) * perBatch).join('');
    arrived[b] = performance.now();
    pending.push(b);
    window.chatBench.deliver([{ type: 'text_delta', message_id: 'bench-answer', text }]);
  }
  await new Promise((r) => setTimeout(r, 500));
  observer.disconnect();
  const lags = arrived.map((t, i) => (painted[i] ?? Infinity) - t);
  return { lags };
}

/** In the page: streams `tokens` into each of `lanes` compared models at once (each at `rate`
 * tokens/s in batches every `every` ms, the lanes' batches one after another each time) and
 * times each batch from its arrival to the end of the frame that first changed the DOM after it. */
async function compareInPage({ tokens, rate, every, lanes }) {
  const view = document.querySelector('[data-testid="compare"]');
  const arrived = [];
  const painted = [];
  let pending = [];
  const observer = new MutationObserver(() => {
    const covered = pending;
    pending = [];
    if (covered.length === 0) return;
    setTimeout(() => covered.forEach((i) => (painted[i] = performance.now())));
  });
  observer.observe(view, { subtree: true, childList: true, characterData: true });
  const conversation = location.hash.split('/').pop();
  for (let lane = 0; lane < lanes; lane++) {
    window.chatBench.deliverLane(lane, [
      { type: 'started', conversation_id: conversation, user_message_id: 'bench-user' },
      { type: 'message_started', message_id: `bench-lane-${lane}`, model: `model-${lane}`, step: 1 },
    ]);
  }
  await new Promise((r) => setTimeout(r, 200));
  const perBatch = Math.round((rate * every) / 1000);
  const started = performance.now();
  let n = 0;
  for (let b = 0; b * perBatch < tokens.length; b++) {
    const due = started + b * every;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const text = tokens.slice(b * perBatch, (b + 1) * perBatch).join('');
    for (let lane = 0; lane < lanes; lane++) {
      arrived[n] = performance.now();
      pending.push(n);
      n++;
      window.chatBench.deliverLane(lane, [{ type: 'text_delta', message_id: `bench-lane-${lane}`, text }]);
    }
  }
  await new Promise((r) => setTimeout(r, 500));
  observer.disconnect();
  // The answers end together: their last frame (the final Markdown, the Keep buttons) counts too.
  for (let lane = 0; lane < lanes; lane++) {
    window.chatBench.deliverLane(lane, [{ type: 'finished', reason: 'done', head_id: `bench-lane-${lane}` }]);
  }
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
  const lags = arrived.map((t, i) => (painted[i] ?? Infinity) - t);
  return { lags };
}

/** In the page: switches to the long conversation and times the first frame showing its end. */
async function openInPage({ id, marker }) {
  const started = performance.now();
  location.hash = `#/c/${id}`;
  return await new Promise((resolve) => {
    const check = () => {
      const shown = [...document.querySelectorAll('[data-testid="message-text"]')].some((el) => el.textContent.includes(marker));
      if (!shown) return false;
      observer.disconnect();
      requestAnimationFrame(() => setTimeout(() => resolve({
        ms: performance.now() - started,
        rendered: document.querySelectorAll('[data-testid="message"]').length,
      })));
      return true;
    };
    const observer = new MutationObserver(check);
    observer.observe(document.body, { subtree: true, childList: true });
  });
}

/** In the page: sends `count` messages through the composer (a new conversation every 10),
 * each once the previous turn has finished (the fake backend answers them). */
async function turnsInPage(target) {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const waitFor = async (test, what) => {
    for (let i = 0; i < 2000; i++) {
      if (test()) return;
      await sleep(5);
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  const total = () => Number(document.querySelector('[data-testid="messages"]')?.dataset.total ?? 0);
  window.benchTurns ??= 0;
  while (window.benchTurns < target) {
    if (window.benchTurns % 10 === 0) {
      location.hash = '#/';
      await sleep(20);
    }
    await waitFor(() => document.querySelector('[data-testid="send-button"]') && !document.querySelector('[data-testid="stop-button"]'), 'the composer');
    const box = document.querySelector('[data-testid="composer"]');
    box.value = `Tell me about turn ${window.benchTurns}`;
    box.dispatchEvent(new Event('input', { bubbles: true }));
    await sleep(0);
    const before = total();
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
    await waitFor(() => total() >= before + 2 && !document.querySelector('[data-testid="stop-button"]'), `turn ${window.benchTurns}`);
    window.benchTurns += 1;
  }
}

/** In the page: the live JS heap after a full collection, and the number of DOM nodes. */
async function heapInPage() {
  location.hash = '#/';
  await new Promise((r) => setTimeout(r, 500));
  for (let i = 0; i < 3; i++) {
    window.gc();
    await new Promise((r) => setTimeout(r, 100));
  }
  return { heap: performance.memory.usedJSHeapSize, nodes: document.getElementsByTagName('*').length };
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--js-flags=--expose-gc', '--enable-precise-memory-info'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  const tokens = answer().match(/[\s\S]{1,4}/g);

  // Loading the app page to its first painted conversation list (the mark of lib/perfMarks.ts).
  const loads = [];
  for (let i = 0; i < OPENS; i++) {
    await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    await page.goto(`${base}?load=${i}#/`);
    const mark = await page.waitForFunction(() => performance.getEntriesByName('switchboard:conversations-painted')[0]?.startTime);
    const at = await mark.jsonValue();
    const trace = await browser.stopTracing();
    if (process.env.BENCH_TRACE_DIR) writeFileSync(join(process.env.BENCH_TRACE_DIR, `load-${i}.json`), trace);
    loads.push(at);
  }

  // The same in a fresh browser context each time (no memory or code caches, like a cold start).
  const colds = [];
  for (let i = 0; i < OPENS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const fresh = await context.newPage();
    await fresh.goto(`${base}?cold=${i}#/`);
    const mark = await fresh.waitForFunction(() => performance.getEntriesByName('switchboard:conversations-painted')[0]?.startTime);
    colds.push(await mark.jsonValue());
    await context.close();
  }

  // Opening the long conversation, alternating with an empty one.
  await page.goto(`${base}#/c/fresh-6`);
  await page.getByTestId('composer').waitFor();
  const opens = [];
  for (let i = 0; i < OPENS; i++) {
    await page.evaluate(() => (location.hash = '#/c/fresh-6'));
    await page.waitForTimeout(300);
    await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    const open = await page.evaluate(openInPage, { id: 'long', marker: 'Question 1998' });
    await page.waitForTimeout(300);
    const trace = await browser.stopTracing();
    opens.push({ ...open, ...tasks(trace) });
  }

  // Streaming a 5,000-token answer into a fresh conversation, RUNS times.
  const runs = [];
  for (let run = 1; run <= RUNS; run++) {
    await page.evaluate((id) => (location.hash = `#/c/${id}`), `fresh-${run}`);
    await page.getByTestId('chat-title').filter({ hasText: `Stream ${run}` }).waitFor();
    await page.getByTestId('composer').fill('Explain it in detail');
    await page.getByTestId('composer').press('Enter');
    await page.waitForFunction(() => window.chatBench.hasChannel());
    await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    const result = await page.evaluate(streamInPage, { tokens, rate: 200, every: 30 });
    const trace = await browser.stopTracing();
    if (process.env.BENCH_TRACE_DIR) writeFileSync(join(process.env.BENCH_TRACE_DIR, `stream-${run}.json`), trace);
    runs.push({ ...result, ...tasks(trace) });
  }

  // Four models answering side by side, each streaming the answer at 200 tokens/s.
  const compares = [];
  for (let run = 1; run <= RUNS; run++) {
    await page.evaluate(() => (location.hash = '#/c/fresh-5'));
    await page.getByTestId('chat-title').filter({ hasText: 'Stream 5' }).waitFor();
    if (run === 1) {
      await page.getByTestId('compare-button').click();
      for (const m of ['model-1', 'model-2', 'model-3']) {
        await page.getByTestId('compare-model').fill(m);
        await page.getByTestId('compare-add').click();
      }
      await page.getByTestId('compare-button').click();
    }
    await page.getByTestId('composer').fill('Compare these');
    await page.getByTestId('composer').press('Enter');
    await page.waitForFunction(() => window.chatBench.hasCompare());
    await page.getByTestId('compare').waitFor();
    await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'] });
    const result = await page.evaluate(compareInPage, { tokens: tokens.slice(0, 2000), rate: 200, every: 30, lanes: 4 });
    const trace = await browser.stopTracing();
    compares.push({ ...result, ...tasks(trace) });
    await page.getByTestId('compare-close').click();
  }

  // Many turns through the composer: the UI's live heap after 10 and after TURNS turns.
  const heaps = [];
  if (TURNS > 0) {
    await page.goto(`${base}?turns#/`);
    await page.getByTestId('composer').waitFor();
    await page.evaluate(() => window.chatBench.answerAutomatically());
    for (const target of [10, TURNS]) {
      await page.evaluate(turnsInPage, target);
      heaps.push({ turns: target, ...(await page.evaluate(heapInPage)) });
    }
  }

  const lags = runs.flatMap((r) => r.lags);
  console.log(`load: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (1/5/15 min)`);
  if (runs.length > 0) {
    console.log(`streaming ${tokens.length} tokens at 200 tokens/s (30 ms batches), ${RUNS} runs:`);
    console.log(`  longest main-thread task: median ${ms(median(runs.map((r) => r.wall)))} wall-clock (runs: ${runs.map((r) => ms(r.wall)).join(', ')}), median ${ms(median(runs.map((r) => r.cpu)))} of CPU time (runs: ${runs.map((r) => ms(r.cpu)).join(', ')})`);
    console.log(`  tasks over 50 ms wall-clock per run: median ${median(runs.map((r) => r.over50))}`);
    console.log(`  arrival-to-paint lag: median ${ms(median(lags))}, p95 ${ms(quantile(lags, 0.95))}, worst ${ms(Math.max(...lags))}`);
    console.log(`  last token's lag: median ${ms(median(runs.map((r) => r.lags.at(-1))))}`);
  }
  if (compares.length > 0) {
    const lags = compares.flatMap((r) => r.lags);
    console.log(`four models side by side, 2,000 tokens each at 200 tokens/s (30 ms batches per model), ${compares.length} runs:`);
    console.log(`  longest main-thread task: median ${ms(median(compares.map((r) => r.wall)))} wall-clock (runs: ${compares.map((r) => ms(r.wall)).join(', ')}), median ${ms(median(compares.map((r) => r.cpu)))} of CPU time`);
    console.log(`  tasks over 50 ms wall-clock per run: median ${median(compares.map((r) => r.over50))}`);
    console.log(`  arrival-to-paint lag: median ${ms(median(lags))}, p95 ${ms(quantile(lags, 0.95))}, worst ${ms(Math.max(...lags))}`);
  }
  console.log(`loading the app page to its first painted conversation list: median ${ms(median(loads))} (runs: ${loads.map(ms).join(', ')})`);
  console.log(`  the same in a fresh browser context each time: median ${ms(median(colds))} (runs: ${colds.map(ms).join(', ')})`);
  console.log(`opening a 2,000-message conversation, ${OPENS} runs:`);
  console.log(`  first screen: median ${ms(median(opens.map((o) => o.ms)))} (runs: ${opens.map((o) => ms(o.ms)).join(', ')})`);
  console.log(`  longest task while opening: median ${ms(median(opens.map((o) => o.wall)))} wall-clock, ${ms(median(opens.map((o) => o.cpu)))} of CPU time; messages in the DOM: ${opens[0].rendered}`);
  for (const h of heaps) console.log(`after ${h.turns} turns (10 per conversation, fake backend): live JS heap ${(h.heap / 1048576).toFixed(2)} MB after a full GC, ${h.nodes} DOM nodes`);
} finally {
  await browser.close();
  served.close();
}
