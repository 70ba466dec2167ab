// What every WebDriver run of the real window uses (tests/e2e/lib.mjs, bench/ui/*.mjs): a free
// port on 127.0.0.1, polling with a deadline, and a small W3C WebDriver client for tauri-driver.

import net from 'node:net';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on, on 127.0.0.1. */
export function freePort() {
  return new Promise((ok, fail) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
    s.on('error', fail);
  });
}

/** Polls `fn` every `stepMs` until it returns something truthy, or fails naming `what`. */
export async function until(what, fn, timeoutMs = 30000, stepMs = 200) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(stepMs);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

/** The W3C element reference key. */
export const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

/** A WebDriver session client for the server at `base`; each request may take `requestMs`. */
export function driver(base, requestMs = 30000) {
  async function call(method, path, body) {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(requestMs),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value ?? json)}`);
    return json.value;
  }
  let session;
  const s = (p) => `/session/${session}${p}`;
  return {
    ELEMENT,
    async start(capabilities) {
      session = (await call('POST', '/session', { capabilities })).sessionId;
    },
    find: async (css) => (await call('POST', s('/element'), { using: 'css selector', value: css }))[ELEMENT],
    findAll: async (css) =>
      (await call('POST', s('/elements'), { using: 'css selector', value: css })).map((e) => e[ELEMENT]),
    click: (id) => call('POST', s(`/element/${id}/click`), {}),
    clear: (id) => call('POST', s(`/element/${id}/clear`), {}),
    type: (id, text) => call('POST', s(`/element/${id}/value`), { text }),
    // textContent through a script: WebKitWebDriver's element text is empty for some rows.
    text: (id) =>
      call('POST', s('/execute/sync'), { script: 'return arguments[0].textContent', args: [{ [ELEMENT]: id }] }),
    attr: (id, name) => call('GET', s(`/element/${id}/attribute/${name}`)),
    script: (script, args = []) => call('POST', s('/execute/sync'), { script, args }),
    scriptAsync: (script, args = []) => call('POST', s('/execute/async'), { script, args }),
    timeouts: (timeouts) => call('POST', s('/timeouts'), timeouts),
    frame: (id) => call('POST', s('/frame'), { id: { [ELEMENT]: id } }),
    top: () => call('POST', s('/frame'), { id: null }),
    /** The handles of the session's windows, and switching the commands to one of them. */
    handles: () => call('GET', s('/window/handles')),
    handle: () => call('GET', s('/window')),
    switchTo: (handle) => call('POST', s('/window'), { handle }),
    async end() {
      if (session) await call('DELETE', s('')).catch(() => undefined);
      session = undefined;
    },
  };
}

/** Switches `wd` to the first of its windows other than `except` whose page has an element
 * matching `css`, polling until there is one; its handle. */
export async function windowWith(wd, css, { except, timeoutMs = 30000, stepMs = 100 } = {}) {
  return until(`a window with ${css}`, async () => {
    for (const handle of await wd.handles()) {
      if (handle === except) continue;
      await wd.switchTo(handle);
      if ((await wd.findAll(css)).length > 0) return handle;
    }
    if (except) await wd.switchTo(except);
    return null;
  }, timeoutMs, stepMs);
}
