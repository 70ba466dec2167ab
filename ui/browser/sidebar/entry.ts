// Browser entry of the sidebar layout check (see ../sidebar-chromium.mjs): the real app
// (main.ts) over the fake backend with 600 conversations in three groups (3 pinned, the rest
// in "Today" and "Older"), so the windowed list is laid out by a real engine.
import { conversation, installFakeBackend } from '../../src/test/fakeBackend';

const now = Date.now();
const DAY = 24 * 60 * 60 * 1000;
installFakeBackend(
  Array.from({ length: 600 }, (_, i) =>
    conversation({
      id: `c${String(i).padStart(3, '0')}`,
      title: `Chat ${i}`,
      pinned: i < 3,
      // One a second back from now (Today) for the first 300, then a month back (Older).
      updatedAt: i < 300 ? now - i * 1000 : now - 30 * DAY - i * 1000,
    }),
  ),
  {
    extra: (cmd) => (['list_servers', 'server_states', 'list_presets', 'tool_costs', 'provider_models'].includes(cmd) ? [] : undefined),
  },
);

void import('../../src/main');
