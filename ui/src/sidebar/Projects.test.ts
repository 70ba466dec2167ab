import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test } from 'vitest';
import App from '../App.svelte';
import { assistant } from '../test/fakeAssistants';
import { conversation, installFakeBackend } from '../test/fakeBackend';
import { project } from '../test/fakeProjects';
import { resetAppState } from '../test/reset';

beforeEach(() => {
  resetAppState();
});

function titles(): string[] {
  return screen.queryAllByTestId('conversation-row').map((r) => within(r).getByRole('link').textContent ?? '');
}

function projectRow(name: string): HTMLElement {
  const found = screen.getAllByTestId('project-row').find((r) => r.textContent?.includes(name));
  if (!found) throw new Error(`no project row ${name}`);
  return found;
}

const thesis = () => project({ id: 'p1', name: 'Thesis', icon: '🎓', instructions: 'Cite the handbook.' });

describe('projects in the sidebar', () => {
  test('are listed with their counts above the chats in no project, and choosing one lists only its chats', async () => {
    const backend = installFakeBackend(
      [
        conversation({ id: 'a', title: 'Loose chat' }),
        conversation({ id: 'b', title: 'Chapter 1', projectId: 'p1' }),
        conversation({ id: 'c', title: 'Chapter 2', projectId: 'p1' }),
      ],
      { projects: [thesis(), project({ id: 'p2', name: 'Work' })] },
    );
    const user = userEvent.setup();
    render(App);
    await screen.findByRole('link', { name: 'Loose chat' });
    expect(titles()).toEqual(['Loose chat']);
    await waitFor(() => expect(projectRow('Thesis').textContent).toContain('2'));
    expect(projectRow('Work').textContent).toContain('0');

    await user.click(projectRow('Thesis'));
    await waitFor(() => expect(titles().sort()).toEqual(['Chapter 1', 'Chapter 2']));
    expect(projectRow('Thesis')).toHaveAttribute('aria-current', 'true');
    expect(backend.callsTo('list_conversations').at(-1)).toEqual({ page: { limit: 50 }, scope: { project: 'p1' } });

    // New chat while a project is shown is made in it.
    await user.click(screen.getByTestId('new-conversation'));
    await waitFor(() => expect(backend.callsTo('new_chat')).toEqual([{ assistant: null, project: 'p1' }]));
    await waitFor(() => expect(projectRow('Thesis').textContent).toContain('3'));

    await user.click(screen.getByTestId('all-chats'));
    await waitFor(() => expect(titles()).toEqual(['Loose chat']));
  });

  test('a new project is made in the dialog with its instructions, assistant and servers, and shown', async () => {
    const backend = installFakeBackend([], {
      assistants: [assistant({ id: 'a1', name: 'Tutor' })],
      projects: [project({ id: 'p0', name: 'Taken' })],
    });
    const user = userEvent.setup();
    render(App);
    await user.click(await screen.findByTestId('new-project'));
    const dialog = await screen.findByTestId('project-dialog');
    await user.type(within(dialog).getByTestId('project-name'), 'taken');
    await user.click(within(dialog).getByTestId('project-save'));
    expect(await within(dialog).findByTestId('project-failure')).toHaveTextContent('already exists');

    const fill = async (testid: string, text: string) => {
      await user.clear(within(dialog).getByTestId(testid));
      await user.click(within(dialog).getByTestId(testid));
      await user.paste(text);
    };
    await fill('project-name', 'Thesis');
    await fill('project-icon', '🎓');
    await fill('project-instructions', 'Cite the handbook.');
    await user.selectOptions(within(dialog).getByTestId('project-assistant'), 'a1');
    await user.click(within(dialog).getByTestId('project-servers-own'));
    await user.click(within(dialog).getByTestId('project-save'));
    await waitFor(() => expect(screen.queryByTestId('project-dialog')).toBeNull());
    expect(backend.callsTo('create_project').at(-1)).toEqual({
      draft: { name: 'Thesis', icon: '🎓', instructions: 'Cite the handbook.', assistantId: 'a1', servers: [] },
    });
    await waitFor(() => expect(projectRow('Thesis')).toHaveAttribute('aria-current', 'true'));
  });

  test('a chat moves to a project from its row, and leaves the list it was in', async () => {
    const backend = installFakeBackend([conversation({ id: 'a', title: 'Loose chat' }), conversation({ id: 'b', title: 'Other' })], {
      projects: [thesis()],
    });
    const user = userEvent.setup();
    render(App);
    await screen.findByRole('link', { name: 'Loose chat' });
    await user.click(screen.getByRole('button', { name: 'Move “Loose chat” to a project' }));
    const dialog = await screen.findByTestId('move-dialog');
    expect(within(dialog).getByTestId('move-confirm')).toBeDisabled();
    await user.click(within(dialog).getByLabelText(/Thesis/));
    await user.click(within(dialog).getByTestId('move-confirm'));
    await waitFor(() => expect(titles()).toEqual(['Other']));
    expect(backend.callsTo('move_conversations')).toEqual([{ ids: ['a'], project: 'p1' }]);
    await waitFor(() => expect(projectRow('Thesis').textContent).toContain('1'));
  });

  test('deleting a project says what happens to its chats and keeps them when asked to', async () => {
    const backend = installFakeBackend([conversation({ id: 'b', title: 'Chapter 1', projectId: 'p1' })], { projects: [thesis()] });
    const user = userEvent.setup();
    render(App);
    await user.click(await screen.findByRole('button', { name: 'Edit project “Thesis”' }));
    const dialog = await screen.findByTestId('project-dialog');
    expect(within(dialog).getByTestId('project-instructions')).toHaveValue('Cite the handbook.');
    expect(within(dialog).getByTestId('project-delete-confirm')).toBeDisabled();
    await user.click(within(dialog).getByTestId('project-delete-keep'));
    await user.click(within(dialog).getByTestId('project-delete-confirm'));
    await waitFor(() => expect(screen.queryByTestId('project-dialog')).toBeNull());
    expect(backend.callsTo('delete_project')).toEqual([{ id: 'p1', conversations: 'keep' }]);
    expect(screen.queryAllByTestId('project-row')).toHaveLength(0);
    await waitFor(() => expect(titles()).toEqual(['Chapter 1']));
  });

  test('deleting the project shown with its chats goes back to the chats in no project', async () => {
    const backend = installFakeBackend(
      [conversation({ id: 'a', title: 'Loose chat' }), conversation({ id: 'b', title: 'Chapter 1', projectId: 'p1' })],
      { projects: [thesis()] },
    );
    const user = userEvent.setup();
    render(App);
    await user.click(await screen.findByTestId('project-row'));
    await waitFor(() => expect(titles()).toEqual(['Chapter 1']));
    await user.click(screen.getByRole('button', { name: 'Edit project “Thesis”' }));
    const dialog = await screen.findByTestId('project-dialog');
    await user.click(within(dialog).getByTestId('project-delete-all'));
    await user.click(within(dialog).getByTestId('project-delete-confirm'));
    await waitFor(() => expect(titles()).toEqual(['Loose chat']));
    expect(backend.rows().map((c) => c.id)).toEqual(['a']);
  });
});
