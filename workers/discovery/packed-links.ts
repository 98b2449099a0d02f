/**
 * A page's found links packed for the move from a pipeline thread to its
 * process: all addresses and texts in one string and three numbers a link
 * in one Int32Array, which is moved, not copied. A crawl page carries a
 * couple of hundred links; copied as objects, the structured clone writes
 * and reads each one field by field on both sides of the boundary, at about
 * three times the cost of packing and unpacking them.
 */
import type { ExtractedLink, ExtractedPage, LinkSource } from './link-extractor.js';

const SOURCES: readonly LinkSource[] = ['anchor', 'area', 'next', 'prev'];
const NOFOLLOW = 4;

export interface PackedLinks {
  /** Every link's URL then its text, in order. */
  chars: string;
  /** Per link: URL length, text length, source index | NOFOLLOW. */
  fields: Int32Array;
}

/** An ExtractedPage with its links packed. */
export type PackedPage = Omit<ExtractedPage, 'links'> & { links: PackedLinks };

export function packLinks(links: readonly ExtractedLink[]): PackedLinks {
  const fields = new Int32Array(links.length * 3);
  const parts: string[] = new Array<string>(links.length * 2);
  for (let i = 0; i < links.length; i++) {
    const link = links[i]!;
    parts[i * 2] = link.url;
    parts[i * 2 + 1] = link.text;
    fields[i * 3] = link.url.length;
    fields[i * 3 + 1] = link.text.length;
    fields[i * 3 + 2] = SOURCES.indexOf(link.source) | (link.nofollow ? NOFOLLOW : 0);
  }
  return { chars: parts.join(''), fields };
}

export function unpackLinks({ chars, fields }: PackedLinks): ExtractedLink[] {
  const links: ExtractedLink[] = new Array<ExtractedLink>(fields.length / 3);
  let at = 0;
  for (let i = 0; i < links.length; i++) {
    const urlEnd = at + fields[i * 3]!;
    const textEnd = urlEnd + fields[i * 3 + 1]!;
    const flags = fields[i * 3 + 2]!;
    links[i] = { url: chars.slice(at, urlEnd), text: chars.slice(urlEnd, textEnd), source: SOURCES[flags & 3]!, nofollow: (flags & NOFOLLOW) !== 0 };
    at = textEnd;
  }
  return links;
}

export function packPage(page: ExtractedPage): PackedPage {
  return { ...page, links: packLinks(page.links) };
}

export function unpackPage(page: PackedPage): ExtractedPage {
  return { ...page, links: unpackLinks(page.links) };
}
