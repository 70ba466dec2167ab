// KaTeX and its styles (with the fonts they name), loaded the first time a block holds math.
import 'katex/dist/katex.min.css';

export { default as katex } from 'katex';
