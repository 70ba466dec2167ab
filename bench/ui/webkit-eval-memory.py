#!/usr/bin/python3
"""Probe: how WebKitGTK's web process grows with native script evaluations, without the app.

Loads a one-line page in a bare WebKitGTK 4.1 web view (the library Tauri uses) and runs
`webkit_web_view_run_javascript` (how wry delivers Tauri's events and Channel messages) ROUNDS x
PER_ROUND times, each waiting for the previous one, then prints the web process's PSS after each
round (IDLE seconds later). The kinds of evaluation (first argument):
  unique    a different source each time, like Tauri's `runCallback(id, {message: ..., index: n})`
  parse     like unique, the message as a JSON string literal given to JSON.parse
  constant  the same source each time (the data read from elsewhere)
  function  a different source each time, evaluated by the page through `new Function`
  fetch     no evaluations: the page POSTs to a custom scheme PER_ROUND times, one after the
            other, and reads the JSON answer (how Tauri's `invoke` travels)
Asserts nothing. Environment switches (e.g. JSC_useCodeCache=false, Malloc=1) pass to the web
process; SIZE sets the characters of text in each message (300), EVENTS=n makes each message a batch
of n event objects, PRESSURE_LIMIT_MB gives the web
context WebKit's memory-pressure settings with that limit, IDLE the seconds before each reading,
CHURN=1 makes the page allocate ~160 MB of short-lived objects before each reading (the
collector runs).
Usage: xvfb-run -a /usr/bin/python3 bench/ui/webkit-eval-memory.py unique [ROUNDS] [PER_ROUND]
(needs python3-gi and gir1.2-webkit2-4.1, Debian's system Python)."""

import json
import os
import sys
import time

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("WebKit2", "4.1")
from gi.repository import Gio, GLib, Gtk, WebKit2  # noqa: E402

KIND = sys.argv[1] if len(sys.argv) > 1 else "unique"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
PER_ROUND = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
IDLE = float(os.environ.get("IDLE", "6"))
TEXT = "x" * int(os.environ.get("SIZE", "300"))
PAGE = """<p>hello</p><script>
window.__sink = [];
window.runCallback = (id, data) => { window.__sink.push(data.index); if (window.__sink.length > 100) window.__sink = []; };
window.__queue = [];
</script>"""
os.environ.setdefault("WEBKIT_DISABLE_COMPOSITING_MODE", "1")


def children(pid):
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    s = f.read()
                if int(s[s.rindex(")") + 2 :].split()[1]) == pid:
                    out.append(int(p))
            except OSError:
                pass
    return out


def comm(pid):
    with open(f"/proc/{pid}/comm") as f:
        return f.read().strip()


def pss(pid):
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return 0.0


def anonymous(pid):
    """The PSS (MB) of the process's anonymous mappings (malloc and GC heaps, not files)."""
    total, anon = 0, False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
                anon = len(head) < 6 or head[5].startswith("[")
            elif anon and head and head[0] == "Pss:":
                total += int(head[1])
    return total / 1024


def source(n):
    payload = f'{{"id": {n}, "text": "{TEXT}"}}'
    if os.environ.get("EVENTS"):
        # A batch of chat events: EVENTS small objects, the text in the middle one.
        events = [{"type": "text_delta", "message_id": f"m{n}", "text": TEXT if i == 0 else "a few words"} for i in range(int(os.environ["EVENTS"]))]
        payload = json.dumps(events)
    if KIND == "parse":
        return f"window.runCallback(3141592, {{ message: JSON.parse({json.dumps(payload)}), index: {n} }})"
    if KIND == "unique":
        return f"window.runCallback(3141592, {{ message: {payload}, index: {n} }})"
    if KIND == "constant":
        return "window.runCallback(3141592, { message: window.__queue.shift(), index: 0 })"
    if KIND == "function":
        return f"new Function('window.runCallback(3141592, {{ message: {payload}, index: {n} }})')()"
    raise SystemExit(f"unknown kind {KIND}")


