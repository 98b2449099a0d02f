import { visibleChars, type Tape } from './html-tape.js';
import { BLOCK, VOID } from './tag-kinds.js';
import { walkSelection } from './tape-walk.js';

/**
 * Lines inside the article that are furniture by what they say, not by how
 * they are marked up: the share, subscribe, follow and comment prompts, the
 * "more on this topic" titles, date lines, disclaimers and the source and
 * photo credits that sites write as ordinary paragraphs and headings. Phrases
 * are the stock ones of such prompts in English, German, French, Spanish,
 * Italian and Dutch, matched against the whole line, which must be short: a
 * sentence of the article that happens to use one of the words is longer.
 * See docs/decisions/0019-main-content-blocks.md.
 */

/** Non-space characters a block may hold and still be read as a prompt or a credit line. */
const MAX_LINE_CHARS = 120;
/** Captions with a credit at their end are longer than a bare credit line, but not by much. */
const MAX_CAPTION_CHARS = 160;
/** Prompts longer than this that hold a clause and end a sentence read as prose. */
const MAX_PROMPT_SENTENCE_CHARS = 60;
/** A credit naming only an agency (no "Photo:" label) is shorter still. */
const MAX_AGENCY_LINE_CHARS = 60;

/** Offers: subscribe, register, become a member, follow; they come in boxes of their own. */
const OFFERS = new RegExp(
  [
    '\\bnewsletter\\b',
    '\\babonn(?:ieren|iere|ement|ez-vous)\\b',
    '\\bsubscribe\\b',
    '\\bsign up\\b',
    '\\bsuscr[ií]b',
    '\\bsolo para suscriptores\\b',
    '^(?:jetzt )?(?:registrieren|anmelden)\\b',
    '\\bh(?:azte|[aá]gase) (?:miembro|socio)\\b',
    '\\bdevenez membre\\b',
    '\\bbecome a member\\b',
    '\\bwerde(?:n sie)? (?:jetzt )?mitglied\\b',
    '\\bfolg(?:e|t|en sie) uns\\b',
    '\\bfollow us\\b',
    '\\bs[ií]guenos\\b',
    '\\bsuivez-nous\\b',
    '\\bseguici\\b',
    '\\b(?:canal|kanal|channel) (?:de |auf |on )?(?:telegram|whatsapp|youtube)\\b',
    '\\b(?:telegram|whatsapp|youtube)[- ](?:kanal|channel|canal)\\b',
    '\\bdownload (?:the|our) (?:[\\w-]+ ){0,3}apps?\\b',
    '\\bstraight to your (?:phone|inbox)\\b',
    '^follow (?:[\\w.@-]+ ){1,3}on (?:twitter|facebook|instagram|linkedin|tiktok|youtube)\\b',
  ].join('|'),
  '',
);

