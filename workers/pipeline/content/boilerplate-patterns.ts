/**
 * What an element's class, id, role and itemprop say about it, as bits. The
 * words are the ones sites actually use for their furniture and for their
 * article containers; they are matched as whole words of the names (split on
 * anything that is not a letter or digit) so `share-buttons` matches `share`
 * but `shareholder` does not.
 */
export const JUNK = 1;
/** Weaker signs of furniture, outweighed by a content word on the same element. */
export const LIKELY_JUNK = 2;
export const CONTENT = 4;
/** itemprop=articleBody and the like: the strongest sign of the article. */
export const ARTICLE_BODY = 8;
export const ROLE_MAIN = 16;
/** role=navigation, banner, contentinfo ... */
export const ROLE_FURNITURE = 32;
export const ARIA_HIDDEN = 64;
/** Blocks that point elsewhere: related posts, "read more", teasers. */
export const RELATED = 128;
/** Comment sections and consent banners: furniture however much text they hold. */
export const DISCUSSION = 256;
/** Image captions and credits: they describe a picture, not the article. */
export const CAPTION = 512;
/** Author boxes and bylines: about the writer, not the subject. */
export const AUTHOR = 1024;

const JUNK_WORDS = new RegExp(
  '(?:^|[^a-z0-9])(?:' +
    [
      'share\\w*',
      'sharing',
      'sharedaddy',
      'social\\w*',
      'sociable',
      'addthis\\w*',
      'shariff\\w*',
      'a2a\\w*',
      'newsletter\\w*',
      'subscribe\\w*',
      'subscription\\w*',
      'signup',
      'sign-up',
      'advert\\w*',
      'ads?',
      'ad-?(?:slot|unit|container|wrapper|box|banner|block)\\w*',
      'adsense',
      'dfp\\w*',
      'gpt-ad\\w*',
      'sponsor\\w*',
      'promo\\w*',
      'cta\\w*',
      'twitter-tweet\\w*',
      'instagram-media\\w*',
      'tiktok-embed',
      'outbrain\\w*',
      'taboola\\w*',
      'breadcrumbs?',
      'breadcrumb\\w*',
      'pagination',
      'pager',
      'skip-?link\\w*',
      'screen-reader-text',
      'sr-only',
      'visually-?hidden',
      'print-only',
      'popup\\w*',
      'modal\\w*',
      'overlay',
      'navbar\\w*',
      'nav',
      'navigation',
      'menu\\w*',
      'site-?(?:header|footer|nav|navigation|menu|branding)',
      'masthead',
      'footer\\w*',
      'sidebar\\w*',
      'side-bar',
      'disclaimer\\w*',
      'affiliate\\w*',
      'post-?(?:tags|categories|navigation|nav)',
      'tag-?(?:list|cloud|links)',
      'tags',
      'nav-links',
      'print',
      'toolbar',
      'login',
      'hidden',
      'hide',
      'd-none',
    ].join('|') +
    ')(?:$|[^a-z0-9])',
);

const DISCUSSION_WORDS =
  /(?:^|[^a-z0-9])(?:comments?|comment-?(?:list|form|area|section|respond|wrapper|count|link|s-area|s-section|box|body|content|text)|commentlist|kommentar\w*|commentaires?|comentarios?|reacties|disqus\w*|respond|replies|cookies?\w*|consent\w*|gdpr\w*|onetrust\w*|usercentrics|cc-(?:window|banner))(?:$|[^a-z0-9])/;

const RELATED_WORDS =
  /(?:^|[^a-z0-9])(?:related\w*|recommend\w*|read-?more|more-?(?:stories|articles|news|posts)|also-?read|teaser\w*|yarpp\w*|jp-relatedposts|crp_related|trending|most-?(?:read|popular|viewed)|popular-?posts|further-?reading|see-?also|next-?post|prev(?:ious)?-?post)(?:$|[^a-z0-9])/;

