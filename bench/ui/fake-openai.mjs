// A fake OpenAI-compatible model server for the app benchmark, on 127.0.0.1 (a free port):
// GET …/models lists one model; POST …/chat/completions streams a fixed ~120-token answer as
// server-sent events (the wire format of tests/suite/agent/model.rs). It stops with the
// benchmark process.
import { createServer } from 'node:http';

const RICH =
  'Here is a **short** answer with `code`, a list and a table.\n\n- one\n- two\n- three\n\n' +
  '| a | b |\n|---|---|\n| 1 | 2 |\n\n' +
  'And a paragraph that goes on for a while so that the reply streams in many small pieces. '.repeat(3);
const CODE = '```rust\nfn step(x: u32) -> u32 {\n    let y = x * 2 + 1; // one step\n    y.pow(2)\n}\n```\n\n';
// BENCH_ANSWER=plain: the same length as one paragraph of plain text (no Markdown to render);
// =long: ~3,500 words of Markdown with code blocks (streamed over several batches).
const ANSWER = (
  process.env.BENCH_ANSWER === 'plain'
    ? 'Here is a short answer with plain words only and no markup at all, so the chat renders one paragraph. '.repeat(3)
    : process.env.BENCH_ANSWER === 'long'
      ? (RICH + '\n\n' + CODE).repeat(40)
      : RICH
).split(/(?<= )/);

const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** Starts the server; resolves to `{ url, close }` (url ends with /v1). */
export async function startFakeOpenAi() {
  let requests = 0;
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'bench' }] }));
      return;
    }
    if (req.method === 'POST' && req.url.endsWith('/chat/completions')) {
      requests += 1;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const word of ANSWER) res.write(chunk({ content: word }));
        res.write(chunk({}, 'stop'));
        const usage = { prompt_tokens: 12, completion_tokens: ANSWER.length, total_tokens: 12 + ANSWER.length };
        res.write(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices: [], usage })}\n\n`);
        res.end('data: [DONE]\n\n');
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
