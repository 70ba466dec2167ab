// The rest of highlight.js's common language set (`highlight.js/lib/common` minus the languages
// `highlight.ts` registers first), registered into the loaded highlighter on demand.
import type { HLJSApi, LanguageFn } from 'highlight.js';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import graphql from 'highlight.js/lib/languages/graphql';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import kotlin from 'highlight.js/lib/languages/kotlin';
import less from 'highlight.js/lib/languages/less';
import lua from 'highlight.js/lib/languages/lua';
import makefile from 'highlight.js/lib/languages/makefile';
import objectivec from 'highlight.js/lib/languages/objectivec';
import perl from 'highlight.js/lib/languages/perl';
import php from 'highlight.js/lib/languages/php';
import phpTemplate from 'highlight.js/lib/languages/php-template';
import pythonRepl from 'highlight.js/lib/languages/python-repl';
import r from 'highlight.js/lib/languages/r';
import ruby from 'highlight.js/lib/languages/ruby';
import scss from 'highlight.js/lib/languages/scss';
import swift from 'highlight.js/lib/languages/swift';
import vbnet from 'highlight.js/lib/languages/vbnet';
import wasm from 'highlight.js/lib/languages/wasm';

const MORE: Record<string, LanguageFn> = {
  c, cpp, csharp, css, go, graphql, ini, java, kotlin, less, lua, makefile, objectivec, perl, php,
  'php-template': phpTemplate, 'python-repl': pythonRepl, r, ruby, scss, swift, vbnet, wasm,
};

/** Registers the remaining languages into `hljs`. */
export function registerMore(hljs: HLJSApi): void {
  for (const [name, language] of Object.entries(MORE)) hljs.registerLanguage(name, language);
}
