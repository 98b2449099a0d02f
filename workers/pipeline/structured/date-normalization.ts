/** Month names in the languages most pages are written in, by lower-case prefix-free full or short form. */
const MONTHS: Record<string, number> = {};
const NAMES: string[][] = [
  ['january', 'jan', 'januar', 'jänner', 'jän', 'janvier', 'janv', 'enero', 'ene', 'gennaio', 'gen', 'janeiro', 'januari', 'stycznia', 'styczeń'],
  ['february', 'feb', 'februar', 'février', 'févr', 'fevrier', 'febrero', 'febbraio', 'fevereiro', 'fev', 'februari', 'lutego', 'luty'],
  ['march', 'mar', 'märz', 'maerz', 'mär', 'mars', 'marzo', 'março', 'maart', 'marca', 'marzec'],
  ['april', 'apr', 'avril', 'avr', 'abril', 'abr', 'aprile', 'kwietnia', 'kwiecień'],
  ['may', 'mai', 'mayo', 'maggio', 'mag', 'maio', 'mei', 'maja', 'maj'],
  ['june', 'jun', 'juni', 'juin', 'junio', 'giugno', 'giu', 'junho', 'czerwca', 'czerwiec'],
  ['july', 'jul', 'juli', 'juillet', 'juil', 'julio', 'luglio', 'lug', 'julho', 'lipca', 'lipiec'],
  ['august', 'aug', 'août', 'aout', 'agosto', 'ago', 'augustus', 'sierpnia', 'sierpień'],
  ['september', 'sep', 'sept', 'septembre', 'septiembre', 'settembre', 'set', 'setembro', 'września', 'wrzesień'],
  ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre', 'ottobre', 'ott', 'outubro', 'out', 'października', 'październik'],
  ['november', 'nov', 'novembre', 'noviembre', 'novembro', 'listopada', 'listopad'],
  ['december', 'dec', 'dezember', 'dez', 'décembre', 'decembre', 'déc', 'diciembre', 'dic', 'dicembre', 'dezembro', 'grudnia', 'grudzień'],
];
NAMES.forEach((names, i) => names.forEach((n) => (MONTHS[n] = i + 1)));

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