const PROMPTS = new RegExp(
  [
    // Share.
    '^(?:diese[nrs]? (?:artikel|beitrag|seite) )?(?:teilen|weiterempfehlen)\\b',
    '\\b(?:artikel|beitrag|seite) teilen\\b',
    'dann teilen sie',
    '^(?:share|compartir|partager|condividi|delen)\\b',
    '\\bshare (?:this|on|via|to)\\b',
    '^(?:compartir|partager) (?:nota|cet article|este art[ií]culo|la noticia)',
    // Comment prompts and counts.
    '\\bkommentar(?:e)? (?:schreiben|verfassen|hinzuf[uü]gen|abgeben)\\b',
    '\\bschreibe(?:n sie)? einen kommentar\\b',
    '\\bkeine kommentare\\b',
    '\\bleave a (?:comment|reply)\\b',
    '\\bno comments(?: yet)?\\b',
    '\\bthere are no comments\\b',
    '\\b(?:publier|laisser|ajouter) un commentaire\\b',
    '\\bvotre commentaire\\b',
    '\\b(?:deja|dejar|escribe) (?:un|tu) comentario\\b',
    '^comentar\\b',
    '\\blascia un commento\\b',
    '\\bum (?:einen )?kommentare? (?:zu )?(?:schreiben|verfassen)\\b',
    '\\bmust be logged in to (?:post a )?comment\\b',
    // Related content titles.
    '\\bmehr zum thema\\b',
    '\\bmehr themen\\b',
    '\\b(?:das|dies) k[oö]nnte (?:sie|dich) (?:auch )?interessieren\\b',
    '^auch interessant\\b',
    '^lesen sie (?:auch|mehr)\\b',
    '^weitere (?:artikel|beitr[aä]ge|themen|nachrichten|meldungen|news)\\b',
    '^(?:related|similar) (?:articles|posts|stories|content)\\b',
    '^you (?:may|might) also like\\b',
    '^more (?:from|on|stories|articles)\\b',
    '\\bte puede interesar\\b',
    '^zum weiterlesen\\b',
    '^(?:vorschau auf den )?(?:vorherige[nr]?|n[aä]chste[nr]?) (?:artikel|beitrag)\\b',
    '^(?:previous|next) (?:article|post|story)\\b',
    '^(?:lee|lea) tambi[eé]n\\b',
    '^(?:[aà] lire aussi|sur le m[eê]me sujet|lire aussi)\\b',
    '^leggi anche\\b',
    '^lees ook\\b',
    // Back links, print and download actions.
    '^zur[uü]ck(?: zu[rm]?)?(?: (?:listenansicht|[uü]bersicht|startseite|lexikon))?$',
    '^back to\\b',
    '^hier geht(?: es|\'s) (?:zu[rm]?|weiter)\\b',
    '^(?:drucken|print|imprimir|imprimer)(?: (?:this|recipe|page|artikel|seite))?$',
    '^(?:permalink|permalien)(?:\\s*[:：]?\\s*https?://\\S+)?$',
    // Contact labels of a press release.
    '^(?:presse)?kontakt\\s*[:：]?$',
    '^ansprechpartner(?:in|\\*in|innen)?(?: zum thema)?\\s*[:：]?$',
    '^(?:media|press) contacts?\\s*[:：]?$',
    // A figure's caption.
    '^(?:abbildung|abb\\.|figure|fig\\.)\\s*\\d*\\s*[:：]',
    // Where the article is filed.
    '^(?:kategorien?|categor(?:y|ies)|cat[eé]gor(?:ie|ía)s?|rubrik|filed under|tags|schlagw[oö]rter|stichw[oö]rter)\\s*[:：]',
    '\\bals pdf herunterladen\\b',
    '\\bdownload (?:as )?pdf\\b',
    // Audio versions and letters to the editor.
    '^(?:escucha|escuche) (?:esta|la) (?:nota|noticia)\\b',
    '^listen to (?:this|the) (?:article|story)\\b',
    '\\bsubmit (?:your|a) letter\\b',
    // Advertising disclosures.
    '\\b(?:dieser|der) (?:beitrag|artikel|post) enth[aä]lt (?:werbung|affiliate)',
    '\\bthis (?:post|article) (?:contains|may contain) affiliate links\\b',
    // Reader feedback prompts.
    '\\bhat ihnen (?:dieser|der) (?:artikel|beitrag) gefallen\\b',
    '\\bwar (?:dieser|der) (?:artikel|beitrag) (?:hilfreich|n[uü]tzlich)\\b',
    '\\bwas this (?:article |page )?helpful\\b',
  ].join('|'),
  '',
);

/** "Photo: …", "Quelle: …", "© …": who made the picture or where the text came from. */
const CREDIT_LABEL =
  /^(?:©|\(c\)|copyright\b|(?:foto|fotos|bild|bilder|bildquelle|titelbild|titelfoto|quelle|quellen|source|sources|photo|photos|image|images|credit|credits|cr[eé]dit|cr[eé]dits|fuente|fuentes|fonte|fotograf[ií]a)\s*[:：])/;
