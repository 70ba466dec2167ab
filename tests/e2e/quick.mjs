// The quick window in the real app, under Xvfb, through tauri-driver + WebKitWebDriver (issue
// 33, item 1): the global shortcut (Ctrl+Alt+Space, pressed with xdotool as a user would, with
// the main window in the background) opens a second, always-on-top window; the clipboard
// (filled with xclip) is offered, picked and quoted in the question; the answer streams from
// a fake OpenAI-compatible model; "Open in main window" shows that conversation in the main
// window; the shortcut shows the quick window again and Escape hides it. Settings → General →
// Desktop says why there is no tray icon (this session bus has no tray host), refuses a
// shortcut that is not one, and one another app holds (grab-key.py), keeping the old one; once
// a tray starts (trayer), the icon's menu opens the quick window. Screenshots:
// docs/screenshots/quick-window.png and tray-menu.png. Screenshot: docs/screenshots/quick-window.png.
//
// Usage: node tests/e2e/quick.mjs <path to the debug binary>   (DISPLAY must be set)
import { spawn, execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { go, press, sleep, testRun, until } from './lib.mjs';
import { windowWith } from './webdriver.mjs';

const { cli, screenshot, launch, fakeModel, run, children } = testRun('e2e-quick');
const CLIPBOARD = 'Lyon, Marseille, Paris';
const QUESTION = 'Which of these is the capital of France?';

/** Puts `text` on the X clipboard; xclip keeps serving it until it is killed at the end. */
function fillClipboard(text) {
  const xclip = spawn('xclip', ['-quiet', '-selection', 'clipboard', '-i'], { stdio: ['pipe', 'ignore', 'ignore'] });
  xclip.stdin.end(text);
  children.push(xclip);
}

const shortcut = () => execFileSync('xdotool', ['key', '--clearmodifiers', 'ctrl+alt+space']);

/** An XEmbed system tray (trayer) at the screen's top right, until the end of the run. */
function startTray() {
  const tray = spawn('trayer', ['--edge', 'top', '--align', 'right', '--widthtype', 'request', '--height', '28', '--SetDockType', 'true', '--transparent', 'false', '--tint', '0x303030'], { stdio: 'ignore' });
  children.push(tray);
}

/** The centre of the tray's panel once it holds an icon (it is wider than its empty self). */
function trayIcon() {
  const ids = execFileSync('xdotool', ['search', '--class', 'trayer']).toString().trim().split('\n');
  for (const id of ids) {
    const geometry = execFileSync('xdotool', ['getwindowgeometry', '--shell', id]).toString();
    const value = (key) => Number(new RegExp(`${key}=(\\d+)`).exec(geometry)?.[1] ?? 0);
    if (value('WIDTH') >= 20 && value('HEIGHT') >= 20) return { x: value('X') + value('WIDTH') / 2, y: value('Y') + value('HEIGHT') / 2 };
  }
  return null;
}

/** Another app holding Ctrl+Alt+K (grab-key.py), until the end of the run. */
async function holdCtrlAltK() {
  const grab = spawn('python3', [join(import.meta.dirname, 'grab-key.py'), 'k'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(grab);
  await new Promise((ok, fail) => {
    grab.stdout.once('data', ok);
    grab.once('exit', (code) => fail(new Error(`grab-key.py ended with ${code}`)));
  });
}

/** The quick window's handle, switched to, once there is one. */
const quickHandle = (wd, main) => windowWith(wd, '[data-testid="quick-window"]', { except: main, timeoutMs: 20000, stepMs: 250 });

/** Whether the quick window's page is visible (a hidden window's document says so). */
const visible = (wd) => wd.script('return document.visibilityState === "visible"');

async function main() {
  const asked = [];
  const model = await fakeModel((body) => {
    const last = body.messages?.at(-1);
    const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    asked.push(text);
    return text.includes('capital of France') ? 'Of Lyon, Marseille and Paris, the capital of France is **Paris**.' : 'OK.';
  });
  cli('providers', 'add', 'fake', '--preset', 'openai-compatible', '--base-url', `${model.url}/v1`);
  fillClipboard(CLIPBOARD);
  await holdCtrlAltK();
  const wd = await launch();
  try {
    await until('the sidebar', () => wd.find('[data-testid="new-conversation"]'));
    const main = await wd.handle();

    // Settings → General → Desktop: the default shortcut, and why there is no tray icon.
    await go(wd, '#/settings/general');
    const note = await until('the tray note', () => wd.find('[data-testid="desktop-tray-note"]'));
    console.log(`e2e-quick: Settings says: ${(await wd.text(note)).trim()}`);
    const input = await wd.find('[data-testid="desktop-shortcut"]');
    await wd.clear(input);
    await wd.type(input, 'Ctrl+Banana');
    await press(wd, await wd.find('[data-testid="desktop-shortcut-save"]'));
    const refused = await until('the refusal', () => wd.find('[data-testid="desktop-error"]'));
    const said = await wd.text(refused);
    if (!said.includes('Ctrl+Banana')) throw new Error(`the refusal does not name the shortcut: ${said}`);
    if (!(await wd.text(await wd.find('[data-testid="desktop-settings"]'))).includes('Press Ctrl+Alt+Space')) {
      throw new Error('the old shortcut is no longer the one in effect');
    }
    // One another app holds: refused, naming it, and the old one stays (pressed below).
    await wd.clear(input);
    await wd.type(input, 'Ctrl+Alt+K');
    await press(wd, await wd.find('[data-testid="desktop-shortcut-save"]'));
    const taken = await until('the refusal of a taken shortcut', async () => {
      const text = await wd.text(await wd.find('[data-testid="desktop-error"]'));
      return text.includes('Ctrl+Alt+K') ? text : null;
    });
    if (!taken.includes('could not be taken') || !taken.includes('Ctrl+Alt+Space is kept')) throw new Error(`the refusal says: ${taken}`);
    console.log(`e2e-quick: a shortcut another app holds: ${taken.trim()}`);
    // A tray appears (trayer, an XEmbed system tray): Settings no longer says there is none,
    // the icon's menu shows, and its "Quick window" opens the quick window.
    startTray();
    await go(wd, '#/');
    await go(wd, '#/settings/general');
    await until('Settings to see the tray', async () => (await wd.findAll('[data-testid="desktop-tray-note"]')).length === 0, 20000, 500);
    const panel = await until('the tray icon', () => trayIcon(), 20000, 250);
    execFileSync('xdotool', ['mousemove', String(panel.x), String(panel.y), 'click', '1']);
    await sleep(800);
    screenshot('tray-menu');
    // The menu: Open Switchboard, New chat, Quick window, …
    execFileSync('xdotool', ['key', 'Down', 'Down', 'Down', 'Return']);
    await go(wd, '#/');
    const quick = await quickHandle(wd, main);
    console.log('e2e-quick: the tray menu opened the quick window');
    await until('the quick window to be visible', () => visible(wd));
    const add = await until('the clipboard offer', () => wd.find('[data-testid="quick-add-clipboard"]'));
    await press(wd, add);
    await until('the clipboard chip', () => wd.find('[data-testid="quick-context-chip"]'));
    const composer = await wd.find('[data-testid="composer"]');
    await wd.type(composer, `${QUESTION}\uE007`);
    const answer = await until('the answer in the quick window', async () => {
      const text = await wd.script('return [...document.querySelectorAll(\'[data-testid="message"][data-role="assistant"]\')].map((m) => m.textContent).join(" ")');
      return text.includes('Paris') ? text.trim() : null;
    }, 30000);
    console.log(`e2e-quick: the quick window answered: ${answer}`);
    const question = asked.find((a) => a.includes(QUESTION)) ?? '';
    if (!question.includes(CLIPBOARD) || !question.includes('From the clipboard:')) {
      throw new Error(`the model was not sent the picked clipboard: ${question}`);
    }
    screenshot('quick-window');

    // "Open in main window": the main window shows the same conversation.
    const hash = await wd.script('return location.hash');
    await press(wd, await wd.find('[data-testid="quick-open-main"]'));
    await wd.switchTo(main);
    await until('the main window on that conversation', async () => (await wd.script('return location.hash')) === hash);
    await until('the answer in the main window', async () =>
      (await wd.script('return document.querySelector(\'[data-testid="message"][data-role="assistant"]\')?.textContent ?? ""')).includes('Paris'));
    console.log(`e2e-quick: the main window opened ${hash} with the answer`);

    // The shortcut shows the same quick window again, on a new chat; Escape hides it.
    shortcut();
    await wd.switchTo(quick);
    await until('the quick window to be shown again', () => visible(wd));
    const again = await wd.script('return location.hash');
    if (again !== '#/') throw new Error(`the quick window reopened on ${again}, not a new chat`);
    await wd.type(await wd.find('[data-testid="composer"]'), '\uE00C');
    await until('Escape to hide the quick window', async () => !(await visible(wd)));
    console.log('e2e-quick: the shortcut opened it again on a new chat; Escape hid it');
  } finally {
    await wd.end().catch(() => {});
  }
}

await run(main);
