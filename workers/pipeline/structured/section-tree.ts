import { isTag, isText, type AnyNode, type Element } from 'domhandler';
import { absoluteUrl } from './absolute-url.js';
import { toDocument, type HtmlInput } from './document-input.js';
import { queryOne } from './dom-query.js';
import { collapseWhitespace, textOf } from './node-text.js';

/** The `json_v2` format: the page's heading hierarchy with each section's content. */
export interface SectionTree {
  url: string;
  /** Text of the first h1, or null. */
  title: string | null;
  sections: Section[];
}

export interface Section {
  /** Heading text; null for content before the first heading. */
  heading: string | null;
  /** 1–6 for h1–h6; 0 for content before the first heading. */
  level: number;
  paragraphs: string[];
  lists: SectionList[];
  tables: SectionTable[];
  links: SectionLink[];
  sections: Section[];
}

export interface SectionList {
  ordered: boolean;
  /** Item texts without their nested lists; a nested list follows as its own entry. */
  items: string[];
}

export interface SectionTable {
  headers: string[];
  rows: string[][];
}

export interface SectionLink {
  text: string;
  href: string;
}

const SKIPPED = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'embed', 'head', 'nav',
  'button', 'input', 'select', 'textarea', 'option', 'img', 'picture', 'video', 'audio', 'map',
]);
const PARAGRAPHS = new Set(['p', 'figcaption', 'address', 'dt', 'dd', 'summary', 'caption']);
const HEADING = /^h([1-6])$/;

function newSection(heading: string | null, level: number): Section {
  return { heading, level, paragraphs: [], lists: [], tables: [], links: [], sections: [] };
}

function hidden(el: Element): boolean {
  return el.attribs.hidden !== undefined || el.attribs['aria-hidden'] === 'true' || /display:\s*none/i.test(el.attribs.style ?? '');
}

function directRows(table: Element): Element[] {
  const rows: Element[] = [];
  for (const child of table.children) {
    if (!isTag(child)) continue;
    if (child.name === 'tr') rows.push(child);
    else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') {
      for (const row of child.children) if (isTag(row) && row.name === 'tr') rows.push(row);
    }
  }
  return rows;
}

function cells(row: Element): Element[] {
  return row.children.filter((c): c is Element => isTag(c) && (c.name === 'td' || c.name === 'th'));
}

class TreeBuilder {
  readonly root = newSection(null, 0);
  private stack: Section[] = [this.root];
  private inline: string[] = [];
  title: string | null = null;

  constructor(private readonly url: string) {}

  private get current(): Section {
    return this.stack[this.stack.length - 1]!;
  }

  private flush(): void {
    const text = collapseWhitespace(this.inline.join(''));
    this.inline = [];
    if (text !== '') this.current.paragraphs.push(text);
  }

  private addLink(a: Element): void {
    const href = absoluteUrl(a.attribs.href, this.url);
    if (!href) return;
    const img = queryOne('img[alt]', a);
    const text = textOf(a) || (a.attribs['aria-label'] ?? '').trim() || (a.attribs.title ?? '').trim() || (img?.attribs.alt ?? '').trim();
    const links = this.current.links;
    if (!links.some((l) => l.href === href && l.text === text)) links.push({ text, href });
  }

  private collectLinks(el: Element): void {
    if (el.name === 'a' && el.attribs.href !== undefined) this.addLink(el);
    for (const child of el.children) if (isTag(child) && !SKIPPED.has(child.name)) this.collectLinks(child);
  }

  private openSection(heading: Element, level: number): void {
    const text = textOf(heading);
    if (text === '') return;
    if (level === 1 && this.title === null) this.title = text;
    while (this.stack.length > 1 && this.current.level >= level) this.stack.pop();
    const section = newSection(text, level);
    this.current.sections.push(section);
    this.stack.push(section);
    this.collectLinks(heading);
  }

