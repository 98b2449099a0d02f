import type { Tape } from './html-tape.js';
import { BLOCK, CONTROL, VOID } from './tag-kinds.js';

/**
 * Short blocks inside the article that are furniture by what they say, not
 * by how they are marked up: the share, subscribe, follow and comment prompts
 * and the "more on this topic" titles that sites write as ordinary
 * paragraphs and headings, and the source and photo credit lines under the
 * text. Phrases are the stock ones of such prompts in English, German,
 * French, Spanish, Italian and Dutch, matched against the whole block, which
 * must be short: a sentence of the article that happens to use one of the
 * words is longer than a prompt.
 */

/** Non-space characters a block may hold and still be read as a prompt or a credit line. */
const MAX_LINE_CHARS = 120;
/** Captions with a credit at their end are longer than a bare credit line, but not by much. */
const MAX_CAPTION_CHARS = 160;
/** A credit naming only an agency (no "Photo:" label) is shorter still. */
const MAX_AGENCY_LINE_CHARS = 60;

const PROMPTS = new RegExp(
  [
    // Share.
    '^(?:diese[nrs]? (?:artikel|beitrag|seite) )?(?:teilen|weiterempfehlen)\\b',
    '\\b(?:artikel|beitrag|seite) teilen\\b',
    'dann teilen sie',
    '^(?:share|compartir|partager|condividi|delen)\\b',
    '\\bshare (?:this|on|via|to)\\b',
    '^(?:compartir|partager) (?:nota|cet article|este art[ií]culo|la noticia)',
    // Subscribe, register, become a member.
    '\\bnewsletter\\b',
    '\\babonn(?:ieren|iere|ement|ez-vous)\\b',
    '\\bsubscribe\\b',
    '\\bsign up\\b',
    '\\bsuscr[ií]b',
    '\\bsolo para suscriptores\\b',
    '^(?:jetzt )?(?:registrieren|anmelden)\\b',
    '\\bhazte (?:miembro|socio)\\b',
    '\\bdevenez membre\\b',
    '\\bbecome a member\\b',
    // Follow, messenger channels.
    '\\bfolg(?:e|t|en sie) uns\\b',
    '\\bfollow us\\b',
    '\\bs[ií]guenos\\b',
    '\\bsuivez-nous\\b',
    '\\bseguici\\b',
    '\\b(?:canal|kanal|channel) (?:de |auf |on )?(?:telegram|whatsapp)\\b',
    '\\b(?:telegram|whatsapp)[- ](?:kanal|channel|canal)\\b',
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
    '^(?:lee|lea) tambi[eé]n\\b',
    '^(?:[aà] lire aussi|sur le m[eê]me sujet|lire aussi)\\b',
    '^leggi anche\\b',
    '^lees ook\\b',
    // Back links, print and download actions.
    '^zur[uü]ck(?: zu[rm]?)?(?: (?:listenansicht|[uü]bersicht|startseite|lexikon))?$',
    '^back to\\b',
    '^(?:drucken|print|imprimir|imprimer)(?: (?:this|recipe|page|artikel|seite))?$',
    '^(?:permalink|permalien)$',
    '\\bals pdf herunterladen\\b',
    '\\bdownload (?:as )?pdf\\b',
    // Reader feedback prompts.
    '\\bhat ihnen (?:dieser|der) (?:artikel|beitrag) gefallen\\b',
    '\\bwar (?:dieser|der) (?:artikel|beitrag) (?:hilfreich|n[uü]tzlich)\\b',
    '\\bwas this (?:article |page )?helpful\\b',
  ].join('|'),
  'iu',
);

/** "Photo: …", "Quelle: …", "© …": who made the picture or where the text came from. */
const CREDIT_LABEL =
  /^(?:©|\(c\)|copyright\b|(?:foto|fotos|bild|bilder|bildquelle|titelbild|titelfoto|quelle|quellen|source|sources|photo|photos|image|images|credit|credits|cr[eé]dit|cr[eé]dits|fuente|fuentes|fonte|fotograf[ií]a)\s*[:：])/iu;
