import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { artifacts, RENDER_LIMIT_MS } from '../lib/artifacts.svelte';
import { installFakeBackend } from '../test/fakeBackend';
import { resetAppState } from '../test/reset';
import ArtifactPane from './ArtifactPane.svelte';

beforeEach(() => resetAppState());
afterEach(() => vi.useRealTimers());

/** A backend that registers App documents under tok1, tok2, … and answers the save dialog. */
function backend(savedTo: string | null = '/home/me/chart.svg') {
  let n = 0;
  return installFakeBackend([], {
    extra: (cmd) => {
      if (cmd === 'open_app_view') return `tok${++n}`;
      if (cmd === 'close_app_view' || cmd === 'save_artifact') return null;
      if (cmd === 'plugin:dialog|save') return savedTo;
      return undefined;
    },
  });
}

describe('the artifact pane', () => {
  test('shows the block in the sandboxed App frame, with its own document and nothing allowed', async () => {
    const fake = backend();
    render(ArtifactPane, { artifact: { kind: 'svg', code: '<svg id="c"></svg>' } });
    const frame = await screen.findByTestId('artifact-frame');
    expect(frame).toHaveAttribute('src', 'mcpapp://localhost/tok1');
    expect(frame).toHaveAttribute('sandbox', 'allow-scripts');
    const [opened] = fake.callsTo('open_app_view');
    expect(opened!.html).toContain('<svg id="c"></svg>');
    expect(opened!.csp).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
    expect(opened!.server).toBeNull();
    expect(screen.getByRole('complementary', { name: 'Preview · SVG' })).toBeInTheDocument();
  });

  test('close takes the pane away and the document with it', async () => {
    const fake = backend();
    artifacts.open('html', '<p>hi</p>');
    const { unmount } = render(ArtifactPane, { artifact: artifacts.current! });
    await screen.findByTestId('artifact-frame');
    await userEvent.setup().click(screen.getByTestId('artifact-close'));
    expect(artifacts.current).toBeNull();
    unmount();
    expect(fake.callsTo('close_app_view')).toEqual([{ token: 'tok1' }]);
  });

  test('save writes the source where the user chose, and writes nothing when the dialog is closed', async () => {
    const fake = backend();
    const user = userEvent.setup();
    render(ArtifactPane, { artifact: { kind: 'svg', code: '<svg/>' } });
    await user.click(screen.getByTestId('artifact-save'));
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    expect(fake.callsTo('plugin:dialog|save')[0]).toMatchObject({ options: { defaultPath: 'artifact.svg' } });
    expect(fake.callsTo('save_artifact')).toEqual([{ path: '/home/me/chart.svg', contents: '<svg/>' }]);
  });

  test('a save the engine refuses is said in the pane', async () => {
    const fake = backend('/etc/x.sh');
    fake.fail('save_artifact', { kind: 'invalid_input', message: 'an artifact is saved as an absolute .html, .svg, .mmd or .txt file' });
    render(ArtifactPane, { artifact: { kind: 'html', code: '<p>x</p>' } });
    await userEvent.setup().click(screen.getByTestId('artifact-save'));
    expect(await screen.findByRole('alert')).toHaveTextContent('an artifact is saved as an absolute');
  });

  test('a Mermaid diagram that does not finish drawing in time is stopped', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    backend();
    render(ArtifactPane, { artifact: { kind: 'mermaid', code: 'graph TD; A-->B' } });
    // The Mermaid bundle loads on the first diagram, then the frame shows.
    await waitFor(() => expect(screen.getByTestId('artifact-frame')).toBeInTheDocument(), { timeout: 20_000 });
    vi.advanceTimersByTime(RENDER_LIMIT_MS + 1);
    expect(await screen.findByRole('alert')).toHaveTextContent('did not finish drawing within 10 seconds');
    expect(screen.queryByTestId('artifact-frame')).toBeNull();
  }, 30_000);
});