function validDate(y: number, m: number, d: number): boolean {
  if (y < 1000 || y > 9999 || m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function fullYear(y: number): number {
  return y < 100 ? (y < 70 ? 2000 + y : 1900 + y) : y;
}

function timePart(rest: string): string {
  const m = /\b(\d{1,2})[:h.](\d{2})(?::(\d{2}))?\s*([ap]\.?m\.?)?/i.exec(rest);
  if (!m) return '';
  let h = Number(m[1]);
  const meridiem = m[4]?.toLowerCase().replace(/\./g, '');
  if (meridiem === 'pm' && h < 12) h += 12;
  if (meridiem === 'am' && h === 12) h = 0;
  if (h > 23 || Number(m[2]) > 59) return '';
  return `T${pad(h)}:${m[2]}:${m[3] ?? '00'}`;
}

function build(y: number, m: number, d: number, rest: string): string | null {
  if (!validDate(y, m, d)) return null;
  return `${y}-${pad(m)}-${pad(d)}${timePart(rest)}`;
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An ISO 8601 date (`2024-03-05`) or date-time (`2024-03-05T10:30:00`, with
 * its offset when the input had one) from the formats pages use: ISO,
 * `2024/03/05`, `05.03.2024`, `03/05/2024` (month first unless the first
 * number exceeds 12), `March 5, 2024`, `5 March 2024`, `5. März 2024`, RFC 2822.
 */
export function toIsoDate(input: string): string | null {
  const text = input.trim().replace(/\s+/g, ' ');
  if (text === '') return null;
  const iso = ISO_RE.exec(text);
  if (iso) {
    const [, y, mo, d, h, mi, s, zone] = iso;
    if (!validDate(Number(y), Number(mo), Number(d))) return null;
    if (h === undefined) return `${y}-${mo}-${d}`;
    if (Number(h) > 23 || Number(mi) > 59) return null;
    const offset = zone === undefined ? '' : zone.toUpperCase() === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
    return `${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}${offset}`;
  }
  let m = /^(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})\b(.*)$/.exec(text);
  if (m) return build(Number(m[1]), Number(m[2]), Number(m[3]), m[4]!);
  m = /^(\d{1,2})\.\s?(\d{1,2})\.\s?(\d{2,4})\b(.*)$/.exec(text);
  if (m) return build(fullYear(Number(m[3])), Number(m[2]), Number(m[1]), m[4]!);
  m = /^(\d{1,2})[/-](\d{1,2})[/-](\d{2,4})\b(.*)$/.exec(text);
  if (m) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    const [month, day] = a > 12 ? [b, a] : [a, b];
    return build(fullYear(Number(m[3])), month, day, m[4]!);
  }
  const words = text.toLowerCase().replace(/^[a-zäéû]+\.?,?\s+(?=\d|[a-zäéû]+\s+\d)/, (w) => (MONTHS[w.replace(/[.,\s]/g, '')] ? w : ''));
  m = /^(\d{1,2})(?:st|nd|rd|th|er|\.|º)?\s*(?:de\s+)?([a-zäéûçíóúñęśźżł]+)\.?,?\s*(?:de\s+)?(\d{4})\b(.*)$/.exec(words);
  if (m && MONTHS[m[2]!]) return build(Number(m[3]), MONTHS[m[2]!]!, Number(m[1]), m[4]!);
  m = /^([a-zäéûçíóúñęśźżł]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b(.*)$/.exec(words);
  if (m && MONTHS[m[1]!]) return build(Number(m[3]), MONTHS[m[1]!]!, Number(m[2]), m[4]!);
  return null;
}

/** Just the calendar date of `toIsoDate`. */
export function toIsoDay(input: string): string | null {
  const iso = toIsoDate(input);
  return iso === null ? null : iso.slice(0, 10);
}

const DURATION_RE = /^P(?!$)(?:\d+(?:\.\d+)?[YMWD])*(?:T(?=\d)(?:\d+(?:\.\d+)?[HMS])*)?$/i;

/** An ISO 8601 duration (`PT1H30M`) from one, or from "1 hour 30 minutes", "90 min", "1h30", "1 Std. 20 Min.". */
export function toIsoDuration(input: string): string | null {
  const text = input.trim();
  if (text === '') return null;
  if (DURATION_RE.test(text)) return normaliseDuration(text.toUpperCase());
  const lower = text.toLowerCase();
  let hours = 0;
  let minutes = 0;
  let seconds = 0;
  let found = false;
  const compact = /^(\d+)\s*h\s*(\d{1,2})$/.exec(lower);
  if (compact) return formatDuration(Number(compact[1]), Number(compact[2]), 0);
  const clock = /^(\d{1,2}):(\d{2})$/.exec(lower);
  if (clock) return formatDuration(Number(clock[1]), Number(clock[2]), 0);
  for (const m of lower.matchAll(/(?<!\d)(\d+(?:[.,]\d+)?)\s*(hours?|hrs?|h|stunden?|std\.?|heures?|horas?|ore|minutes?|mins?|m|minuten?|minutos?|minuti|seconds?|secs?|s|sekunden?)\b/g)) {
    const n = Number(m[1]!.replace(',', '.'));
    const unit = m[2]!;
    found = true;
    if (/^(h|hr|hrs|hour|hours|stunde|stunden|std|heure|heures|hora|horas|ore)/.test(unit)) hours += n;
    else if (/^(s|sec|secs|second|seconds|sekunde|sekunden)$/.test(unit)) seconds += n;
    else minutes += n;
  }
  if (!found) {
    const bare = /^(\d+)$/.exec(lower);
    if (!bare) return null;
    minutes = Number(bare[1]);
  }
  const totalMinutes = hours * 60 + minutes;
  // A number too long to count in (a run of digits on a broken page) is no duration.
  if (!Number.isFinite(totalMinutes) || !Number.isFinite(seconds)) return null;
  return formatDuration(Math.floor(totalMinutes / 60), Math.round(totalMinutes % 60), seconds);
}

function formatDuration(h: number, m: number, s: number): string | null {
  if (h === 0 && m === 0 && s === 0) return null;
  return `PT${h ? `${h}H` : ''}${m ? `${m}M` : ''}${s ? `${s}S` : ''}`;
}

/** `PT0H30M` and `P0DT1H` read better as `PT30M` and `PT1H`. */
function normaliseDuration(iso: string): string {
  const out = iso.replace(/(?<=[PT])0+[YMWDHS](?=\d|T|$)/g, '').replace(/(\D)0+[YMWDHS]/g, '$1').replace(/T$/, '');
  return out === 'P' || out === 'PT' ? iso : out;
}