/** Picture agencies and stock libraries named alone on a short line under a picture. */
const AGENCY = /\b(?:getty ?images|shutterstock|istock(?:photo)?|imago|picture[ -]alliance|unsplash|pixabay|adobe ?stock|fotolia|dpa|afp|reuters|ap photo)\b/iu;
/** A caption ending in its credit: "… in 1975. | © Agency", "… (Foto: Agency)". */
const CREDIT_TAIL = /(?:©|\(c\)|\b(?:foto|fotos|photo|photos|bild|bildquelle|credit|cr[eé]dit)\s*[:：])[^.!?:：©]{1,60}\)?$/iu;
/** "Published on 4 May 2022", "Veröffentlichung: 12.05.2022": the date line of the article, not its text. */
const DATELINE =
  /^(?:ver[öo]ffentlicht(?: am)?|ver[öo]ffentlichung|erschienen(?: am)?|aktualisiert(?: am)?|zuletzt (?:aktualisiert|ge[äa]ndert)|published(?: on)?|posted(?: on)?|last updated|updated(?: on)?|publi[ée](?: le)?|mis [àa] jour(?: le)?|publicado(?: el)?|actualizado(?: el)?|pubblicato(?: il)?|gepubliceerd(?: op)?)\s*[:：]?\s*[^.!?]{0,40}\d[^!?]{0,30}$/iu;
const DISCLAIMER = /^(?:alle )?angaben ohne gew[aä]hr\b/iu;

/** Whether the whole text of a short block is a prompt, a credit or date line, a credited caption or a disclaimer. */
export function isBoilerplateLine(text: string): boolean {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line === '') return false;
  const length = line.replace(/\s/g, '').length;
  if (length <= MAX_LINE_CHARS && (PROMPTS.test(line) || CREDIT_LABEL.test(line) || DATELINE.test(line) || DISCLAIMER.test(line))) return true;
  if (length <= MAX_AGENCY_LINE_CHARS && AGENCY.test(line) && !/[.!?]$/.test(line)) return true;
  return CREDIT_TAIL.test(line);
}

/** Inline elements directly in a block that are followed, to cut a prompt line out of a longer block. */
const MAX_LINE_ELEMENTS = 8;

interface BlockFrame {
  id: number;
  /** Text directly in the block (not in a child block), while it is short enough to be a line. */
  text: string;
  textChars: number;
  /** Inline elements directly in the block; undefined once there are too many to follow. */
  inline: number[] | undefined;
  /** Whether text sits directly in the block, outside any element (it cannot be cut alone). */
  bare: boolean;
}

/**
 * Cuts the lines of the kept content that read as prompts or credits, in one
 * replay of the kept tape. A line is the text directly in a block, outside
 * its child blocks: a short block whose line matches goes whole; in a longer
 * block (a "back to the list" link after the last paragraph, a share prompt
 * beside its buttons) the inline elements holding the line go. Text is kept
 * only while it is short enough to be a line, so the work is linear in the page.
 */
export function dropBoilerplateLines(tape: Tape, root: number, removed: Uint8Array): void {
  const { ops, texts, closeAt, kind, chars, parent } = tape;
  const frames: BlockFrame[] = [];
  // Open elements of the replay, innermost last: text whose innermost element is the block itself is bare.
  const elements: number[] = [];
  for (let i = tape.openAt[root]! + 1; i < closeAt[root]!; i++) {
    const op = ops[i]!;
    const type = op & 3;
    const index = op >> 2;
    if (type === 0) {
      if (removed[index] !== 0 || kind[index]! & CONTROL) {
        i = closeAt[index]!;
        continue;
      }
      elements.push(index);
      if (kind[index]! & BLOCK && !(kind[index]! & VOID)) frames.push({ id: index, text: '', textChars: 0, inline: [], bare: false });
      else if (frames.length > 0) {
        const frame = frames[frames.length - 1]!;
        if (parent[index] === frame.id && frame.inline !== undefined) {
          if (frame.inline.length < MAX_LINE_ELEMENTS) frame.inline.push(index);
          else frame.inline = undefined;
        }
      }
    } else if (type === 1) {
      elements.pop();
      const frame = frames[frames.length - 1];
      if (frame?.id === index) {
        frames.pop();
        if (frame.textChars === 0 || frame.textChars > MAX_CAPTION_CHARS || !isBoilerplateLine(frame.text)) continue;
        if (chars[index]! <= MAX_CAPTION_CHARS) removed[index] = 1;
        else if (!frame.bare && frame.inline !== undefined && frame.textChars <= MAX_LINE_CHARS) for (const id of frame.inline) removed[id] = 1;
      }
    } else if (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const text = texts[index]!;
      if (frame.textChars > MAX_CAPTION_CHARS) continue;
      const visible = text.replace(/\s/g, '').length;
      if (visible === 0) continue;
      frame.text += text;
      frame.textChars += visible;
      if (elements[elements.length - 1] === frame.id) frame.bare = true;
    }
  }
}
