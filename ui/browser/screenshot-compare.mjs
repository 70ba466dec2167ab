// The screenshot of two models answering side by side in the README (docs/screenshots/
// compare.png): the chat benchmark's build (the real app over the fake backend, chat-bench/)
// in Chromium (`/usr/bin/chromium`); Compare picks a second model, the message is sent, and
// the two answers are streamed in as the engine's channel would (one with a tool call waiting
// for approval). Run: npm run screenshot:compare
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { servedBuild } from './served-build.mjs';

const here = new URL('.', import.meta.url).pathname;
const target = join(here, '..', '..', 'docs', 'screenshots', 'compare.png');
const served = await servedBuild('chat-bench');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${served.url}#/c/fresh-3`);
  await page.getByTestId('chat-title').filter({ hasText: 'Stream 3' }).waitFor();
  await page.getByTestId('compare-button').click();
  await page.getByTestId('compare-model').fill('qwen3:8b');
  await page.getByTestId('compare-add').click();
  await page.getByTestId('compare-button').click();
  await page.getByTestId('composer').fill('What time is it in Tokyo, and is WAL mode safe on a network drive?');
  await page.getByTestId('composer').press('Enter');
  await page.waitForFunction(() => window.chatBench.hasCompare());
  await page.evaluate(() => {
    const conv = location.hash.split('/').pop();
    const lane = (n, events) => window.chatBench.deliverLane(n, events);
    for (const n of [0, 1]) {
      lane(n, [
        { type: 'started', conversation_id: conv, user_message_id: 'u' },
        { type: 'message_started', message_id: `a${n}`, model: n ? 'qwen3:8b' : 'fake-model', step: 1 },
      ]);
    }
    lane(0, [
      { type: 'text_delta', message_id: 'a0', text: 'It is **14:05** in Tokyo (JST, UTC+9).\n\nOn WAL mode: SQLite’s documentation says WAL **does not work over a network filesystem** — all processes must be on the same host, because the `-shm` index is shared memory.\n\n| mode | network drive |\n|---|---|\n| `DELETE` | works, slowly |\n| `WAL` | unsafe |\n' },
      { type: 'usage', message_id: 'a0', usage: { inputTokens: 812, outputTokens: 96 } },
      { type: 'finished', reason: 'done', head_id: 'a0' },
    ]);
    const call = { id: 'c1', server: 'time', tool: 'get_current_time', arguments: { timezone: 'Asia/Tokyo' } };
    lane(1, [
      { type: 'text_delta', message_id: 'a1', text: 'Let me check the time first.' },
      { type: 'tool_call_proposed', message_id: 'a1', call },
      { type: 'approval_needed', approval_id: 'ap1', call },
    ]);
  });
  await page.getByTestId('tool-call-card').waitFor();
  await page.waitForTimeout(500);
  await page.screenshot({ path: target });
  console.log(`wrote ${target}`);
} finally {
  await browser.close();
  served.close();
}
