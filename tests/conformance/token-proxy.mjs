// For the conformance suite's server scenarios: the suite cannot send a bearer token, and
// Switchboard's endpoint takes none without one, so this passes every request from 127.0.0.1:LISTEN
// to 127.0.0.1:TARGET unchanged (method, path, Host, Origin, body, streamed both ways) but for an
// `Authorization: Bearer TOKEN` header where the request has none, and the proxy's own port in
// `Host` and `Origin` said as the endpoint's (as if the suite reached the endpoint itself).
//   node token-proxy.mjs LISTEN TARGET TOKEN
import http from 'node:http';

const [listen, target, token] = process.argv.slice(2);
const server = http.createServer((req, res) => {
  const headers = { ...req.headers };
  headers.authorization ??= `Bearer ${token}`;
  for (const name of ['host', 'origin']) {
    if (typeof headers[name] === 'string') headers[name] = headers[name].replace(`:${listen}`, `:${target}`);
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
  req.pipe(upstream);
});
server.listen(Number(listen), '127.0.0.1', () => console.log('ready'));