  private list(el: Element): void {
    const list: SectionList = { ordered: el.name === 'ol', items: [] };
    this.current.lists.push(list);
    const nested: Element[] = [];
    for (const li of el.children) {
      if (!isTag(li) || hidden(li)) continue;
      if (li.name === 'ul' || li.name === 'ol') {
        nested.push(li);
        continue;
      }
      const own = li.children.filter((c) => !(isTag(c) && (c.name === 'ul' || c.name === 'ol')));
      const text = collapseWhitespace(own.map((c) => textOf(c)).join(' '));
      if (text !== '') list.items.push(text);
      for (const c of li.children) {
        if (!isTag(c)) continue;
        if (c.name === 'ul' || c.name === 'ol') nested.push(c);
        else this.collectLinks(c);
      }
    }
    for (const sub of nested) this.list(sub);
    if (list.items.length === 0) this.current.lists.splice(this.current.lists.indexOf(list), 1);
  }

  private table(el: Element): void {
    const rows = directRows(el).map((r) => ({ row: r, cells: cells(r) })).filter((r) => r.cells.length > 0);
    let headers: string[] = [];
    const first = rows[0];
    const inHead = first && first.row.parent && isTag(first.row.parent) && first.row.parent.name === 'thead';
    if (first && (inHead || first.cells.every((c) => c.name === 'th'))) {
      headers = first.cells.map((c) => textOf(c));
      rows.shift();
    }
    const body = rows.map((r) => r.cells.map((c) => textOf(c))).filter((r) => r.some((c) => c !== ''));
    if (headers.length > 0 || body.length > 0) this.current.tables.push({ headers, rows: body });
    this.collectLinks(el);
  }

  visit(node: AnyNode): void {
    if (isText(node)) {
      this.inline.push(node.data);
      return;
    }
    if (!isTag(node) || SKIPPED.has(node.name) || hidden(node)) return;
    const heading = HEADING.exec(node.name);
    if (heading) {
      this.flush();
      this.openSection(node, Number(heading[1]));
      return;
    }
    if (node.name === 'ul' || node.name === 'ol') {
      this.flush();
      this.list(node);
      return;
    }
    if (node.name === 'table') {
      this.flush();
      this.table(node);
      return;
    }
    if (node.name === 'pre') {
      this.flush();
      const text = textOf(node) === '' ? '' : rawText(node).trimEnd().replace(/^\n+/, '');
      if (text !== '') this.current.paragraphs.push(text);
      this.collectLinks(node);
      return;
    }
    if (PARAGRAPHS.has(node.name)) {
      this.flush();
      const text = textOf(node);
      if (text !== '') this.current.paragraphs.push(text);
      this.collectLinks(node);
      return;
    }
    if (node.name === 'br') {
      this.inline.push(' ');
      return;
    }
    if (node.name === 'a' && node.attribs.href !== undefined) this.addLink(node);
    const block = !INLINE.has(node.name);
    if (block) this.flush();
    for (const child of node.children) {
      if (node.name === 'a' && isTag(child) && child.name === 'a') continue;
      this.visit(child);
    }
    if (block) this.flush();
  }

  finish(): Section[] {
    this.flush();
    const empty = (s: Section): boolean =>
      s.paragraphs.length === 0 && s.lists.length === 0 && s.tables.length === 0 && s.links.length === 0;
    return empty(this.root) ? this.root.sections : [this.root, ...this.root.sections];
  }
}

const INLINE = new Set([
  'a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'ins', 'kbd', 'label', 'mark',
  'q', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var', 'wbr',
]);

function rawText(node: AnyNode): string {
  if (isText(node)) return node.data;
  if (!isTag(node) || SKIPPED.has(node.name)) return '';
  if (node.name === 'br') return '\n';
  return node.children.map(rawText).join('');
}

/**
 * Builds the deterministic `json_v2` section tree from main-content HTML (or
 * a whole page, whose body is used). The same input always gives the same
 * tree, key order included, so its JSON is byte-identical across runs.
 */
export function buildSectionTree(html: HtmlInput, url: string): SectionTree {
  const document = toDocument(html);
  const root: AnyNode = queryOne('body', document) ?? document;
  const builder = new TreeBuilder(url);
  if (isTag(root)) for (const child of root.children) builder.visit(child);
  else for (const child of document.children) builder.visit(child);
  const sections = builder.finish();
  return { url, title: builder.title, sections };
}
