/**
 * The language of a code block from the conventions highlighters write into
 * class names: `language-x` (HTML spec, Prism, highlight.js), `lang-x`
 * (prettify), `highlight-x` / `highlight-source-x` (Sphinx, GitHub),
 * `brush: x` (SyntaxHighlighter), and `data-lang` / `data-language`.
 */
const CLASS_LANGUAGE = /(?:^|\s)(?:language-|lang-|highlight-source-|highlight-|brush:\s*)([A-Za-z0-9_+#.-]+)/;
const NOT_LANGUAGES = new Set(['none', 'plaintext', 'text', 'nohighlight', 'plain', 'notranslate', 'default']);

export function codeLanguage(attribs: Record<string, string>): string {
  const data = attribs['data-lang'] ?? attribs['data-language'];
  if (data !== undefined && /^[A-Za-z0-9_+#.-]+$/.test(data)) return clean(data);
  const cls = attribs.class;
  if (cls === undefined) return '';
  const match = CLASS_LANGUAGE.exec(cls);
  return match ? clean(match[1]!) : '';
}

function clean(language: string): string {
  const lower = language.toLowerCase();
  return NOT_LANGUAGES.has(lower) ? '' : lower;
}
