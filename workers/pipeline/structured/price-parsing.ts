/** Currency marks seen next to prices; `$` alone is read as US dollars. */
const SYMBOLS: Array<[string, string]> = [
  ['US$', 'USD'], ['CA$', 'CAD'], ['C$', 'CAD'], ['AU$', 'AUD'], ['A$', 'AUD'], ['NZ$', 'NZD'], ['HK$', 'HKD'],
  ['R$', 'BRL'], ['S$', 'SGD'], ['MX$', 'MXN'], ['$', 'USD'], ['€', 'EUR'], ['£', 'GBP'], ['¥', 'JPY'], ['₹', 'INR'],
  ['₩', 'KRW'], ['₽', 'RUB'], ['₺', 'TRY'], ['₪', 'ILS'], ['₫', 'VND'], ['฿', 'THB'], ['zł', 'PLN'], ['Kč', 'CZK'],
  ['Fr.', 'CHF'],
];

const CODES = new Set([
  'USD', 'EUR', 'GBP', 'JPY', 'CNY', 'INR', 'CAD', 'AUD', 'NZD', 'CHF', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'HUF',
  'RON', 'BGN', 'HRK', 'RUB', 'TRY', 'BRL', 'MXN', 'ARS', 'CLP', 'COP', 'PEN', 'ZAR', 'KRW', 'SGD', 'HKD', 'TWD',
  'THB', 'IDR', 'MYR', 'PHP', 'VND', 'ILS', 'AED', 'SAR', 'EGP', 'NGN', 'KES', 'UAH',
]);

export function currencyCode(mark: string): string | null {
  const trimmed = mark.trim();
  const upper = trimmed.toUpperCase();
  if (CODES.has(upper)) return upper;
  for (const [symbol, code] of SYMBOLS) if (trimmed === symbol) return code;
  return null;
}

/**
 * A number written with any common grouping: "1,299.99", "1.299,99",
 * "1 299,99", "1'299.99". With both separators the last one is the decimal
 * mark; a lone comma followed by exactly three digits groups thousands, any
 * other lone comma is decimal; a lone dot is decimal; repeated marks group.
 */
export function parseDecimal(text: string): number | null {
  const match = /[-−]?\d[\d.,'’\s\u00a0\u202f]*/.exec(text);
  if (!match) return null;
  const negative = /^[-−]/.test(match[0]);
  let s = match[0].replace(/^[-−]/, '').replace(/[\s\u00a0\u202f'’]+/g, ' ').trim();
  // From the first mark of the trailing run only: tried from each mark, a long run was read to its end each time.
  s = s.replace(/(?<![.,\s])[.,\s]+$/, '');
  // Spaces group thousands only between digit groups; "12 500" is one number, "12 34.5" is not.
  s = s.replace(/(\d) (?=\d{3}(?:\D|$))/g, '$1');
  s = s.split(' ')[0]!;
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  let normalised: string;
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const group = decimal === '.' ? ',' : '.';
    normalised = s.split(group).join('').replace(decimal, '.');
  } else if (lastComma >= 0) {
    const parts = s.split(',');
    const groups = parts.length > 2 || (parts.length === 2 && parts[1]!.length === 3 && parts[0] !== '0');
    normalised = groups ? parts.join('') : parts.join('.');
  } else if (lastDot >= 0) {
    const parts = s.split('.');
    normalised = parts.length > 2 ? parts.join('') : s;
  } else {
    normalised = s;
  }
  if (!/^\d+(?:\.\d+)?$/.test(normalised)) return null;
  const n = Number(normalised);
  if (!Number.isFinite(n)) return null;
  return negative ? -n : n;
}

export interface ParsedPrice {
  amount: number;
  currency: string | null;
}

const SYMBOL_PATTERN = SYMBOLS.map(([s]) => s.replace(/[$.]/g, (c) => `\\${c}`)).join('|');
const CODE_PATTERN = [...CODES].join('|');
// An amount starts where a run of digits does, or at its last one to three digits (where a group of thousands may end
// it); and it holds at most six groups of thousands (10^21). Tried from every digit of a long run, or along a long
// chain of groups from each of them, the pattern read the rest of the run each time: 90 s on one hostile page.
const AMOUNT = String.raw`(?:(?<!\d)|(?=\d{1,3}(?!\d)))(?:\d{1,3}(?:[.,'’\s\u00a0\u202f]\d{3}){0,6}(?:[.,]\d{1,2})?(?!\d)|\d+(?:[.,]\d{1,2})?(?!\d))`;
const PRICE_RE = new RegExp(
  String.raw`(?:(?<pre>${SYMBOL_PATTERN}|\b(?:${CODE_PATTERN})\b)\s?(?<a1>${AMOUNT}))|(?:(?<a2>${AMOUNT})\s?(?<post>${SYMBOL_PATTERN}|\b(?:${CODE_PATTERN})\b))`,
  'g',
);

/** A price with its currency when one is marked: "$1,299.99", "1.299,99 €", "EUR 12". */
export function parsePrice(text: string): ParsedPrice | null {
  const marked = findPrices(text)[0];
  if (marked) return { amount: marked.amount, currency: marked.currency };
  const amount = parseDecimal(text);
  return amount === null ? null : { amount, currency: null };
}

export interface PriceMatch extends ParsedPrice {
  raw: string;
  index: number;
}

/** Amounts marked with a currency inside free text, in order of appearance. */
export function findPrices(text: string): PriceMatch[] {
  const out: PriceMatch[] = [];
  for (const m of text.matchAll(PRICE_RE)) {
    const g = m.groups ?? {};
    const amountText = g.a1 ?? g.a2;
    const mark = g.pre ?? g.post;
    if (amountText === undefined || mark === undefined) continue;
    const amount = parseDecimal(amountText);
    if (amount === null) continue;
    out.push({ amount, currency: currencyCode(mark), raw: m[0].trim(), index: m.index ?? 0 });
  }
  return out;
}