/** Picture agencies and stock libraries named alone on a short line under a picture. */
const AGENCY = /\b(?:getty ?images|shutterstock|istock(?:photo)?|imago|picture[ -]alliance|unsplash|pixabay|adobe ?stock|fotolia|dpa|afp|reuters|ap photo)\b/;
/** A caption ending in its credit: "… in 1975. | © Agency", "… (Foto: Agency)". */
const CREDIT_TAIL = /(?:©|\(c\)|\b(?:foto|fotos|photo|photos|bild|bildquelle|credit|cr[eé]dit)\s*[:：])[^.!?:：©]{1,60}\)?$/;
/** "Published on 4 May 2022", "Veröffentlichung: 12.05.2022": the date line of the article, not its text. */
const DATELINE =
  /^(?:ver[öo]ffentlicht(?: am)?|ver[öo]ffentlichung|erschienen(?: am)?|aktualisiert(?: am)?|zuletzt (?:aktualisiert|ge[äa]ndert)|published(?: on)?|posted(?: on)?|last updated|updated(?: on)?|publi[ée](?: le)?|mis [àa] jour(?: le)?|publicado(?: el)?|actualizado(?: el)?|pubblicato(?: il)?|gepubliceerd(?: op)?)\s*[:：]?\s*[^.!?]{0,40}\d[^!?]{0,30}$/;
const MONTH =
  '(?:jan(?:uary|uar|vier)?|feb(?:ruary|ruar|rero|braio)?|f[ée]v(?:rier)?|m[aä]r(?:ch|z|s)?|mrt|maart|apr(?:il|ile)?|avr(?:il)?|abr(?:il)?|ma[iyj]|mayo|maggio|mei|jun[ei]?|juin|giugno|jul[iy]?|juil(?:let)?|luglio|aug(?:ust|ustus)?|ao[uû]t|agosto|sep(?:t|tember|tembre|tiembre)?|settembre|o[ck]t(?:ober|obre|ubre)?|nov(?:ember|embre)?|de[cz](?:ember|embre)?|dic(?:iembre|embre)?|d[ée]c(?:embre)?|ene(?:ro)?|gennaio|marzo|aprile|ottobre)\\.?';
const WEEKDAY =
  '(?:mon|tue|wed|thu|fri|sat|sun|mo|di|mi|do|fr|sa|so|lun|mar|mer|mié|jeu|jue|ven|vie|sáb|sab|dom|ma|wo|vr|za|zo)[a-zäéèíóú]*\\.?,?';
/** A line that is nothing but a date, perhaps with its weekday and time: "12.05.2022, 08:30 Uhr", "Mon, May 4th 2022". */
const DATE_ONLY = new RegExp(
  `^(?:${WEEKDAY} )?(?:\\d{1,2}[./-]\\d{1,2}[./-](?:\\d{4}|\\d{2})|\\d{4}-\\d{2}-\\d{2}|\\d{1,2}(?:\\.|st|nd|rd|th|er)? (?:de )?${MONTH},? (?:de )?\\d{4}|${MONTH} \\d{1,2}(?:st|nd|rd|th)?,? \\d{4})(?:,? (?:um |at |à |a las |alle |om )?\\d{1,2}[:.h]\\d{2}(?: ?(?:uhr|h|am|pm))?)?$`,
);
const DISCLAIMER = /^(?:(?:alle )?angaben ohne gew[aä]hr|(?:all )?(?:information|details) without (?:guarantee|warranty)|sans garantie|sin garant[ií]a|senza garanzia|zonder garantie)\b/;