const LIKELY_JUNK_WORDS =
  /(?:^|[^a-z0-9])(?:header|banner|meta|byline|date|links|rail|aside|extra|utility|tools|actions|feedback|ratings?|votes?|voting|polls?|shop|related-?\w*|widget\w*)(?:$|[^a-z0-9])/;

const AUTHOR_WORDS = /(?:^|[^a-z0-9])(?:author\w*|autor\w*|byline\w*|contributor\w*|about-?(?:the-)?author|bio|biography|saboxplugin\w*)(?:$|[^a-z0-9])/;

const CAPTION_WORDS =
  /(?:^|[^a-z0-9])(?:(?:fig|wp-|image-?|img-?|photo-?|media-?)?captions?\w*|(?:image-?|img-?|photo-?|media-?)?credits?|(?:image|img|photo|foto|bild)-?(?:source|quelle|nachweis)|copyright|legend|legende|bildunterschrift|bildnachweis)(?:$|[^a-z0-9])/;

const CONTENT_WORDS =
  /(?:^|[^a-z0-9])(?:article\w*|content\w*|entry\w*|post-?(?:body|content|text|entry)|story\w*|main\w*|text|body|blog-?post|hentry|page-?content|single|prose|markdown-body|rich-?text|td-post-content|field-?item|node-?content|news-?(?:text|content|body|article))(?:$|[^a-z0-9])/;

const FURNITURE_ROLES = /^(?:navigation|banner|contentinfo|complementary|search|dialog|alertdialog|menu|menubar|toolbar|tablist|alert)$/;

const CLASS_WORD_LISTS = [JUNK_WORDS, DISCUSSION_WORDS, RELATED_WORDS, CAPTION_WORDS, AUTHOR_WORDS, LIKELY_JUNK_WORDS, CONTENT_WORDS];
const WORD_START = '(?:^|[^a-z0-9])';
const WORD_END = '(?:$|[^a-z0-9])';

/** The alternation of words inside a list's boundaries. */
function wordsOf(list: RegExp): string {
  const source = list.source;
  if (!source.startsWith(WORD_START) || !source.endsWith(WORD_END)) throw new Error(`class word list without word boundaries: ${source}`);
  return source.slice(WORD_START.length, source.length - WORD_END.length);
}

/**
 * Every list at once: most class names (`row`, `col-md-6`) hold none of the
 * words, and one test tells. One pair of boundaries around all the words, so
 * a position in the name is tried once rather than once per list.
 */
const ANY_CLASS_WORD = new RegExp(`${WORD_START}(?:${CLASS_WORD_LISTS.map(wordsOf).join('|')})${WORD_END}`);

// Sticky copies, tried at one position each.
const CONTENT_WORDS_AT = new RegExp(CONTENT_WORDS.source, 'y');
const FURNITURE_WORDS_AT = CLASS_WORD_LISTS.filter((words) => words !== CONTENT_WORDS).map((words) => new RegExp(words.source, 'y'));

/** Whether a character code is one a match cannot start at (inside a word: a-z, 0-9). */
const inWord = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);

/**
 * Where the match of `words` (a sticky pattern) that starts last in `name`
 * ends, or -1. Matches may share their boundary character. A match starts at
 * the name's start or at a character outside a-z and 0-9 (its leading
 * boundary), so those positions are tried from the end and the first that
 * matches is the answer: one failed try costs a word's length. Scanning
 * forward from each match's start instead read a long run of words again
 * from every one of them (4 s on a 256 KB class name).
 */
function lastMatchEnd(words: RegExp, name: string): number {
  for (let at = name.length - 1; at >= 0; at--) {
    if (at > 0 && inWord(name.charCodeAt(at))) continue;
    words.lastIndex = at;
    const m = words.exec(name);
    if (m !== null) return at + m[0].length;
  }
  return -1;
}

