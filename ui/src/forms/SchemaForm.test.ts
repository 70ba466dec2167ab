import { render, screen, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, test, vi } from 'vitest';
import { setLang } from '../i18n/index.svelte';
import { collect, fieldOf } from '../lib/schema';
import { resetAppState } from '../test/reset';
import SchemaForm from './SchemaForm.svelte';

beforeEach(() => resetAppState());

const SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What to search for', minLength: 2 },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    ratio: { type: 'number', exclusiveMaximum: 1 },
    exact: { type: 'boolean' },
    mode: { type: 'string', enum: ['fast', 'thorough'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
    filter: {
      type: 'object',
      title: 'Filter',
      properties: { lang: { type: 'string', pattern: '^[a-z]{2}$' }, since: { type: 'integer' } },
      required: ['lang'],
    },
    extra: { oneOf: [{ type: 'string' }, { type: 'number' }] },
  },
  required: ['query', 'mode'],
};

describe('reading a schema', () => {
  test('gives each property the field that edits it', () => {
    const field = fieldOf(SCHEMA);
    if (field.kind !== 'object') throw new Error('not an object');
    expect(field.properties.map((p) => [p.name, p.field.kind, p.required])).toEqual([
      ['query', 'string', true],
      ['limit', 'number', false],
      ['ratio', 'number', false],
      ['exact', 'boolean', false],
      ['mode', 'enum', true],
      ['tags', 'array', false],
      ['filter', 'object', false],
      ['extra', 'json', false],
    ]);
  });

  test('a nullable type and an array of objects are handled', () => {
    expect(fieldOf({ type: ['null', 'integer'] }).kind).toBe('number');
    expect(fieldOf({ type: 'array', items: { type: 'object', properties: {} } }).kind).toBe('json');
  });

  test('collecting leaves out an empty optional nested object and fills in defaults', () => {
    const field = fieldOf(SCHEMA);
    const result = collect(field, { query: 'ab', mode: '1', filter: { lang: '', since: '' }, tags: [] });
    expect(result).toEqual({ ok: true, value: { query: 'ab', limit: 10, mode: 'thorough' } });
  });
});

describe('SchemaForm', () => {
  test('shows every field with labels, required markers and descriptions', () => {
    render(SchemaForm, { schema: SCHEMA, onsubmit: vi.fn() });
    expect(screen.getByLabelText(/^query/)).toHaveAccessibleDescription('What to search for');
    expect(screen.getByLabelText(/^query/)).toHaveAttribute('aria-required', 'true');
    expect(screen.getByLabelText(/^limit/)).toHaveValue('10');
    expect(screen.getByLabelText('exact')).toHaveAttribute('type', 'checkbox');
    expect(screen.getByRole('group', { name: 'Filter' })).toBeInTheDocument();
    expect(screen.getByLabelText(/^mode/).tagName).toBe('SELECT');
    expect(screen.getByLabelText('extra').tagName).toBe('TEXTAREA');
    const markers = [...document.querySelectorAll('.req')].map((m) => m.parentElement?.textContent);
    expect(markers).toEqual(['query*', 'mode*', 'lang*']);
  });

  test('submits typed arguments: numbers as numbers, enums as their values, optional blanks left out', async () => {
    const onsubmit = vi.fn();
    const user = userEvent.setup();
    render(SchemaForm, { schema: SCHEMA, onsubmit });

    await user.type(screen.getByLabelText(/^query/), 'cats');
    await user.selectOptions(screen.getByLabelText(/^mode/), 'fast');
    await user.type(screen.getByLabelText('ratio'), '0.5');
    await user.click(screen.getByLabelText('exact'));
    await user.click(screen.getByRole('button', { name: 'Add an item to tags' }));
    await user.type(screen.getByLabelText('Item 1'), 'pets');
    await user.type(screen.getByLabelText(/^lang/), 'en');
    await user.type(screen.getByLabelText('extra'), '{{"a":[[1]}');
    await user.click(screen.getByRole('button', { name: 'Run' }));

    expect(onsubmit).toHaveBeenCalledTimes(1);
    expect(onsubmit.mock.calls[0]![0]).toEqual({
      query: 'cats',
      limit: 10,
      ratio: 0.5,
      exact: true,
      mode: 'fast',
      tags: ['pets'],
      filter: { lang: 'en' },
      extra: { a: [1] },
    });
  });

  test('shows a message by each invalid field, focuses the first and does not submit', async () => {
    const onsubmit = vi.fn();
    const user = userEvent.setup();
    render(SchemaForm, { schema: SCHEMA, onsubmit });

    await user.clear(screen.getByLabelText(/^limit/));
    await user.type(screen.getByLabelText(/^limit/), '2.5');
    await user.type(screen.getByLabelText('ratio'), '1');
    await user.type(screen.getByLabelText(/^lang/), 'english');
    await user.type(screen.getByLabelText('extra'), '{{nope');
    await user.click(screen.getByRole('button', { name: 'Run' }));

    expect(onsubmit).not.toHaveBeenCalled();
    const messages = screen.getAllByTestId('schema-error').map((e) => e.textContent?.trim());
    expect(messages).toEqual([
      'Required',
      'Enter a whole number',
      'Must be less than 1',
      'Required',
      'Must match the pattern ^[a-z]{2}$',
      'Not valid JSON',
    ]);
    expect(screen.getByLabelText(/^query/)).toHaveFocus();
    expect(screen.getByLabelText(/^query/)).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText(/^query/)).toHaveAccessibleDescription('What to search for Required');
    expect(screen.getByRole('alert')).toHaveTextContent('Fix the 6 problem(s) above to continue.');
  });

  test('array items can be added up to the limit and removed', async () => {
    const onsubmit = vi.fn();
    const user = userEvent.setup();
    render(SchemaForm, { schema: SCHEMA, onsubmit });
    const tags = screen.getByRole('group', { name: 'tags' });
    const add = within(tags).getByRole('button', { name: 'Add an item to tags' });
    for (let i = 0; i < 4; i++) await user.click(add);
    for (let i = 1; i <= 4; i++) await user.type(within(tags).getByLabelText(`Item ${i}`), `t${i}`);
    await user.type(screen.getByLabelText(/^query/), 'ok');
    await user.selectOptions(screen.getByLabelText(/^mode/), 'fast');
    await user.click(screen.getByRole('button', { name: 'Run' }));
    expect(within(tags).getByTestId('schema-error')).toHaveTextContent('At most 3 items');

    await user.click(within(tags).getByRole('button', { name: 'Remove item 2 of tags' }));
    await user.click(screen.getByRole('button', { name: 'Run' }));
    expect(onsubmit.mock.calls[0]![0].tags).toEqual(['t1', 't3', 't4']);
  });

  test('a tool without arguments submits an empty object', async () => {
    const onsubmit = vi.fn();
    const user = userEvent.setup();
    render(SchemaForm, { schema: { type: 'object', properties: {} }, onsubmit });
    expect(screen.getByText('This tool takes no arguments.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Run' }));
    expect(onsubmit).toHaveBeenCalledWith({});
  });

  test('messages are translated', async () => {
    setLang('zh-CN');
    const user = userEvent.setup();
    render(SchemaForm, { schema: SCHEMA, onsubmit: vi.fn() });
    await user.click(screen.getByRole('button', { name: '运行' }));
    expect(screen.getAllByTestId('schema-error')[0]).toHaveTextContent('必填');
  });
});
