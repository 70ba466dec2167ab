// The windowed conversation list laid out by a real engine (Chromium, `/usr/bin/chromium`):
// the built app over the fake backend with 600 conversations in three groups. The list is
// scrolled to its end (loading every page) and then to positions across it; at each one the
// check fails if more rows are rendered than a viewport and its margins need, if any point of
// the viewport shows blank space instead of a row or a group's heading, if the rendered rows
// are out of order or not one pitch apart, if the keyboard focus is lost while scrolling, or
// if New chat far down the list does not bring its title input into view with the focus.
// Run: npm run test:sidebar-browser
import { chromium } from 'playwright-core';
import { servedBuild } from './served-build.mjs';

const served = await servedBuild('sidebar');

/** In the page: what the list shows at its current scroll position. */
function inspect() {
  const nav = document.querySelector('nav.list');
  const box = nav.getBoundingClientRect();
  const rows = [...nav.querySelectorAll('[data-testid="conversation-row"]')];
  // Blank runs taller than the gap between two groups (14 px): a row's worth of nothing.
  const blank = [];
  let run = null;
  for (let y = box.top + 1; y < box.bottom - 1; y += 3) {
    const hit = document.elementFromPoint(box.left + 40, y);
    const empty = !hit?.closest('[data-testid="conversation-row"], h2, .status, [data-testid="load-more"]');
    if (empty) run ??= y;
    if ((!empty || y + 3 >= box.bottom - 1) && run !== null) {
      if (y - run > 18) blank.push(`${Math.round(run - box.top)}–${Math.round(y - box.top)}`);
      run = null;
    }
  }
  const order = [];
  const pitches = new Set();
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    const n = (row) => Number(row.dataset.id.slice(1));
    if (n(b) <= n(a)) order.push(`${a.dataset.id} before ${b.dataset.id}`);
    if (a.parentElement === b.parentElement) pitches.add(Math.round(b.getBoundingClientRect().top - a.getBoundingClientRect().top));
  }
  return {
    top: nav.scrollTop,
    height: nav.scrollHeight,
    rows: rows.length,
    first: rows[0]?.dataset.id,
    last: rows.at(-1)?.dataset.id,
    blank,
    order,
    pitches: [...pitches],
    focused: document.activeElement?.closest('[data-testid="conversation-row"]')?.dataset.id ?? null,
  };
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const problems = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(served.url);
  await page.waitForSelector('[data-testid="conversation-row"]');
  // Scroll to the end until every page is loaded (the last conversation is rendered).
  for (let i = 0; i < 100; i++) {
    const done = await page.evaluate(() => {
      const nav = document.querySelector('nav.list');
      nav.scrollTop = nav.scrollHeight;
      return !!document.querySelector('[data-id="c599"]');
    });
    if (done) break;
    await page.waitForTimeout(50);
  }
  const end = await page.evaluate(inspect);
  if (end.last !== 'c599') problems.push(`at the end the last row is ${end.last}, not c599`);
  const positions = [0, 0.1, 0.25, 0.5, 0.501, 0.75, 0.9, 1].map((f) => Math.round(f * (end.height - 700)));
  for (const y of positions) {
    const seen = await page.evaluate(async (y) => {
      const nav = document.querySelector('nav.list');
      nav.scrollTop = y;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return null;
    }, y);
    void seen;
    const at = await page.evaluate(inspect);
    const where = `at ${at.top}px`;
    if (at.rows > 80) problems.push(`${where}: ${at.rows} rows rendered`);
    if (at.blank.length > 0) problems.push(`${where}: blank at ${at.blank.join(', ')} px of the viewport`);
    if (at.order.length > 0) problems.push(`${where}: out of order: ${at.order.join('; ')}`);
    if (at.pitches.length > 1) problems.push(`${where}: rows ${at.pitches.join(' and ')} px apart`);
    if (Math.abs(at.height - end.height) > 2) problems.push(`${where}: the list is ${at.height}px tall, at the end ${end.height}px`);
    console.log(`${where}: rows ${at.first}–${at.last} (${at.rows}) rendered, ${at.blank.length} blank runs`);
  }
  // A focused row survives scrolling near it; the focus is not dropped to the page.
  await page.evaluate(() => {
    const nav = document.querySelector('nav.list');
    nav.scrollTop = 0;
  });
  await page.waitForTimeout(50);
  await page.focus('[data-id="c010"] a');
  await page.evaluate(async () => {
    const nav = document.querySelector('nav.list');
    nav.scrollTop = 1500;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
  const kept = await page.evaluate(inspect);
  if (kept.focused !== 'c010') problems.push(`scrolled 1,500 px from a focused row, the focus is on ${kept.focused}`);
  console.log(`focused c010, scrolled to 1500px: focus on ${kept.focused}, rows ${kept.first}–${kept.last}`);
  // New chat while scrolled to the end: the list goes to the new row, whose title input has the focus.
  await page.evaluate(() => {
    const nav = document.querySelector('nav.list');
    nav.scrollTop = nav.scrollHeight;
  });
  await page.waitForTimeout(50);
  await page.click('[data-testid="new-conversation"]');
  await page.waitForSelector('[data-testid="rename-input"]', { timeout: 5000 }).catch(() => null);
  const renaming = await page.evaluate(() => {
    const input = document.querySelector('[data-testid="rename-input"]');
    const box = document.querySelector('nav.list').getBoundingClientRect();
    const at = input?.getBoundingClientRect();
    return { focused: !!input && document.activeElement === input, inView: !!at && at.top >= box.top && at.bottom <= box.bottom };
  });
  if (!renaming.focused || !renaming.inView) problems.push(`New chat at the end of the list: rename input focused ${renaming.focused}, in view ${renaming.inView}`);
  console.log(`New chat at the end of the list: rename input focused ${renaming.focused}, in view ${renaming.inView}`);
} finally {
  await browser.close();
  served.close();
}
for (const p of problems) console.log(p);
console.log(problems.length ? `${problems.length} problems` : 'the windowed list lays out without gaps');
process.exit(problems.length ? 1 : 0);
