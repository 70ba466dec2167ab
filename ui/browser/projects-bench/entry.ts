// Browser entry of the project-switch benchmark (see ../projects-bench.mjs): the real app
// (main.ts) over the fake backend with two projects of 1,000 conversations each and 200 chats
// in no project, spread over today, this week and older.
import { conversation, installFakeBackend } from '../../src/test/fakeBackend';
import { project } from '../../src/test/fakeProjects';

const now = Date.now();
const DAY = 24 * 60 * 60 * 1000;
const rows = (prefix: string, n: number, projectId?: string) =>
  Array.from({ length: n }, (_, i) =>
    conversation({
      id: `${prefix}-${String(i).padStart(4, '0')}`,
      title: `${prefix} chat ${i}`,
      pinned: i < 2,
      updatedAt: now - i * (DAY / 50),
      ...(projectId ? { projectId } : {}),
    }),
  );
installFakeBackend([...rows('loose', 200), ...rows('p1', 1000, 'p1'), ...rows('p2', 1000, 'p2')], {
  projects: [project({ id: 'p1', name: 'Thesis', icon: '🎓' }), project({ id: 'p2', name: 'Work', icon: '💼' })],
  extra: (cmd) => (['list_servers', 'server_states', 'list_presets', 'tool_costs', 'provider_models'].includes(cmd) ? [] : undefined),
});

void import('../../src/main');
