// Assistants in the real Switchboard window, under Xvfb, through tauri-driver + WebKitWebDriver.
// A scripted OpenAI-compatible model on 127.0.0.1 (one model listed, no default model set, so
// the app must choose it) records every request. In the window: Settings → Assistants → New
// assistant with a system prompt and a temperature; a new chat started from it; the fake model
// must receive that system prompt and temperature, and the chat shows the assistant it started
// from. Screenshots: docs/screenshots/assistant-editor.png, chat-settings.png, servers.png,
// providers.png.
//
// Usage: node tests/e2e/assistants.mjs <path to the debug binary>   (DISPLAY must be set)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { go, press, sleep, testRun, until } from './lib.mjs';

const { dataDir, cli, screenshot, launch, fakeModel, run } = testRun('e2e-assistants');
const PROMPT = 'Answer like a pirate, 海盗 style.';
const TAB = '\uE004';
const ENTER = '\uE007';
/** Every chat request body the fake model got (title requests left out). */
const requests = [];

/** The fake model's answers: a title to a title request, else a pirate's greeting. */
function answer(body) {
  const last = (body.messages ?? []).at(-1)?.content ?? '';
  if (typeof last === 'string' && last.startsWith('Write a short title')) return 'Pirate talk';
  requests.push(body);
  return 'Arr, ahoy!';
}

async function makeAssistant(wd) {
  await go(wd, '#/settings/assistants');
  await press(wd, await until('the New assistant button', () => wd.find('[data-testid="assistant-new"]')));
  const name = await until('the editor', () => wd.find('[data-testid="assistant-name"]'));
  await wd.type(name, 'Pirate');
  await wd.type(await wd.find('[data-testid="system-prompt"]'), PROMPT + TAB);
  await wd.type(await wd.find('[data-testid="setting-temperature"]'), '0.7' + TAB);
  await wd.type(await wd.find('[data-testid="setting-maxOutputTokens"]'), '512' + TAB);
  await sleep(400);
  screenshot('assistant-editor');
  await press(wd, await wd.find('[data-testid="assistant-save"]'));
  const row = await until('the assistant in the list', async () => {
    for (const r of await wd.findAll('[data-testid="assistant-row"]')) if ((await wd.text(r)).includes('Pirate')) return r;
  });
  console.log('e2e-assistants: the assistant "Pirate" was made in Settings → Assistants');
  return row;
}

async function chatFromIt(wd) {
  await go(wd, '#/');
  const picker = await until('the assistant picker of a new chat', () => wd.find('[data-testid="new-chat-assistant"]'));
  const options = await wd.findAll('[data-testid="new-chat-assistant"] option');
  let chosen = false;
  for (const o of options) {
    if ((await wd.text(o)).includes('Pirate')) {
      await wd.script('arguments[0].value = arguments[1].value; arguments[0].dispatchEvent(new Event("change", { bubbles: true })); return true;', [{ [wd.ELEMENT]: picker }, { [wd.ELEMENT]: o }]);
      chosen = true;
    }
  }
  if (!chosen) throw new Error('the picker does not offer the assistant');
  const line = await until('the model line', async () => {
    const t = await wd.text(await wd.find('[data-testid="new-chat-model"]'));
    return t.includes('fake-model') ? t : undefined;
  });
  console.log(`e2e-assistants: before the first message the new chat says "${line.trim()}"`);
  await wd.type(await wd.find('[data-testid="composer"]'), 'Hello there' + ENTER);
  const body = await until('the model request', () => requests[0], 30000);
  const system = body.messages?.[0];
  if (system?.role !== 'system' || system.content !== PROMPT) throw new Error(`the model got no system prompt: ${JSON.stringify(body.messages?.[0])}`);
  if (body.temperature !== 0.7) throw new Error(`the model got temperature ${body.temperature}`);
  if (body.model !== 'fake-model') throw new Error(`the model got model ${body.model}`);
  if (body.max_tokens !== 512 && body.max_completion_tokens !== 512) throw new Error(`no max tokens: ${JSON.stringify(body).slice(0, 300)}`);
  console.log('e2e-assistants: the fake model received the assistant\'s system prompt, temperature 0.7 and max tokens 512');
  const badge = await until('the assistant on the chat bar', () => wd.find('[data-testid="chat-assistant"]'));
  if (!(await wd.text(badge)).includes('Pirate')) throw new Error('the chat does not show its assistant');
  await until('the answer', async () => (await wd.text(await wd.find('main'))).includes('Arr, ahoy!'));
  await press(wd, await wd.find('[data-testid="chat-settings-button"]'));
  await until('the chat settings panel', () => wd.find('[data-testid="settings-panel"]'));
  await sleep(400);
  screenshot('chat-settings');
}

async function settingsShots(wd) {
  await go(wd, '#/settings/servers');
  await until('the server list', async () => (await wd.findAll('[data-testid="server-row"]')).length > 0);
  await sleep(1500);
  screenshot('servers');
  await go(wd, '#/settings/providers');
  await until('the provider card', async () => (await wd.findAll('[data-testid="provider-card"]')).length > 0);
  await sleep(400);
  screenshot('providers');
}

async function main() {
  const { url } = await fakeModel(answer);
  cli('providers', 'add', 'fake', '--preset', 'openai-compatible', '--base-url', `${url}/v1`);
  const servers = join(dataDir, 'servers.json');
  writeFileSync(servers, JSON.stringify({ mcpServers: { clock: { builtin: 'time' }, web: { builtin: 'fetch' } } }));
  cli('servers', 'import', servers);

  const wd = await launch();
  try {
    await until('the sidebar', () => wd.find('[data-testid="new-conversation"]'));
    await makeAssistant(wd);
    await chatFromIt(wd);
    await settingsShots(wd);
  } finally {
    await wd.end().catch(() => {});
  }
}

await run(main);