/**
 * A compound name is about its last word: `entry__date`, `article-meta`,
 * `content-rating` are parts of an entry, an article and some content, not
 * the content itself, while `entry-content` and `post__body` are. A content
 * word counts only in a name where no furniture word follows it.
 */
function namesContent(names: string): boolean {
  for (const name of names.split(' ')) {
    const content = lastMatchEnd(CONTENT_WORDS_AT, name);
    if (content < 0) continue;
    let furniture = -1;
    for (const words of FURNITURE_WORDS_AT) furniture = Math.max(furniture, lastMatchEnd(words, name));
    if (content > furniture) return true;
  }
  return false;
}

const SPACES = /\s+/;

/** The words of a class list or an id as written, each of its names read once per page through `names`. */
function writtenHints(written: string, names: Map<string, number> | undefined): number {
  const known = names?.get(written);
  if (known !== undefined) return known;
  let hints = 0;
  const parts = written.split(SPACES);
  if (parts.length === 1) hints = nameHints(written);
  else {
    for (const name of parts) {
      if (name.length === 0) continue;
      let one = names?.get(name);
      if (one === undefined) {
        one = nameHints(name);
        names?.set(name, one);
      }
      hints |= one;
    }
  }
  names?.set(written, hints);
  return hints;
}

/** The words of one class name or id. */
function nameHints(name: string): number {
  // camelCase names split like kebab-case ones: `articleMeta` reads as `article-meta`.
  const lower = name.toLowerCase();
  // Most names are lower case already, and the split is only needed for one that is not.
  const words = lower === name ? name : name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  return ANY_CLASS_WORD.test(words) ? classWords(words) : 0;
}

function classWords(names: string): number {
  let hints = 0;
  if (JUNK_WORDS.test(names)) hints |= JUNK;
  if (DISCUSSION_WORDS.test(names)) hints |= DISCUSSION;
  if (RELATED_WORDS.test(names)) hints |= RELATED;
  if (CAPTION_WORDS.test(names)) hints |= CAPTION;
  if (AUTHOR_WORDS.test(names)) hints |= AUTHOR;
  if (LIKELY_JUNK_WORDS.test(names)) hints |= LIKELY_JUNK;
  if (CONTENT_WORDS.test(names) && (hints === 0 || namesContent(names.replace(/\s+/g, ' ')))) hints |= CONTENT;
  return hints;
}

/**
 * `names` caches the class and id words by the names as written: a page
 * repeats its class names (`menu-item`, `col-md-6`) far more often than it
 * has different ones, and each one is read once. No word spans a space, so
 * the words of a class list are those of its names, each looked up alone:
 * a new combination of known names (`menu-item menu-item-4926`) costs the
 * patterns only its new name.
 */
export function classifyAttributes(attribs: Record<string, string>, names?: Map<string, number>): number {
  let hints = 0;
  // One pass over the element's own attributes (one or two on most elements) rather than a lookup per name read:
  // attribute objects come in as many shapes as the page has attribute sets, and each lookup of a name it lacks is slow.
  for (const name in attribs) {
    const value = attribs[name]!;
    switch (name) {
      case 'class':
        hints |= writtenHints(value, names);
        break;
      case 'id':
        // Ids are unique on a page, so they are read without the cache: storing them would only grow it.
        hints |= writtenHints(value, undefined);
        break;
      case 'itemprop':
        if (/articlebody|text|reviewbody|description/i.test(value)) hints |= value.toLowerCase().includes('articlebody') ? ARTICLE_BODY : CONTENT;
        break;
      case 'role': {
        const r = value.toLowerCase();
        if (r === 'main') hints |= ROLE_MAIN;
        else if (FURNITURE_ROLES.test(r)) hints |= ROLE_FURNITURE;
        break;
      }
      case 'aria-hidden':
        if (value === 'true') hints |= ARIA_HIDDEN;
        break;
    }
  }
  return hints;
}
