// The app's processes under /proc for the UI benchmarks (app-perf.mjs, quick-perf.mjs): a
// process's parent and times, the binary's running process, its process tree and that tree's
// memory (RSS and PSS from smaps_rollup).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** KB as MB with one decimal. */
export const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`;

/** A process's parent, start time (clock ticks since boot) and CPU time (ticks). */
export function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), start: Number(fields[19]), cpu: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

const pids = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number);

/** The running process of the binary `app`. */
export function appPid(app) {
  return pids().find((pid) => {
    try {
      return readlinkSync(`/proc/${pid}/exe`) === app;
    } catch {
      return false;
    }
  });
}

/** The app's process and all its descendants. */
export function tree(root) {
  const parent = new Map(pids().map((pid) => [pid, stat(pid)?.ppid]));
  const inTree = (pid) => {
    for (let p = pid; p; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  return [...parent.keys()].filter(inTree);
}

/** The summed RSS and PSS (KB) of `root` and its descendants, with each one's name and figures. */
export function memoryOf(root) {
  let rss = 0;
  let pss = 0;
  const names = [];
  const each = [];
  for (const pid of tree(root)) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const one = { rss: Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0), pss: Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0) };
      rss += one.rss;
      pss += one.pss;
      names.push(readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
      each.push(`${names.at(-1)} ${mb(one.rss)}/${mb(one.pss)}`);
    } catch {
      // gone meanwhile
    }
  }
  return { rss, pss, names, each };
}

