// The first run of a server in the real window, under Xvfb, through tauri-driver +
// WebKitWebDriver (issue 29, item 3): a fresh profile whose built-in model is SmolLM2-135M
// (SWITCHBOARD_DEFAULT_GGUF, as `make run` sets it); Settings → MCP Servers → Add server adds
// PyPI's `mcp-server-time` (the virtualenv scripts/deps.sh makes in tests/fixtures/mcp-py) and
// it becomes Ready with its two tools without Details → Start being pressed (never reading a bare
// "Stopped"); a new chat offers its tools; "What time is it now in Tokyo?" gets a tool card for
// get_current_time, approved once as a user would (the default policy asks), with its result, and
// an answer after that result that quotes the time. Screenshot:
// docs/screenshots/first-run-tool.png.
//
// Usage: node tests/e2e/first-run.mjs <path to the debug binary>   (DISPLAY must be set)
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { go, newChat, press, root, testRun, until } from './lib.mjs';

const { screenshot, launch, run } = testRun('e2e-first-run');
const GGUF = join(homedir(), '.cache/switchboard/models/SmolLM2-135M-Instruct.Q4_1.gguf');
const TIME_SERVER = join(root, 'tests/fixtures/mcp-py/.venv/bin/mcp-server-time');
const QUESTION = 'What time is it now in Tokyo?';

/** The element of the server form's field labelled `label` (its label's text starts with it). */
async function field(wd, label) {
  const found = await wd.script(
    `const l = [...document.querySelectorAll('[data-testid="server-form"] label')]
       .find((l) => l.textContent.trim().startsWith(arguments[0]));
     return l && (l.control ?? document.getElementById(l.htmlFor));`,
    [label],
  );
  if (!found) throw new Error(`no field labelled ${label}`);
  return found[wd.ELEMENT];
}

/** The text of the time server's row: its state line. */
const rowStatus = (wd) =>
  wd.script('return document.querySelector(\'[data-testid="server-row"][data-name="time"] [data-testid="server-status"]\')?.textContent ?? ""');

async function addTheTimeServer(wd) {
  await go(wd, '#/settings/servers');
  const add = await until('the Add server button', () =>
    wd.script(`return [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Add server') ?? null`),
  );
  await press(wd, add[wd.ELEMENT]);
  await until('the server form', () => wd.find('[data-testid="server-form"]'));
  await wd.type(await field(wd, 'Name'), 'time');
  await wd.type(await field(wd, 'Command'), TIME_SERVER);
  await wd.type(await field(wd, 'Arguments'), '--local-timezone=UTC');
  const save = await wd.script(`return [...document.querySelectorAll('[data-testid="server-form"] button')].find((b) => b.textContent.trim() === 'Save')`);
  await press(wd, save[wd.ELEMENT]);
  await until('the form to close', async () => (await wd.findAll('[data-testid="server-form"]')).length === 0);
  // Saved: it starts by itself; its line never reads a bare "Stopped" on the way.
  const seen = new Set();
  const ready = await until(
    'the time server to be ready without pressing Start',
    async () => {
      const status = (await rowStatus(wd)).trim();
      seen.add(status);
      if (status === 'Stopped') throw new Error('the switched-on server reads "Stopped"');
      if (status.startsWith('Failed')) {
        const reason = await wd.script('return document.querySelector(\'[data-testid="server-row"][data-name="time"] [data-testid="server-reason"]\')?.textContent ?? ""');
        throw new Error(`the server failed: ${reason}`);
      }
      return status.startsWith('Ready') ? status : null;
    },
    60000,
    100,
  );
  console.log(`e2e-first-run: added through the form, the server went ${[...seen].join(' → ')}`);
  if (!ready.includes('2 tools')) throw new Error(`expected 2 tools, the row says ${ready}`);
}

/** What the chat shows of the turn: whether it is over (every assistant message finished, no
 * tool call waiting for approval or running), the first get_current_time card (its state,
 * arguments and result), and the last assistant message's text when it calls no tool. */
const turn = (wd) =>
  wd.script(`const messages = [...document.querySelectorAll('[data-testid="message"][data-role="assistant"]')];
    const cards = [...document.querySelectorAll('[data-testid="tool-call-card"]')];
    const busy = cards.some((c) => c.dataset.state === 'pending-approval' || c.dataset.state === 'running');
    const over = messages.length > 0 && messages.every((m) => m.dataset.status !== 'streaming') && !busy;
    const card = cards.find((c) => c.querySelector('.tool')?.textContent === 'get_current_time');
    const last = messages.at(-1);
    const text = (m) => [...m.querySelectorAll('[data-testid="message-text"]')].map((t) => t.textContent).join('\\n').trim();
    const answer = last && !last.querySelector('[data-testid="tool-call-card"]') ? text(last) : '';
    return {
      over,
      answer,
      calls: cards.map((c) => c.querySelector('.tool')?.textContent),
      card: card && {
        state: card.dataset.state,
        args: card.querySelector('[data-testid="tool-call-arguments"]')?.textContent ?? '',
        result: card.querySelector('[data-testid="tool-call-result"]')?.textContent ?? '',
      },
    };`);

