import { describe, expect, test } from 'vitest';
import type { FormField, RegistryEntry } from '../bindings';
import { bundleFields, initialValues, installRequest, isBundlePath, missingRequired, needsOf, webUrl } from './installForm';

const brave: RegistryEntry = {
  name: 'io.modelcontextprotocol/brave-search',
  description: 'Brave search',
  version: '1.0.2',
  packages: [
    {
      registryType: 'npm',
      identifier: '@modelcontextprotocol/server-brave-search',
      version: '1.0.2',
      runtimeArguments: [],
      packageArguments: [
        { type: 'named', name: '--mode', isRepeated: false, isRequired: true, isSecret: false, choices: [], variables: {} },
        { type: 'named', name: '--host', isRepeated: false, isRequired: true, isSecret: false, default: 'localhost', choices: [], variables: {} },
      ],
      environmentVariables: [
        { name: 'BRAVE_API_KEY', isRequired: true, isSecret: true, choices: [], variables: {} },
        { name: 'FIXED', isRequired: true, isSecret: false, value: 'x', choices: [], variables: {} },
        { name: 'DB', isRequired: true, isSecret: false, value: 'DB_TYPE={db_type}', choices: [], variables: { db_type: { isRequired: true, isSecret: false, choices: ['pg'], variables: {} } } },
      ],
    },
  ],
  remotes: [{ type: 'sse', url: 'https://mcp.example.com/sse', headers: [{ name: 'X-Token', isRequired: true, isSecret: true, choices: [], variables: {} }] }],
};

const field = (key: string, more: Partial<FormField> = {}): FormField => ({ key, target: 'env', required: false, secret: false, choices: [], ...more });

describe('what installing an entry needs', () => {
  test('names the runner of each package and the values and secrets it asks for, of a fixed value only its variables, not one with a default', () => {
    expect(needsOf(brave)).toEqual({ runtimes: ['npx'], values: ['db_type', '--mode'], secrets: ['BRAVE_API_KEY', 'X-Token'] });
  });

  test('uses the runtime hint over the registry type and needs nothing for a bare remote', () => {
    const py: RegistryEntry = { ...brave, packages: [{ ...brave.packages[0]!, registryType: 'pypi', runtimeHint: 'uvx', packageArguments: [], environmentVariables: [] }], remotes: [] };
    expect(needsOf(py)).toEqual({ runtimes: ['uvx'], values: [], secrets: [] });
    expect(needsOf({ ...brave, packages: [], remotes: [{ type: 'streamable-http', url: 'https://x', headers: [] }] })).toEqual({ runtimes: [], values: [], secrets: [] });
  });
});

describe('the install form', () => {
  test('starts with each default and reports the required fields left empty', () => {
    const fields = [field('A', { required: true, default: 'one' }), field('B', { required: true }), field('C')];
    const values = initialValues(fields);
    expect(values).toEqual({ A: 'one', B: '', C: '' });
    expect(missingRequired(fields, values)).toEqual(['B']);
    expect(missingRequired(fields, { ...values, B: '   ' })).toEqual(['B']);
    expect(missingRequired(fields, { ...values, B: 'given' })).toEqual([]);
  });

  test('sends only the values given and the name when one is typed', () => {
    expect(installRequest('package:0', ' ', { A: 'x', B: '' })).toEqual({ option: 'package:0', values: { A: 'x' } });
    expect(installRequest(undefined, ' mine ', {})).toEqual({ option: undefined, serverName: 'mine', values: {} });
  });

  test('turns a bundle user_config into fields: sensitive ones secret, defaults as text, booleans as a choice', () => {
    const fields = bundleFields({
      greeting: { type: 'string', title: 'Greeting', description: 'What it says', required: true, sensitive: true, multiple: false },
      loud: { type: 'boolean', required: false, sensitive: false, multiple: false, default: false },
      dirs: { type: 'directory', required: false, sensitive: false, multiple: true, default: ['/a', '/b'] },
    });
    expect(fields).toEqual([
      { key: 'greeting', target: 'config', description: 'Greeting: What it says', required: true, secret: true, default: undefined, choices: [], format: 'string' },
      { key: 'loud', target: 'config', description: undefined, required: false, secret: false, default: 'false', choices: ['true', 'false'], format: 'boolean' },
      { key: 'dirs', target: 'config', description: undefined, required: false, secret: false, default: '/a,/b', choices: [], format: 'directory' },
    ]);
  });
});

describe('files and links', () => {
  test('knows a bundle by its extension', () => {
    expect(['/x/a.mcpb', 'C:\\b.MCPB'].map(isBundlePath)).toEqual([true, true]);
    expect(['/x/a.mcpb.txt', '/x/a.zip', '/x/mcpb'].map(isBundlePath)).toEqual([false, false, false]);
  });

  test('opens only http(s) repository links', () => {
    expect(webUrl('https://github.com/a/b')).toBe('https://github.com/a/b');
    expect(['javascript:alert(1)', 'file:///etc/passwd', 'not a url', undefined].map(webUrl)).toEqual([null, null, null, null]);
  });
});
