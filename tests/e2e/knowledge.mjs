// A knowledge base in the real window: Settings → Knowledge creates one from a folder (indexed
// with the real multilingual-e5-small embedder), a chat asks a question whose answer is in one
// file only, the model (a fake that reads the tool result it is given) searches the base through
// its `knowledge-Home` MCP server, cites the passage, the answer shows the file as a source chip,
// and a click on it opens that file (an `xdg-open` stand-in on PATH records what it was asked).
// Screenshots: docs/screenshots/knowledge-settings.png, knowledge.png.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { go, newChat, press, testRun, until } from './lib.mjs';

const { cli, sqlite, screenshot, launch, fakeModel, run, tempDir } = testRun('e2e-knowledge');

const embedder = process.env.SWITCHBOARD_TEST_EMBED_GGUF ?? join(homedir(), '.cache/switchboard/models/multilingual-e5-small-q4_0.gguf');

/** The fake model: it searches the knowledge base when asked about the key, then answers from
 * the passage that mentions it, citing that passage's number. */
function answer(body) {
  const messages = body.messages ?? [];
  const last = messages.at(-1) ?? {};
  const tools = (body.tools ?? []).map((t) => t.function?.name ?? '');
  const search = tools.find((n) => n.startsWith('knowledge-Home') && n.endsWith('search'));
  if (last.role === 'user' && search) {
    const call = { index: 0, id: 'call_kb', type: 'function', function: { name: search, arguments: JSON.stringify({ query: 'where is the spare key kept', count: 3 }) } };
    return { deltas: [{ role: 'assistant', content: '', tool_calls: [call] }], finish: 'tool_calls' };
  }
  if (last.role === 'tool') {
    const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
    const passages = text.split(/\n(?=\[\d+\] )/).filter((p) => /^\[\d+\] /.test(p));
    const hit = passages.find((p) => /teapot/i.test(p));
    if (!hit) return 'The knowledge base does not say.';
    const n = hit.match(/^\[(\d+)\]/)[1];
    return `The spare key is in the blue teapot on the kitchen shelf [${n}].`;
  }
  return 'Hello.';
}

run(async () => {
  if (!existsSync(embedder)) throw new Error(`${embedder} is missing: run scripts/deps.sh test`);
  const notes = tempDir('notes');
  mkdirSync(join(notes, 'house'), { recursive: true });
  writeFileSync(join(notes, 'house/keys.md'), '# Keys\n\nThe spare key is kept in the blue teapot on the kitchen shelf.\n');
  writeFileSync(join(notes, 'house/garden.md'), '# Garden\n\nWater the tomatoes every morning in July.\n');
  writeFileSync(join(notes, 'recipes.txt'), 'Pancakes: flour, milk, two eggs and a pinch of salt.\n');

  // What the window opens is recorded by an xdg-open stand-in, first on PATH.
  const bin = tempDir('bin');
  const opened = join(bin, 'opened.txt');
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${opened}'\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);

  const model = await fakeModel(answer);
  cli('providers', 'add', 'fake', '--preset', 'openai-compatible', '--base-url', `${model.url}/v1`);
  sqlite(`UPDATE providers SET settings = json_set(settings, '$.defaultModel', 'fake-model')`);

  const wd = await launch({ env: { SWITCHBOARD_EMBED_GGUF: embedder, PATH: `${bin}:${process.env.PATH}` } });
  try {
    await go(wd, '#/settings/knowledge');
    await wd.type(await until('the name field', () => wd.find('[data-testid="knowledge-name"]')), 'Home');
    await wd.type(await wd.find('[data-testid="knowledge-folder"]'), notes);
    await press(wd, await wd.find('[data-testid="knowledge-create"]'));
    const counts = await until(
      'the base indexed with its three files',
      async () => {
        const el = await wd.find('[data-testid="knowledge-counts"]').catch(() => null);
        const text = el ? await wd.text(el) : '';
        return /^3 files, 3 passages/.test(text) ? text : null;
      },
      90000,
    );
    console.log(`e2e-knowledge: ${counts}`);
    screenshot('knowledge-settings');

    const composer = await newChat(wd, 'Spare key');
    await wd.type(composer, 'Where is the spare key?\uE007');
    const allowOnce = '[data-testid="tool-call-card"] > [data-testid="approval-buttons"] [data-decision="allow_once"]';
    await wd.click(await until('the approval of the knowledge search', () => wd.find(allowOnce), 30000));
    const chip = await until('the cited file as a source chip', async () => {
      const chips = await wd.findAll('[data-testid="message-sources"] button');
      for (const c of chips) if ((await wd.text(c)).includes('keys.md')) return c;
      return null;
    }, 60000);
    const body = await wd.text(await wd.find('[data-testid="messages"]'));
    if (!body.includes('blue teapot')) throw new Error(`the answer does not say where the key is: ${body.slice(-400)}`);
    screenshot('knowledge');
    await press(wd, chip);
    const target = await until('the file opened by the chip', () => (existsSync(opened) ? readFileSync(opened, 'utf8').trim() : null));
    if (target !== join(notes, 'house/keys.md')) throw new Error(`the chip opened ${target}`);
    const rows = sqlite(`SELECT count(*) FROM knowledge_chunks`);
    if (rows[0][0] !== 3) throw new Error(`expected 3 chunks stored, found ${rows[0][0]}`);
  } finally {
    await wd.end();
  }
});
