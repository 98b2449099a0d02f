/**
 * What the converters need to know about an HTML tag, as bit flags so a node's
 * kind is one integer looked up once, when the tag opens.
 */
export const BLOCK = 1;
/** Its content is never rendered: skipped while parsing, in every mode. */
export const SKIP = 2;
/** Form controls and embeds: dropped in every mode, but only after parsing (they can hold text that is not content). */
export const CONTROL = 4;
/** Site furniture by its tag alone (nav, aside, footer ...): dropped from the main content. */
export const FURNITURE = 8;
/** A text block of its own for scoring: text directly inside it is one paragraph. */
export const PARAGRAPH = 16;
export const HEADING = 32;
export const VOID = 64;
/** Semantic containers that usually hold the article. */
export const CONTAINER = 128;
/**
 * Content for browsers without scripts (noscript): recorded for main-content
 * selection only, outside the text statistics of its ancestors, and used only
 * when the page shows next to nothing else (a script-rendered blog whose post
 * is in its noscript fallback).
 */
export const FALLBACK = 256;

const kinds = new Map<string, number>();

function add(flags: number, names: string): void {
  for (const name of names.split(' ')) kinds.set(name, (kinds.get(name) ?? 0) | flags);
}

add(
  BLOCK,
  'address article aside blockquote body center dd details dialog dir div dl dt fieldset figcaption figure footer form ' +
    'h1 h2 h3 h4 h5 h6 header hgroup hr html legend li main menu nav ol p pre section summary table tbody td ' +
    'tfoot th thead tr ul caption',
);
add(SKIP, 'script style template noscript svg math title iframe object embed frameset frame noembed canvas audio video map');
add(CONTROL, 'input select option optgroup textarea button datalist output progress meter keygen');
add(FURNITURE, 'nav aside footer header menu dialog');
add(PARAGRAPH, 'p pre td th li dd dt blockquote figcaption caption summary h1 h2 h3 h4 h5 h6 address div section article main center');
add(HEADING, 'h1 h2 h3 h4 h5 h6');
add(VOID, 'area base basefont br col command embed frame hr img input isindex keygen link meta param source track wbr');
add(CONTAINER, 'article main');

export function tagKind(name: string): number {
  return kinds.get(name) ?? 0;
}
