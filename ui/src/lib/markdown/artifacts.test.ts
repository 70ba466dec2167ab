import { describe, expect, test } from 'vitest';
import { artifactDocument, artifactKind } from './artifacts';

describe('artifacts', () => {
  test('HTML, SVG and Mermaid fences are artifacts, XML only when it is an SVG, nothing else', () => {
    expect(artifactKind('HTML', '<p>')).toBe('html');
    expect(artifactKind('svg', '<svg/>')).toBe('svg');
    expect(artifactKind('mermaid', 'graph TD')).toBe('mermaid');
    expect(artifactKind('xml', '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg">')).toBe('svg');
    expect(artifactKind('xml', '<note/>')).toBeNull();
    expect(artifactKind('javascript', 'document.body')).toBeNull();
    expect(artifactKind('', '<svg/>')).toBeNull();
  });

  test('an HTML artifact is its own document and an SVG is put in one', () => {
    expect(artifactDocument('html', '<p>hi</p>')).toBe('<p>hi</p>');
    const svg = artifactDocument('svg', '<svg id="x"></svg>');
    expect(svg).toMatch(/^<!doctype html>/);
    expect(svg).toContain('<body><svg id="x"></svg></body>');
  });

  test('a Mermaid source goes in as data and cannot close the script it is in', () => {
    const hostile = 'graph TD; A["</script><script>parent.alert(1)</script>"]-->B';
    const doc = artifactDocument('mermaid', hostile, 'var mermaid={}; "</script>"');
    expect(doc.match(/<\/script>/g)).toHaveLength(2);
    expect(doc).not.toContain('<script>parent.alert');
    expect(doc).toContain('\\u003c/script>\\u003cscript>parent.alert(1)');
    expect(doc).toContain("securityLevel:'strict'");
  });
});
