// The built-in model in the real window, under Xvfb, through tauri-driver + WebKitWebDriver: a
// fresh profile with one GGUF in its models folder and no provider opens on the onboarding;
// "Use a model on this computer" makes it the built-in provider's default; a message gets an
// answer generated in process by llama.cpp (no Ollama, no key, no network), which is found in
// the SQLite file; a screenshot (docs/screenshots/local-model.png) must not be blank.
//
// Usage: node tests/e2e/local.mjs <path to the debug binary>   (DISPLAY must be set; the GGUF
// comes from scripts/deps.sh, in ~/.cache/switchboard/models/)
import { copyFileSync, linkSync, mkdirSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { testRun, until } from './lib.mjs';

const { dataDir, sqlite, screenshot, launch, run } = testRun('e2e-local');

/** The default model scripts/deps.sh fetched, linked (else copied) into the profile. */
function provideModel() {
  const cache = join(homedir(), '.cache/switchboard/models');
  const gguf = readdirSync(cache).find((f) => f.endsWith('.gguf'));
  if (!gguf) throw new Error(`no .gguf in ${cache}: run scripts/deps.sh test`);
  mkdirSync(join(dataDir, 'models'), { recursive: true });
  try {
    linkSync(join(cache, gguf), join(dataDir, 'models', gguf));
  } catch {
    copyFileSync(join(cache, gguf), join(dataDir, 'models', gguf));
  }
  return gguf;
}

async function main() {
  const gguf = provideModel();
  // Without `make run`'s default model: the onboarding, not SWITCHBOARD_DEFAULT_GGUF, picks it.
  const wd = await launch({ env: { SWITCHBOARD_DEFAULT_GGUF: undefined } });
  try {
    const useLocal = await until('the onboarding', () => wd.find('[data-testid="use-local"]')).catch(async (e) => {
      const page = await wd.script('return document.body.innerText').catch(() => '?');
      throw new Error(`${e.message}; the page shows: ${String(page).slice(0, 600)}`);
    });
    await wd.click(useLocal);
    const composer = await until('the composer', () => wd.find('[data-testid="composer"]'));
    console.log(`e2e-local: "Use a model on this computer" chose ${gguf}`);
    await wd.type(composer, 'Say hello in one short sentence.\uE007');
    const answer = await until(
      'a finished answer from the built-in model',
      async () => {
        for (const m of await wd.findAll('[data-testid="message"][data-role="assistant"]')) {
          const done = (await wd.attr(m, 'data-status')) === 'complete';
          const text = (await wd.text(m)).trim();
          if (done && text) return text;
        }
      },
      180000,
      500,
    );
    console.log(`e2e-local: the answer: ${answer.slice(0, 120)}`);
    const rows = sqlite(
      `SELECT m.content FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.role = 'assistant' AND m.status = 'complete'`,
    );
    if (rows.length !== 1) throw new Error(`expected one stored answer, found ${rows.length}`);
    const provider = sqlite(`SELECT kind FROM providers`);
    if (!provider.some((p) => p[0] === 'local')) throw new Error(`no built-in provider: ${JSON.stringify(provider)}`);
    screenshot('local-model');
  } finally {
    await wd.end().catch(() => {});
  }
}

await run(main);
