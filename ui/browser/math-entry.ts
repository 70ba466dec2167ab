// Browser entry of the math check (see math-csp-chromium.mjs): renders answers with math the
// way models write them through the real Markdown pipeline, once KaTeX has loaded.
import { markdownAssets } from '../src/lib/markdown/assets.svelte';
import { MarkdownView, type ViewOptions } from '../src/lib/markdown/view';

/** Answers as models write them: display math inside a sentence, then inline math; math on its
 * own lines; and formulas KaTeX draws with inline styles (stretchy arrows, tall delimiters,
 * boxes, roots). */
export const ANSWERS = [
  'Euler: $$e^{i\\pi}+1=0$$ and the fraction $\\frac{a+b}{c^2}$ inline',
  'The area is\n\n$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\nand $x$ is real.',
  'Vectors: $\\overrightarrow{AB}$, $\\left(\\frac{\\frac{a}{b}}{\\frac{c}{d}}\\right)$, $\\fbox{boxed}$, $\\sqrt[3]{x^{2}+1}$, $\\widehat{xyz}$, $\\underbrace{a+b}_{n}$',
  '$$\\left\\{\\begin{array}{l}x+y=1\\\\x-y=3\\end{array}\\right.$$',
  'Velocity $\\vec{v}$, bold $\\pmb{x}$ and a tall bracket $$\\left(\\begin{matrix}a\\\\b\\\\c\\\\d\\\\e\\\\f\\\\g\\end{matrix}\\right)$$',
];

async function run(): Promise<{ paragraphs: string[][]; katex: number; raw: string[] }> {
  const options: ViewOptions = {
    labels: { copy: 'Copy', loadImage: 'Load image', remoteImage: (host) => host },
    allowRemoteImages: false,
    openLink: () => undefined,
  };
  await markdownAssets.loadAll();
  const paragraphs: string[][] = [];
  for (const answer of ANSWERS) {
    const root = document.createElement('div');
    root.className = 'markdown';
    document.body.append(root);
    new MarkdownView().update(root, answer, options);
    paragraphs.push(Array.from(root.querySelectorAll('p')).map((p) => p.textContent ?? ''));
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const katex = document.querySelectorAll('.katex').length;
  // TeX left untypeset shows its source: a placeholder without KaTeX inside.
  const raw = Array.from(document.querySelectorAll('[data-tex]'))
    .filter((n) => !n.querySelector('.katex'))
    .map((n) => n.getAttribute('data-tex') ?? '');
  return { paragraphs, katex, raw };
}

(window as unknown as { runMath: typeof run }).runMath = run;
