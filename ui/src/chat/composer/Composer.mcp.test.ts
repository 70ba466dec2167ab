import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import type { Attachment, Prompt, PromptInfo, ResourceContent } from '../../bindings';
import { installFakeBackend } from '../../test/fakeBackend';
import { resetAppState } from '../../test/reset';
import Composer from './Composer.svelte';

beforeEach(() => resetAppState());

const PROMPTS: Record<string, PromptInfo[]> = {
  everything: [
    { name: 'simple-prompt', title: 'Simple prompt', description: 'A prompt with no arguments', arguments: [] },
    {
      name: 'args-prompt',
      title: null,
      description: 'A prompt with two arguments',
      arguments: [
        { name: 'city', description: 'Name of the city', required: true },
        { name: 'state', description: 'Name of the state', required: false },
      ],
    },
  ],
  docs: [{ name: 'summarize', title: 'Summarize a file', description: null, arguments: [] }],
};

const RESOURCE_PROMPT: Prompt = {
  description: null,
  messages: [
    { role: 'user', content: { type: 'text', text: 'Weather in Beijing?' } },
    { role: 'user', content: { type: 'resource', uri: 'demo://resource/dynamic/text/3', mime: 'text/plain', body: { kind: 'text', value: 'Resource 3' } } },
  ],
};

function contents(uri: string): ResourceContent[] {
  return [{ uri, mime: 'text/plain', body: { kind: 'text', value: `contents of ${uri}` } }];
}

function setup(canSend = true) {
  const backend = installFakeBackend([], {
    extra: (cmd, args) => {
      switch (cmd) {
        case 'server_prompts':
          return PROMPTS[String(args.name)] ?? [];
        case 'get_prompt':
          if ((args.args as Record<string, string>).city === 'Atlantis') {
            throw { kind: 'internal', message: 'MCP error -32602: no such city' };
          }
          return args.name === 'args-prompt'
            ? RESOURCE_PROMPT
            : { description: null, messages: [{ role: 'user', content: { type: 'text', text: `expanded ${String(args.name)}` } }] };
        case 'server_resources':
          return args.name === 'docs'
            ? [{ uri: 'file:///notes.md', name: 'notes.md', title: 'Notes', description: null, mime: 'text/markdown', size: null }]
            : [];
        case 'server_resource_templates':
          return args.name === 'everything'
            ? [{ uri_template: 'demo://resource/dynamic/text/{resourceId}', name: 'Dynamic Text Resource', title: null, description: null, mime: 'text/plain' }]
            : [];
        case 'read_resource':
          return contents(String(args.uri));
        default:
          return undefined;
      }
    },
  });
  const onsend = vi.fn<(text: string, attachments: Attachment[]) => void>();
  const servers = vi.fn(async () => ['docs', 'everything']);
  render(Composer, { canSend, onsend, servers });
  return { backend, onsend, servers, box: screen.getByTestId('composer') as HTMLTextAreaElement };
}

const options = () => screen.queryAllByTestId('prompt-option').map((o) => o.querySelector('.prompt-name')?.textContent);

