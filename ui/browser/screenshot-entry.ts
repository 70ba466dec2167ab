// Browser entry of the Export-dialog screenshot (see screenshot-export.mjs): installs the fake
// backend (the same one the component tests use) with a few conversations.
import { conversation, installFakeBackend } from '../src/test/fakeBackend';

const hour = 3_600_000;
const now = Date.now();
const seed = [
  conversation({ title: 'Weather in California this week', model: 'qwen2.5:3b', updatedAt: now - hour }),
  conversation({ title: '加州天气和旅行计划', model: 'qwen2.5:3b', updatedAt: now - 3 * hour }),
  conversation({ title: 'Fetch a page with the fetch server', model: 'llama3.2:3b', updatedAt: now - 26 * hour }),
  conversation({ title: 'Summarise the release notes', model: 'qwen2.5:3b', updatedAt: now - 50 * hour, pinned: true }),
  conversation({ title: 'SQL for the monthly report', model: 'qwen2.5:7b', updatedAt: now - 200 * hour }),
];

installFakeBackend(seed, {
  extra: (cmd) => (cmd === 'search_messages' ? { items: [], nextCursor: null } : undefined),
});
