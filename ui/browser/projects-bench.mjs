// Benchmark of switching the sidebar to a project with 1,000 conversations, in Chromium
// (`/usr/bin/chromium`, nothing downloaded), on the built app over the fake backend
// (projects-bench/): from the click on a project to the end of the first frame painted with
// its first conversation listed, alternating between two such projects (and, every fifth
// switch, "Chats in no project"). The fake answers at once, so this is the window's own cost:
// dropping the old list, the page of 50 rows, the date groups and the windowed list. Medians
// over SWITCHES; prints figures, asserts nothing. Run: npm run bench:projects
import { chromium } from 'playwright-core';
import { servedBuild } from './served-build.mjs';

const SWITCHES = Number(process.env.BENCH_SWITCHES ?? 40);
const served = await servedBuild('projects-bench');

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => `${x.toFixed(1)} ms`;

/** In the page: clicks the project row (or "all chats") and waits for the frame that shows `first`. */
async function switchInPage({ target, first }) {
  const button = target === null ? document.querySelector('[data-testid="all-chats"]') : document.querySelector(`[data-testid="project-row"][data-id="${target}"]`);
  const start = performance.now();
  button.click();
  await new Promise((resolve) => {
    const check = () => (document.querySelector(`[data-testid="conversation-row"][data-id="${first}"]`) ? resolve() : requestAnimationFrame(check));
    check();
  });
  // The frame that holds it is painted once the next one starts.
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
  return { ms: performance.now() - start, rows: document.querySelectorAll('[data-testid="conversation-row"]').length };
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(served.url);
  await page.waitForSelector('[data-testid="project-row"][data-id="p2"]');
  await page.waitForSelector('[data-testid="conversation-row"]');
  const times = [];
  let rows = 0;
  for (let i = 0; i < SWITCHES; i++) {
    const target = i % 5 === 4 ? null : i % 2 === 0 ? 'p1' : 'p2';
    const first = target === null ? 'loose-0000' : `${target}-0000`;
    const result = await page.evaluate(switchInPage, { target, first });
    if (target !== null) {
      times.push(result.ms);
      rows = Math.max(rows, result.rows);
    }
    await page.waitForTimeout(100);
  }
  console.log(`switching to a project of 1,000 conversations, click to painted list (${times.length} switches):`);
  console.log(`  median ${ms(quantile(times, 0.5))}, p95 ${ms(quantile(times, 0.95))}, min ${ms(Math.min(...times))}, max ${ms(Math.max(...times))}; rows in the DOM at most ${rows}`);
} finally {
  await browser.close();
  served.close();
}
