import { beforeEach, expect, test, vi } from 'vitest';

type DropHandler = (event: { payload: { type: string; paths?: string[] } }) => void;
const tauri = vi.hoisted(() => ({ subscribed: 0, unsubscribed: 0, handler: null as DropHandler | null }));

vi.mock('@tauri-apps/api/webview', () => ({
  getCurrentWebview: () => ({
    onDragDropEvent: async (handler: DropHandler) => {
      tauri.subscribed += 1;
      tauri.handler = handler;
      return async () => {
        tauri.unsubscribed += 1;
      };
    },
  }),
}));

beforeEach(() => {
  vi.resetModules();
  tauri.subscribed = 0;
  tauri.unsubscribed = 0;
  tauri.handler = null;
});

const drop = (paths: string[]) => tauri.handler?.({ payload: { type: 'drop', paths } });

test('every listener of drops shares one subscription to the window', async () => {
  const { listenForDrops } = await import('./uploads.svelte');
  const app: string[][] = [];
  const composer: string[][] = [];
  const stopApp = await listenForDrops((paths) => app.push(paths));
  const stopComposer = await listenForDrops((paths) => composer.push(paths));
  expect(tauri.subscribed).toBe(1);

  drop(['/tmp/a.png']);
  tauri.handler?.({ payload: { type: 'over' } });
  expect(app).toEqual([['/tmp/a.png']]);
  expect(composer).toEqual([['/tmp/a.png']]);

  stopComposer();
  drop(['/tmp/b.png']);
  expect(app).toHaveLength(2);
  expect(composer).toHaveLength(1);
  expect(tauri.unsubscribed).toBe(0);

  const again = await listenForDrops((paths) => composer.push(paths));
  expect(tauri.subscribed).toBe(1);
  again();
  stopApp();
  await Promise.resolve();
  await Promise.resolve();
  expect(tauri.unsubscribed).toBe(1);
});

test('after the last listener left, the next one subscribes again', async () => {
  const { listenForDrops } = await import('./uploads.svelte');
  const stop = await listenForDrops(() => undefined);
  stop();
  stop();
  const seen: string[][] = [];
  await listenForDrops((paths) => seen.push(paths));
  expect(tauri.subscribed).toBe(2);
  drop(['/tmp/c.txt']);
  expect(seen).toEqual([['/tmp/c.txt']]);
});