def main():
    window = Gtk.Window()
    limit = int(os.environ.get("PRESSURE_LIMIT_MB", "0"))
    if limit:
        settings = WebKit2.MemoryPressureSettings.new()
        settings.set_memory_limit(limit)
        settings.set_poll_interval(float(os.environ.get("PRESSURE_POLL_S", "5")))
        view = WebKit2.WebView.new_with_context(WebKit2.WebContext(memory_pressure_settings=settings))
    else:
        view = WebKit2.WebView()
    answer = f'{{"id": 1, "text": "{TEXT}"}}'.encode()

    def scheme(request):
        if request.get_path() == "/":
            body, kind = PAGE.encode(), "text/html"
        else:
            body, kind = answer, "application/json"
        request.finish(Gio.MemoryInputStream.new_from_bytes(GLib.Bytes.new(body)), len(body), kind)

    view.get_context().register_uri_scheme("app", scheme)
    window.add(view)
    window.set_default_size(800, 600)
    window.show_all()
    loop = GLib.MainLoop()
    state = {"n": 0, "round": 0, "web": None, "line": []}

    def web_process():
        return next(p for p in children(os.getpid()) if comm(p).startswith("WebKitWebProces"))

    def measure_then(next_step):
        def later():
            state["line"].append(f"{pss(state['web']):.1f} (anon {anonymous(state['web']):.1f})")
            next_step()
            return False

        GLib.timeout_add(int(IDLE * 1000), later)

    def run_one():
        if state["n"] >= (state["round"] + 1) * PER_ROUND:
            state["round"] += 1
            after = loop.quit if state["round"] >= ROUNDS else run_one
            if os.environ.get("CHURN") == "1":
                # ~160 MB of short-lived JavaScript objects: the collector runs several times.
                churn = "(() => { let a; for (let i = 0; i < 200; i++) a = new Array(100000).fill({}); return 0; })()"
                view.run_javascript(churn, None, lambda *_: measure_then(after))
            else:
                measure_then(after)
            return
        if KIND == "fetch":
            state["n"] += PER_ROUND
            loop_js = f"""window.__done = false; (async () => {{ for (let i = 0; i < {PER_ROUND}; i++) {{
                const r = await fetch('app://localhost/cmd', {{ method: 'POST', body: JSON.stringify({{ i }}), headers: {{ 'Content-Type': 'application/json' }} }});
                window.runCallback(1, {{ message: await r.json(), index: i }}); }} window.__done = true; }})(); 0"""

            def poll():
                def got(_view, result):
                    done = view.run_javascript_finish(result).get_js_value().to_boolean()
                    if done:
                        run_one()
                    else:
                        GLib.timeout_add(300, poll)

                view.run_javascript("window.__done", None, got)
                return False

            view.run_javascript(loop_js, None, lambda *_: GLib.timeout_add(300, poll))
            return
        n = state["n"]
        state["n"] += 1
        view.run_javascript(source(n), None, lambda *_: run_one())

    def loaded(_view, event):
        if event != WebKit2.LoadEvent.FINISHED:
            return

        def start():
            state["web"] = web_process()
            state["line"].append(f"{pss(state['web']):.1f} (anon {anonymous(state['web']):.1f})")
            run_one()
            return False

        if KIND == "constant":
            # The data travels apart from the code: the page holds it already (pulled by the
            # constant source), so the start is measured after the queue is filled.
            fill = f"for (let i = 0; i < {ROUNDS * PER_ROUND}; i++) window.__queue.push({{id: i, text: '{TEXT}'}}); 0"
            view.run_javascript(fill, None, lambda *_: GLib.timeout_add(int(IDLE * 1000), start))
        else:
            GLib.timeout_add(int(IDLE * 1000), start)

    view.connect("load-changed", loaded)
    if KIND == "fetch":
        view.load_uri("app://localhost/")
    else:
        view.load_html(PAGE, "http://localhost/")
    loop.run()
    env = " ".join(f"{k}={v}" for k, v in os.environ.items() if k.startswith(("JSC_", "PRESSURE", "IDLE", "Malloc", "SIZE", "CHURN", "EVENTS")))
    print(f"{KIND} x {PER_ROUND} per round{' (' + env + ')' if env else ''}: web process PSS MB start, after each round: {', '.join(state['line'])}")


main()