describe('slash commands', () => {
  test('typing / lists the prompts of the servers, filtered as you type', async () => {
    const { box, servers } = setup();
    const user = userEvent.setup();
    await user.type(box, '/');
    await waitFor(() => expect(options()).toEqual(['/summarize', '/simple-prompt', '/args-prompt']));
    expect(servers).toHaveBeenCalledTimes(1);
    expect(box).toHaveAttribute('aria-expanded', 'true');
    await user.type(box, 'si');
    expect(options()).toEqual(['/simple-prompt']);
    await user.type(box, 'x');
    expect(screen.getByTestId('prompt-menu')).toHaveTextContent('No prompt matches.');
    await user.type(box, ' ');
    expect(screen.queryByTestId('prompt-menu')).toBeNull();
    expect(servers).toHaveBeenCalledTimes(1);
  });

  test('arrow keys move through the list and Enter inserts a prompt without arguments', async () => {
    const { box, backend, onsend } = setup();
    const user = userEvent.setup();
    await user.type(box, '/s');
    await waitFor(() => expect(options()).toEqual(['/summarize', '/simple-prompt', '/args-prompt']));
    expect(screen.getAllByRole('option')[0]).toHaveAttribute('aria-selected', 'true');
    await user.keyboard('{ArrowDown}');
    expect(box.getAttribute('aria-activedescendant')).toBe(screen.getAllByRole('option')[1]!.id);
    await user.keyboard('{Enter}');
    await waitFor(() => expect(box).toHaveValue('expanded simple-prompt'));
    expect(backend.callsTo('get_prompt')).toEqual([{ server: 'everything', name: 'simple-prompt', args: {} }]);
    expect(onsend).not.toHaveBeenCalled();
    expect(screen.queryByTestId('prompt-menu')).toBeNull();
  });

  test('Enter that confirms an IME candidate neither picks a prompt nor sends', async () => {
    const { box, backend, onsend } = setup();
    const user = userEvent.setup();
    await user.type(box, '/su');
    await waitFor(() => expect(options()).toEqual(['/summarize']));
    await fireEvent.keyDown(box, { key: 'Enter', isComposing: true });
    await fireEvent.keyDown(box, { key: 'Enter', keyCode: 229 });
    expect(backend.callsTo('get_prompt')).toEqual([]);
    expect(onsend).not.toHaveBeenCalled();
    expect(options()).toEqual(['/summarize']);
  });

  test('Escape closes the list and leaves the text', async () => {
    const { box } = setup();
    const user = userEvent.setup();
    await user.type(box, '/su');
    await waitFor(() => expect(options()).toEqual(['/summarize']));
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('prompt-menu')).toBeNull();
    expect(box).toHaveValue('/su');
  });

  test('a prompt with arguments asks for them (required marked), then fills the box and attaches its resource', async () => {
    const { box, backend, onsend } = setup();
    const user = userEvent.setup();
    await user.type(box, '/args');
    await waitFor(() => expect(options()).toEqual(['/args-prompt']));
    await user.click(screen.getByTestId('prompt-option'));
    const form = await screen.findByRole('dialog', { name: '/args-prompt' });
    const city = within(form).getByLabelText(/city/);
    expect(city).toBeRequired();
    expect(city).toHaveAccessibleName('city (required) Name of the city');
    expect(within(form).getByLabelText(/state/)).not.toBeRequired();
    expect(within(form).getByRole('button', { name: 'Insert' })).toBeDisabled();
    await user.type(city, 'Beijing');
    await user.click(within(form).getByRole('button', { name: 'Insert' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(backend.callsTo('get_prompt')).toEqual([{ server: 'everything', name: 'args-prompt', args: { city: 'Beijing' } }]);
    expect(box).toHaveValue('Weather in Beijing?');
    expect(screen.getByTestId('attachment-chip')).toHaveTextContent('3');
    await user.click(screen.getByTestId('send-button'));
    expect(onsend).toHaveBeenCalledExactlyOnceWith('Weather in Beijing?', [
      { server: 'everything', uri: 'demo://resource/dynamic/text/3', name: '3', mimeType: 'text/plain', body: { kind: 'text', value: 'Resource 3' } },
    ]);
    expect(screen.queryByTestId('attachment-chip')).toBeNull();
  });

  test('a prompt the server refuses says why in the form, which stays open', async () => {
    const { box } = setup();
    const user = userEvent.setup();
    await user.type(box, '/args');
    await waitFor(() => expect(options()).toEqual(['/args-prompt']));
    await user.keyboard('{Tab}');
    const form = await screen.findByRole('dialog', { name: '/args-prompt' });
    await user.type(within(form).getByLabelText(/city/), 'Atlantis{Enter}');
    expect(await within(form).findByRole('alert')).toHaveTextContent('no such city');
    expect(within(form).getByLabelText(/city/)).toHaveValue('Atlantis');
    expect(box).toHaveValue('/args');
  });

  test('without servers the composer offers neither slash commands nor attachments', async () => {
    installFakeBackend();
    const onsend = vi.fn();
    render(Composer, { canSend: true, onsend });
    const user = userEvent.setup();
    const box = screen.getByTestId('composer');
    await user.type(box, '/');
    expect(screen.queryByTestId('prompt-menu')).toBeNull();
    expect(screen.queryByTestId('attach-button')).toBeNull();
    expect(box).not.toHaveAttribute('role');
  });
});

describe('attaching resources', () => {
  test('a listed resource is read and attached as a chip, which can be removed', async () => {
    const { backend, onsend } = setup();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Attach a resource' }));
    const picker = await screen.findByRole('dialog', { name: 'Attach resources' });
    await user.click(await within(picker).findByRole('button', { name: /Notes/ }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(backend.callsTo('read_resource')).toEqual([{ server: 'docs', uri: 'file:///notes.md' }]);
    const chip = screen.getByTestId('attachment-chip');
    expect(chip).toHaveTextContent('Notes');
    expect(chip).toHaveTextContent('docs');
    expect(chip).toHaveAttribute('title', 'file:///notes.md');
    expect(screen.getByTestId('send-button')).toBeEnabled();
    await user.click(within(chip).getByRole('button', { name: 'Remove Notes' }));
    expect(screen.queryByTestId('attachment-chip')).toBeNull();
    expect(screen.getByTestId('send-button')).toBeDisabled();
    expect(onsend).not.toHaveBeenCalled();
  });

  test('a template asks for its variables, reads the expanded URI, and the message can be sent with only it', async () => {
    const { backend, onsend } = setup();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Attach a resource' }));
    const picker = await screen.findByRole('dialog', { name: 'Attach resources' });
    await user.type(within(picker).getByRole('searchbox'), 'dynamic');
    expect(within(picker).queryByRole('button', { name: /Notes/ })).toBeNull();
    await user.click(within(picker).getByRole('button', { name: /Dynamic Text Resource/ }));
    const form = await screen.findByRole('dialog', { name: 'Dynamic Text Resource' });
    await user.type(within(form).getByLabelText(/resourceId/), '7');
    await user.click(within(form).getByRole('button', { name: 'Attach' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(backend.callsTo('read_resource')).toEqual([{ server: 'everything', uri: 'demo://resource/dynamic/text/7' }]);
    await user.click(screen.getByTestId('send-button'));
    expect(onsend).toHaveBeenCalledExactlyOnceWith('', [
      { server: 'everything', uri: 'demo://resource/dynamic/text/7', name: '7', mimeType: 'text/plain', body: { kind: 'text', value: 'contents of demo://resource/dynamic/text/7' } },
    ]);
  });

  test('a resource that cannot be read says why and attaches nothing', async () => {
    const { backend } = setup();
    backend.fail('read_resource', { kind: 'not_found', message: 'no such resource' });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Attach a resource' }));
    const picker = await screen.findByRole('dialog', { name: 'Attach resources' });
    await user.click(await within(picker).findByRole('button', { name: /Notes/ }));
    expect(await within(picker).findByRole('alert')).toHaveTextContent('no such resource');
    expect(screen.queryByTestId('attachment-chip')).toBeNull();
  });
});
