import { describe, expect, test } from 'vitest';
import { conversation } from '../test/fakeBackend';
import { compareConversations, dateGroup, groupConversations } from './dates';

const NOW = new Date(2025, 0, 10, 9, 30).getTime();
const at = (day: number, hour = 12) => new Date(2025, 0, day, hour).getTime();

describe('date groups', () => {
  test('split by local calendar day', () => {
    expect(dateGroup(at(10, 0), NOW)).toBe('today');
    expect(dateGroup(NOW + 60_000, NOW)).toBe('today');
    expect(dateGroup(at(9, 23), NOW)).toBe('yesterday');
    expect(dateGroup(at(9, 0), NOW)).toBe('yesterday');
    expect(dateGroup(at(8, 23), NOW)).toBe('previous7Days');
    expect(dateGroup(at(3, 1), NOW)).toBe('previous7Days');
    expect(dateGroup(at(2, 23), NOW)).toBe('older');
  });

  test('pinned conversations form their own group first and empty groups are left out', () => {
    const groups = groupConversations(
      [
        conversation({ id: 'p', pinned: true, updatedAt: at(1) }),
        conversation({ id: 't', updatedAt: at(10) }),
        conversation({ id: 'o', updatedAt: at(1) }),
      ],
      NOW,
    );
    expect(groups.map((g) => [g.key, g.items.map((c) => c.id)])).toEqual([
      ['pinned', ['p']],
      ['today', ['t']],
      ['older', ['o']],
    ]);
  });

  test('the order matches the engine: pinned, then newest activity, then id', () => {
    const list = [
      conversation({ id: 'a', updatedAt: 1 }),
      conversation({ id: 'b', updatedAt: 2 }),
      conversation({ id: 'c', updatedAt: 2 }),
      conversation({ id: 'd', updatedAt: 0, pinned: true }),
    ].sort(compareConversations);
    expect(list.map((c) => c.id)).toEqual(['d', 'c', 'b', 'a']);
  });
});
