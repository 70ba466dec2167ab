import type { Conversation } from '../bindings';

export type GroupKey = 'pinned' | 'today' | 'yesterday' | 'previous7Days' | 'older';
export type ConversationGroup = { key: GroupKey; items: Conversation[] };

const DAY_MS = 24 * 60 * 60 * 1000;

function startOfDay(ms: number): number {
  const d = new Date(ms);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** Which date group a timestamp (ms since the epoch) falls in, in local time. */
export function dateGroup(updatedAt: number, now: number): Exclude<GroupKey, 'pinned'> {
  const today = startOfDay(now);
  if (updatedAt >= today) return 'today';
  const yesterday = startOfDay(today - DAY_MS / 2);
  if (updatedAt >= yesterday) return 'yesterday';
  if (updatedAt >= today - 7 * DAY_MS) return 'previous7Days';
  return 'older';
}

const ORDER: readonly GroupKey[] = ['pinned', 'today', 'yesterday', 'previous7Days', 'older'];

/** Splits an already sorted list into Pinned + date groups, dropping empty groups. */
export function groupConversations(items: readonly Conversation[], now: number): ConversationGroup[] {
  const buckets = new Map<GroupKey, Conversation[]>(ORDER.map((k) => [k, []]));
  for (const c of items) buckets.get(c.pinned ? 'pinned' : dateGroup(c.updatedAt, now))!.push(c);
  return ORDER.map((key) => ({ key, items: buckets.get(key)! })).filter((g) => g.items.length > 0);
}

/** The listing order of the engine: pinned first, then newest activity, then id (all descending). */
export function compareConversations(a: Conversation, b: Conversation): number {
  if (a.pinned !== b.pinned) return a.pinned ? -1 : 1;
  if (a.updatedAt !== b.updatedAt) return b.updatedAt - a.updatedAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
