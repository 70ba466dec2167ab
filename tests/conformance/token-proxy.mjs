// For the conformance suite's server scenarios, a proxy on 127.0.0.1:LISTEN that passes every
// request to 127.0.0.1:TARGET unchanged (method, path, Host, Origin, body, streamed both ways)
// but for two things:
// - TOKEN (not `-`): the suite cannot send a bearer token, and Switchboard's endpoint takes none
//   without one, so an `Authorization: Bearer TOKEN` header is added where the request has none,
//   and the proxy's own port in `Host` and `Origin` is said as the target's (as if the suite
//   reached the endpoint itself);
// - `handshake-only`: a `server/discover` request is answered with JSON-RPC "method not found",
//   as a server of the handshake era answers it, so that the reference server (which speaks both
//   eras) is reached in the handshake era, its server-to-client requests and all.
//   node token-proxy.mjs LISTEN TARGET TOKEN|- [handshake-only]
import http from 'node:http';

const [listen, target, token, mode] = process.argv.slice(2);

function forward(req, res, body) {
  const headers = { ...req.headers };
  if (token !== '-') {
    headers.authorization ??= `Bearer ${token}`;
    for (const name of ['host', 'origin']) {
      if (typeof headers[name] === 'string') headers[name] = headers[name].replace(`:${listen}`, `:${target}`);
    }
  }
  const options = { host: '127.0.0.1', port: Number(target), method: req.method, path: req.url, headers };
  const upstream = http.request(options, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(String(error));
  });
  res.on('close', () => upstream.destroy());
  if (body === undefined) req.pipe(upstream);
  else upstream.end(body);
}

/// The JSON-RPC id of a `server/discover` request in `body`, or undefined.
function discoverId(body) {
  try {
    const message = JSON.parse(body.toString('utf8'));
    return message?.method === 'server/discover' ? (message.id ?? null) : undefined;
  } catch {
    return undefined;
  }
}

const server = http.createServer((req, res) => {
  if (mode !== 'handshake-only' || req.method !== 'POST') return forward(req, res);
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const id = discoverId(body);
    if (id === undefined) return forward(req, res, body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }));
  });
});
server.listen(Number(listen), '127.0.0.1', () => console.log('ready'));
