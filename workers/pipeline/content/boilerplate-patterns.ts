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
      'author-?(?:bio|box|info|card|profile)',
      'about-?(?:the-)?author',
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
  /(?:^|[^a-z0-9])(?:comments?|comment-?(?:list|form|area|section|respond|wrapper|count|link|s-area|s-section|box|body|content|text)|commentlist|disqus\w*|respond|replies|cookies?\w*|consent\w*|gdpr\w*|onetrust\w*|usercentrics|cc-(?:window|banner))(?:$|[^a-z0-9])/;

const RELATED_WORDS =
  /(?:^|[^a-z0-9])(?:related\w*|recommend\w*|read-?more|more-?(?:stories|articles|news|posts)|also-?read|teaser\w*|yarpp\w*|jp-relatedposts|crp_related|trending|most-?(?:read|popular|viewed)|popular-?posts|further-?reading|see-?also|next-?post|prev(?:ious)?-?post)(?:$|[^a-z0-9])/;

const LIKELY_JUNK_WORDS =
  /(?:^|[^a-z0-9])(?:header|banner|meta|byline|date|links|rail|aside|extra|utility|tools|actions|feedback|rating|shop|related-?\w*|author|widget\w*)(?:$|[^a-z0-9])/;

const CONTENT_WORDS =
  /(?:^|[^a-z0-9])(?:article\w*|content\w*|entry\w*|post-?(?:body|content|text|entry)|story\w*|main\w*|text|body|blog-?post|hentry|page-?content|single|prose|markdown-body|rich-?text|td-post-content|field-?item|node-?content|news-?(?:text|content|body|article))(?:$|[^a-z0-9])/;

const FURNITURE_ROLES = /^(?:navigation|banner|contentinfo|complementary|search|dialog|alertdialog|menu|menubar|toolbar|tablist|alert)$/;

export function classifyAttributes(attribs: Record<string, string>): number {
  let hints = 0;
  const cls = attribs.class;
  const id = attribs.id;
  if (cls !== undefined || id !== undefined) {
    const names = `${cls ?? ''} ${id ?? ''}`.toLowerCase();
    if (JUNK_WORDS.test(names)) hints |= JUNK;
    if (DISCUSSION_WORDS.test(names)) hints |= DISCUSSION;
    if (RELATED_WORDS.test(names)) hints |= RELATED;
    if (LIKELY_JUNK_WORDS.test(names)) hints |= LIKELY_JUNK;
    if (CONTENT_WORDS.test(names)) hints |= CONTENT;
  }
  const itemprop = attribs.itemprop;
  if (itemprop !== undefined && /articlebody|text|reviewbody|description/i.test(itemprop)) hints |= itemprop.toLowerCase().includes('articlebody') ? ARTICLE_BODY : CONTENT;
  const role = attribs.role;
  if (role !== undefined) {
    const r = role.toLowerCase();
    if (r === 'main') hints |= ROLE_MAIN;
    else if (FURNITURE_ROLES.test(r)) hints |= ROLE_FURNITURE;
  }
  if (attribs['aria-hidden'] === 'true') hints |= ARIA_HIDDEN;
  return hints;
}
