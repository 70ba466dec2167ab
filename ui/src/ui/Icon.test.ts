import { render } from '@testing-library/svelte';
import { expect, test } from 'vitest';
import Icon, { ICON_NAMES } from './Icon.svelte';

const source = Object.values(import.meta.glob<string>('./Icon.svelte', { query: '?raw', import: 'default', eager: true }))[0]!;
const files = import.meta.glob<string>('../icons/*.svg', { query: '?raw', import: 'default', eager: true });
const file = (name: string) => files[`../icons/${name}.svg`] ?? '';

test('an icon is one hidden element, not an inline SVG', () => {
  const { container } = render(Icon, { name: 'trash', size: 14 });
  const icon = container.querySelector('.icon')!;
  expect(icon.localName).toBe('span');
  expect(icon.getAttribute('aria-hidden')).toBe('true');
  expect(icon.getAttribute('data-icon')).toBe('trash');
  expect(icon.getAttribute('data-size')).toBe('14');
  expect(icon.childElementCount).toBe(0);
  expect(container.querySelector('svg')).toBeNull();
});

test('the filled variant is marked for its own mask', () => {
  const { container } = render(Icon, { name: 'pin', filled: true });
  expect(container.querySelector('.icon')!.classList.contains('filled')).toBe(true);
  expect(source).toContain(`.icon[data-icon='pin'].filled {\n    --icon: url('../icons/pin-filled.svg');`);
  expect(file('pin-filled')).toContain('fill="#000"');
});

test('every icon name has a mask rule and an SVG file on the 24-unit grid', () => {
  expect(ICON_NAMES.length).toBeGreaterThan(10);
  for (const name of ICON_NAMES) {
    expect(source, name).toContain(`.icon[data-icon='${name}'] {\n    --icon: url('../icons/${name}.svg');`);
    const svg = new DOMParser().parseFromString(file(name), 'image/svg+xml').documentElement;
    expect(svg.localName, name).toBe('svg');
    expect(svg.getAttribute('viewBox'), name).toBe('0 0 24 24');
    expect(svg.querySelectorAll('path').length, name).toBeGreaterThan(0);
  }
});

test('every size the type allows has a rule', () => {
  for (const size of [12, 14, 18, 22]) expect(source).toContain(`.icon[data-size='${size}'] { font-size: ${size}px; }`);
  expect(source).toContain('width: 1em;\n    height: 1em;\n    font-size: 16px;');
});