/** Every pattern at once: most lines match none, and one test tells. */
const ANY_LINE = new RegExp([OFFERS, PROMPTS, CREDIT_LABEL, DATELINE, DATE_ONLY, DISCLAIMER, AGENCY, CREDIT_TAIL].map((words) => `(?:${words.source})`).join('|'));
const LEADING_MARKS = /^[([«„“"]+\s*/;
const TRAILING_MARKS = /\s*[)\]»“”"]+$/;

/** What a line of the content is, if it is not content. */
export const enum LineKind {
  Content = 0,
  /** A prompt, a credit or date line, a credited caption, a disclaimer: the line goes. */
  Furniture = 1,
  /** An offer to subscribe, register or follow: the small box around it goes too. */
  Offer = 2,
  /** A picture credit: the caption box it closes goes too when it sits beside the picture. */
  Credit = 3,
  /** Nothing but a date: the article's date line, unless it is an item of a list or a cell of a table. */
  Date = 4,
}

/** What a line of text is: content, a prompt, a credit or date line, a credited caption, a disclaimer or an offer. */
export function classifyLine(text: string, length = visibleChars(text)): LineKind {
  if (length === 0) return LineKind.Content;
  // A line set in brackets or quotes reads the same without them: "(Foto: dpa)", "(Alle Angaben ohne Gewähr)".
  const line = text.replace(/\s+/g, ' ').trim().replace(LEADING_MARKS, '').replace(TRAILING_MARKS, '').toLowerCase();
  if (!ANY_LINE.test(line)) return LineKind.Content;
  if (length <= MAX_LINE_CHARS) {
    if (CREDIT_LABEL.test(line)) return LineKind.Credit;
    // A longer sentence with a clause in it is prose that happens to use a prompt's words ("… send a newsletter to every household, and …").
    const prose = length > MAX_PROMPT_SENTENCE_CHARS && line.includes(',') && /[.!?]$/.test(line);
    if (!prose && OFFERS.test(line)) return LineKind.Offer;
    if (!prose && PROMPTS.test(line)) return LineKind.Furniture;
    if (DATELINE.test(line) || DISCLAIMER.test(line)) return LineKind.Furniture;
    if (DATE_ONLY.test(line)) return LineKind.Date;
  }
  if (length <= MAX_AGENCY_LINE_CHARS && AGENCY.test(line) && !/[.!?]$/.test(line)) return LineKind.Credit;
  return length <= MAX_CAPTION_CHARS && CREDIT_TAIL.test(line) ? LineKind.Credit : LineKind.Content;
}

/** Items and cells: a date in them is data (a list of events, a column of a table), not the article's date line. */
const DATA_BLOCKS = new Set(['li', 'td', 'th', 'dd', 'dt', 'caption']);

function ownLine(block: string, what: LineKind): LineKind {
  return what === LineKind.Date && DATA_BLOCKS.has(block) ? LineKind.Content : what;
}

/** Inline elements of one line that are followed, to cut the line out of a longer block. */
const MAX_LINE_ELEMENTS = 8;
/** Text an offer's box may hold: a title, a sentence of pitch, a button. */
const MAX_OFFER_BOX_CHARS = 500;
const OFFER_BOX_LEVELS = 3;

/** The text of a block outside its child blocks, and of its current line (up to a line break or a child block). */
interface BlockFrame {
  id: number;
  text: string;
  textChars: number;
  line: string;
  lineChars: number;
  /** Inline elements directly in the block on the current line; undefined once there are too many to follow. */
  lineElements: number[] | undefined;
  /** Whether the current line has text directly in the block, outside any element (it cannot be cut alone). */
  lineBare: boolean;
}

/**
 * Cuts the lines of the kept content that read as prompts, credits or
 * offers, in one replay of the kept tape. A short block whose own text
 * matches goes whole; in a longer block, a line (the inline elements between
 * line breaks and child blocks: a "back to the list" link after the last
 * paragraph, a share prompt beside its buttons) goes by its elements. An
 * offer takes its small box with it. Text is gathered only while it is short
 * enough to be a line, so the work is linear in the page. Credits and the
 * captions they close are marked in `caption`.
 */
export function dropBoilerplateLines(tape: Tape, root: number, removed: Uint8Array, caption: Uint8Array): void {
  const { kind, chars, parent, tag } = tape;
  const frames: BlockFrame[] = [];
  // Open elements of the replay, innermost last: text whose innermost element is the block itself is bare.
  const elements: number[] = [];
  const cut = (id: number, what: LineKind): void => {
    const box = what === LineKind.Offer ? offerBox(tape, id, root) : what === LineKind.Credit ? captionBox(tape, id, root) : id;
    removed[box] = 1;
    // A cut caption's words are kept out of the alt text of its picture too.
    if (what === LineKind.Credit) caption[box] = 1;
  };

  const endLine = (frame: BlockFrame): void => {
    if (frame.lineChars > 0 && frame.lineChars <= MAX_CAPTION_CHARS && !frame.lineBare && frame.lineElements !== undefined) {
      const what = ownLine(tag[frame.id]!, classifyLine(frame.line, frame.lineChars));
      if (what !== LineKind.Content) {
        for (const id of frame.lineElements) removed[id] = 1;
        if (what === LineKind.Offer && chars[frame.id]! <= MAX_OFFER_BOX_CHARS) cut(frame.id, what);
      }
    }
    frame.line = '';
    frame.lineChars = 0;
    frame.lineElements = [];
    frame.lineBare = false;
  };
  walkSelection(tape, { root, removed }, {
    open(index) {
      elements.push(index);
      if (index === root) return;
      const frame = frames[frames.length - 1];
      if (kind[index]! & BLOCK && !(kind[index]! & VOID)) {
        if (frame !== undefined) endLine(frame);
        frames.push({ id: index, text: '', textChars: 0, line: '', lineChars: 0, lineElements: [], lineBare: false });
      } else if (frame !== undefined && parent[index] === frame.id) {
        if (tag[index] === 'br') endLine(frame);
        else if (frame.lineElements !== undefined) {
          if (frame.lineElements.length < MAX_LINE_ELEMENTS) frame.lineElements.push(index);
          else frame.lineElements = undefined;
        }
      }
    },
    close(index) {
      elements.pop();
      const frame = frames[frames.length - 1];
      if (frame?.id !== index) return;
      frames.pop();
      const what = frame.textChars > 0 && frame.textChars <= MAX_CAPTION_CHARS ? ownLine(tag[index]!, classifyLine(frame.text, frame.textChars)) : LineKind.Content;
      if (what !== LineKind.Content && chars[index]! <= MAX_CAPTION_CHARS) cut(index, what);
      else endLine(frame);
    },
    text(text) {
      const frame = frames[frames.length - 1];
      if (frame === undefined || (frame.textChars > MAX_CAPTION_CHARS && frame.lineChars > MAX_CAPTION_CHARS)) return;
      const visible = visibleChars(text);
      if (visible === 0) return;
      if (frame.textChars <= MAX_CAPTION_CHARS) {
        frame.text += text;
        frame.textChars += visible;
      }
      if (frame.lineChars <= MAX_CAPTION_CHARS) {
        frame.line += text;
        frame.lineChars += visible;
      }
      if (elements[elements.length - 1] === frame.id) frame.lineBare = true;
    },
  });
}

const LISTS = new Set(['ul', 'ol', 'dl', 'table', 'tbody']);

/** The small box an offer sits in: up to three levels up, while it stays short, a small part of the content, and no list. */
function offerBox(tape: Tape, id: number, root: number): number {
  const { parent, chars, tag } = tape;
  let box = id;
  for (let level = 0; level < OFFER_BOX_LEVELS; level++) {
    const p = parent[box]!;
    // A list's items are each their own: an offer set in one item is no box around the others.
    if (p === root || p < 0 || chars[p]! > MAX_OFFER_BOX_CHARS || chars[p]! * 3 > chars[root]! || LISTS.has(tag[p]!)) break;
    box = p;
  }
  return box;
}

/** Text a caption box (title, caption, credit) may hold. */
const MAX_CAPTION_BOX_CHARS = 250;
const CAPTION_BOX_LEVELS = 2;
/** Tape events looked through for the picture beside a caption. */
const MAX_FIGURE_OPS = 400;

/**
 * The caption a credit closes: the largest short block above the credit that
 * holds no picture itself while the block around it does (a title, a
 * caption and a credit set under a picture). Without a picture beside it, the
 * credit goes alone.
 */
function captionBox(tape: Tape, id: number, root: number): number {
  const { parent, chars } = tape;
  let box = id;
  for (let level = 0; level < CAPTION_BOX_LEVELS; level++) {
    const p = parent[box]!;
    if (p === root || p < 0 || chars[p]! > MAX_CAPTION_BOX_CHARS || holdsPicture(tape, p) !== false) break;
    box = p;
  }
  return box !== id && holdsPicture(tape, parent[box]!) === true ? box : id;
}

/** Whether a small subtree holds an image; undefined when it is too big to look through. */
function holdsPicture(tape: Tape, id: number): boolean | undefined {
  if (id < 0 || tape.closeAt[id]! - tape.openAt[id]! > MAX_FIGURE_OPS) return undefined;
  for (let i = tape.openAt[id]! + 1; i < tape.closeAt[id]!; i++) {
    const op = tape.ops[i]!;
    if ((op & 3) === 0 && tape.tag[op >> 2] === 'img') return true;
  }
  return false;
}
