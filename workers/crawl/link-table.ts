import { create } from '@bufbuild/protobuf';
import { DiscoveredLinkSchema, type DiscoveredLink } from '../../proto/gen/trawl/v1/crawl_pb.js';

/** A link a page found for the crawl's frontier, before it is written into a report. */
export interface FrontierLink {
  url: string;
  depth: number;
  score: number;
  source: 'link';
  /** The budget pattern that governs the URL; empty when none does. */
  budgetKey: string;
}

/**
 * The links of one batch report, each distinct link once. The pages of a
 * batch share most of their links (a site's navigation, written on every
 * page), so each page names its links by position in this table
 * (CrawlPageOutcome.link_refs) rather than repeating them: the report, its
 * encoding and its decoding in the control plane shrink with the number of
 * pages per batch. Links differing in depth or score (pages at different
 * depths, anchor texts under `priority.keywords`) are distinct entries, so
 * each page's list reads back exactly as it was found.
 */
export class LinkTable {
  private readonly positions = new Map<string, number>();
  readonly links: DiscoveredLink[] = [];

  /** The positions of a page's links, in the page's order, adding the ones not yet in the table. */
  refs(found: readonly FrontierLink[]): number[] {
    const refs = new Array<number>(found.length);
    for (let i = 0; i < found.length; i++) {
      const link = found[i]!;
      const key = `${link.depth} ${link.score} ${link.url}`;
      let at = this.positions.get(key);
      if (at === undefined) {
        at = this.links.length;
        this.positions.set(key, at);
        this.links.push(create(DiscoveredLinkSchema, link));
      }
      refs[i] = at;
    }
    return refs;
  }
}
