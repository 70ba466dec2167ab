// Preloaded into server-everything's streamable HTTP mode for the benchmark: a server that
// listens on a port alone (all interfaces) listens on 127.0.0.1 instead.
const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') {
    const [port, ...rest] = args;
    const callback = rest.find((a) => typeof a === 'function');
    return listen.call(this, { port: Number(port), host: '127.0.0.1' }, callback);
  }
  return listen.apply(this, args);
};