async function askTheTime(wd) {
  await go(wd, '#/');
  const composer = await newChat(wd, 'First run: the time server');
  const tools = await until('the chat to offer the server’s tools', async () => {
    const text = await wd.script('return document.querySelector(\'[data-testid="tools-button"]\')?.textContent ?? ""');
    return /Tools: [1-9]/.test(text) ? text.trim() : null;
  });
  console.log(`e2e-first-run: the new chat says ${tools}`);
  // Temperature 0, set in the chat's settings as a user would: SmolLM2-135M's held call is
  // greedy anyway, and a greedy answer makes the check of what it quotes reproducible.
  await wd.click(await wd.find('[data-testid="chat-settings-button"]'));
  await wd.type(await wd.find('[data-testid="setting-temperature"]'), '0\uE004');
  // And a short answer: a greedy 135M model can go on for its whole default cap.
  await wd.type(await wd.find('[data-testid="setting-maxOutputTokens"]'), '160\uE004');
  await wd.click(await wd.find('[data-testid="chat-settings-button"]'));
  await wd.type(composer, `${QUESTION}\uE007`);
  // The default policy asks: allow each call once, as a user would, until the turn is over
  // (over on three polls in a row: a step's end is not the turn's).
  const allowOnce = '[data-testid="tool-call-card"] > [data-testid="approval-buttons"] [data-decision="allow_once"]';
  let quiet = 0;
  const shown = await until(
    'the turn to end',
    async () => {
      const button = await wd.find(allowOnce).catch(() => null);
      if (button) await wd.click(button).catch(() => undefined);
      const now = await turn(wd);
      quiet = now.over && !button ? quiet + 1 : 0;
      return quiet >= 3 ? now : null;
    },
    300000,
    500,
  ).catch(async (e) => {
    const text = await wd.script('return document.querySelector("[data-testid=messages]")?.innerText ?? ""').catch(() => '?');
    throw new Error(`${e.message}; the chat shows: ${String(text).slice(-800)}`);
  });
  const { card, answer, calls } = shown;
  if (!card) throw new Error(`the model did not call get_current_time (its calls: ${JSON.stringify(calls)}); it answered: ${answer}`);
  if (card.state !== 'done') throw new Error(`the get_current_time card ended ${card.state}: ${card.result}`);
  const timezone = /"timezone":\s*"([^"]+)"/.exec(card.result)?.[1];
  const datetime = /"datetime":\s*"([^"]+)"/.exec(card.result)?.[1];
  if (!timezone || !datetime) throw new Error(`get_current_time called with ${card.args.trim()} answered no time: ${card.result}`);
  const clock = /T(\d\d:\d\d)/.exec(datetime)[1];
  console.log(`e2e-first-run: get_current_time answered ${datetime} in ${timezone} (arguments ${card.args.replace(/\s+/g, ' ').trim()})`);
  console.log(`e2e-first-run: the answer: ${answer.slice(0, 200)}`);
  if (!answer) throw new Error(`no answer after the tool's result (the model's calls: ${JSON.stringify(calls)})`);
  // The answer quotes the result: the built-in model is given the question again after the
  // result and asked for plain words (prompt mode's AnswerAsk::PlainWords).
  const quotes = answer.includes(clock) || answer.includes(datetime);
  if (!quotes) throw new Error(`the answer does not quote the tool's result (${datetime}): ${answer}`);
  console.log(`e2e-first-run: the answer quotes the tool's result`);
}

async function main() {
  if (!existsSync(GGUF)) throw new Error(`${GGUF} is missing: run scripts/deps.sh test`);
  if (!existsSync(TIME_SERVER)) throw new Error(`${TIME_SERVER} is missing: run scripts/deps.sh test`);
  const wd = await launch({ env: { SWITCHBOARD_DEFAULT_GGUF: GGUF } });
  try {
    await until('the sidebar', () => wd.find('[data-testid="new-conversation"]'));
    await addTheTimeServer(wd);
    await askTheTime(wd);
    screenshot('first-run-tool');
  } finally {
    await wd.end().catch(() => {});
  }
}

await run(main);
