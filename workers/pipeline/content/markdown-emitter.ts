import type { Tape } from './html-tape.js';
import { walkSelection, type Selection, type TapeVisitor } from './tape-walk.js';
import type { UrlResolver } from './url-resolver.js';
import { BLOCK, HEADING } from './tag-kinds.js';
import { codeLanguage } from './code-language.js';
import { codeFence, codeSpan, escapeMarkdownText, linkDestination, linkTitle } from './markdown-escape.js';
import { imageSource, isTrackingPixel } from './image-source.js';
import { isDataTable, renderTable, type TableRows } from './table-layout.js';

/**
 * List and quote levels whose indentation and markers are written on every line. Deeper levels (a page of
 * hundreds of nested lists) write only their own marker, at the deepest indentation; without the cap the
 * output would grow with depth times lines.
 */
const MAX_PREFIX_DEPTH = 32;
/** The parts of a table the table state tracks, opened and closed alike. */
const TABLE_PARTS = new Set(['tr', 'td', 'th', 'caption', 'thead', 'tbody', 'tfoot']);

/** Inline text longer than this with no frame open is settled into `head`. */
const SETTLE_AT = 1_024;

/**
 * Writes the selected part of a page as GitHub-Flavoured Markdown or, with
 * `plain`, as readable text with the same block layout and no markup.
 *
 * Block structure is kept as a stack of line prefixes (`> ` for a quote, the
 * marker then its width in spaces for a list item), applied when a line is
 * written, so nesting costs nothing until output. Inline content of the
 * current block collects in `buf`; emphasis and links remember where they
 * started in it and wrap their content when they close.
 */
interface Prefix {
  first: string;
  rest: string;
  started: boolean;
  listItem: boolean;
  /** Newlines asked for before the element opened; what its first block asks for inside counts as at most one. */
  gapBefore: number;
}

const enum Frame {
  Emphasis,
  Strong,
  Strike,
  Link,
  Code,
}

interface InlineFrame {
  type: Frame;
  start: number;
  href: string;
  title: string;
}

const enum TableMode {
  Data,
  Layout,
  /** A table inside a data-table cell: its text joins the cell. */
  Flat,
}

interface TableState {
  mode: TableMode;
  rows: TableRows;
  caption: string;
  row: string[] | null;
  rowInHead: boolean;
  rowHasData: boolean;
  inCaption: boolean;
  /** Inline frames open around the table, set aside while its cells are written. */
  outerFrames: InlineFrame[];
}

const SPACE_RUN = /[ \t\n\r\f]+/g;
/**
 * The runs `SPACE_RUN` would change: more than one character, or one that is
 * not a plain space. Prose has a single space between most words, and leaving
 * those alone spares building a new string for most text events.
 */
const SPACE_TO_COLLAPSE = / [ \t\n\r\f]+|[\t\n\r\f][ \t\n\r\f]*/g;
const BLANK = /^[ \t\n\r\f]*$/;
const NOT_BLANK = /[^ \t\n\r\f]/;

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13 || code === 12;
}

class BlockEmitter implements TapeVisitor {
  private out = '';
  private readonly prefixes: Prefix[] = [];
  private sep = 0;
  private buf = '';
  /**
   * Inline text of the current block that no open frame can wrap any more. A frame's close rebuilds the buffer
   * from its start; moving finished text here keeps that cost to the open part, so a block of thousands of
   * links converts in linear time. Invariant: when non-empty it ends with a character that is neither a space
   * nor a newline, so trimming and line-start checks never need to look past `buf`.
   */
  private head = '';
  private readonly frames: InlineFrame[] = [];
  private heading = 0;
  private preDepth = 0;
  private preText = '';
  /** Whether `preText` ends in a newline, kept beside it: asking the growing string would copy it each time. */
  private preLineEnded = true;
  private preLanguage = '';
  private preFallbackLanguage = '';
  private codeDepth = 0;
  private linkDepth = 0;
  private emphasisDepth = 0;
  private strongDepth = 0;
  private strikeDepth = 0;
  private readonly lists: { ordered: boolean; next: number }[] = [];
  private readonly tables: TableState[] = [];
  private cellDepth = 0;

  constructor(
    private readonly tape: Tape,
    private readonly urls: UrlResolver,
    private readonly plain: boolean,
    private readonly captionAlt?: Uint8Array,
  ) {}

  result(): string {
    this.flushInline();
    return this.out.trimEnd();
  }

  open(id: number): void {
    const tag = this.tape.tag[id]!;
    const attrs = this.tape.attrs[id]!;
    if (this.preDepth > 0) {
      if (tag === 'br') this.appendPre('\n');
      else if (tag === 'code' && !this.preLanguage) this.preLanguage = codeLanguage(attrs);
      return;
    }
    if (this.tape.kind[id]! & HEADING) {
      this.block(2);
      if (this.cellDepth === 0) this.heading = tag.charCodeAt(1) - 48;
      return;
    }
    switch (tag) {
      case 'p':
      case 'div':
        this.block(2);
        return;
      case 'br':
        this.lineBreak();
        return;
      case 'ul':
      case 'ol':
      case 'menu':
        this.openList(tag === 'ol', attrs);
        return;
      case 'li':
        this.openListItem(attrs);
        return;
      case 'blockquote':
        this.block(2);
        if (this.cellDepth === 0) this.pushPrefix(this.plain ? '' : '> ', this.plain ? '' : '> ', false);
        return;
      case 'pre':
        this.openPre(id, attrs);
        return;
      case 'hr':
        this.block(2);
        if (!this.plain && this.cellDepth === 0) {
          this.writeBlock('---');
          this.sep = 2;
        }
        return;
      case 'img':
        this.image(attrs, this.captionAlt !== undefined && this.captionAlt[id] !== 0);
        return;
      case 'a':
        this.openLink(attrs);
        return;
      case 'em':
      case 'i':
        if (this.emphasisDepth++ === 0 && this.codeDepth === 0) this.pushFrame(Frame.Emphasis);
        return;
      case 'strong':
      case 'b':
        if (this.strongDepth++ === 0 && this.codeDepth === 0) this.pushFrame(Frame.Strong);
        return;
      case 'del':
      case 's':
      case 'strike':
        if (this.strikeDepth++ === 0 && this.codeDepth === 0) this.pushFrame(Frame.Strike);
        return;
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt':
        if (this.codeDepth++ === 0) this.pushFrame(Frame.Code);
        return;
      case 'table':
        this.openTable(id);
        return;
      default:
        if (TABLE_PARTS.has(tag)) this.openTablePart(id, tag);
        else if (this.tape.kind[id]! & BLOCK) this.block(2);
    }
  }

  close(id: number): void {
    const tag = this.tape.tag[id]!;
    if (this.preDepth > 0) {
      if (tag === 'pre') this.closePre();
      else if (this.tape.kind[id]! & BLOCK && !this.preLineEnded) this.appendPre('\n');
      return;
    }
    if (this.tape.kind[id]! & HEADING) {
      this.block(2);
      this.heading = 0;
      return;
    }
    switch (tag) {
      case 'ul':
      case 'ol':
      case 'menu':
        this.block(1);
        this.lists.pop();
        this.block(this.inListItem() ? 1 : 2);
        return;
      case 'li':
        this.block(1);
        if (this.cellDepth === 0) this.popListItem();
        return;
      case 'blockquote':
        this.block(2);
        if (this.cellDepth === 0) this.prefixes.pop();
        this.sep = 2;
        return;
      case 'a':
        this.closeFrame(Frame.Link);
        return;
      case 'pre':
        // Only reached for a <pre> inside a table cell, written as inline code.
        if (this.codeDepth > 0 && --this.codeDepth === 0) this.closeFrame(Frame.Code);
        return;
      case 'em':
      case 'i':
        if (--this.emphasisDepth === 0 && this.codeDepth === 0) this.closeFrame(Frame.Emphasis);
        return;
      case 'strong':
      case 'b':
        if (--this.strongDepth === 0 && this.codeDepth === 0) this.closeFrame(Frame.Strong);
        return;
      case 'del':
      case 's':
      case 'strike':
        if (--this.strikeDepth === 0 && this.codeDepth === 0) this.closeFrame(Frame.Strike);
        return;
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt':
        if (--this.codeDepth === 0) this.closeFrame(Frame.Code);
        return;
      case 'table':
        this.closeTable();
        return;
      default:
        if (TABLE_PARTS.has(tag)) this.closeTablePart(tag);
        else if (this.tape.kind[id]! & BLOCK) this.block(2);
    }
  }

  text(raw: string): void {
    if (this.preDepth > 0) {
      this.appendPre(raw);
      return;
    }
    const last = this.lastChar();
    if (BLANK.test(raw)) {
      // Indentation between tags: at most one space, and none at a line start.
      if (last !== 32 && last !== 10 && raw.length > 0) this.buf += ' ';
      return;
    }
    let text = raw.replace(SPACE_TO_COLLAPSE, ' ');
    const atLineStart = last === 10 || this.inlineStartsLine();
    if (text.charCodeAt(0) === 32 && (last === 32 || last === 10)) text = text.slice(1);
    if (text.length === 0) return;
    if (this.plain || this.codeDepth > 0) {
      this.buf += text;
      return;
    }
    if (atLineStart && text.charCodeAt(0) === 32) {
      this.buf += ' ';
      text = text.slice(1);
    }
    this.buf += escapeMarkdownText(text, atLineStart);
  }

  /** True when nothing but whitespace precedes the current position on its line. */
  private inlineStartsLine(): boolean {
    const buf = this.buf;
    for (let i = buf.length - 1; i >= 0; i--) {
      const c = buf.charCodeAt(i);
      if (c === 10) return true;
      if (c !== 32) return false;
    }
    return this.head.length === 0;
  }

  /** The last character of the block's inline text, or a newline when there is none. */
  private lastChar(): number {
    if (this.buf.length > 0) return this.buf.charCodeAt(this.buf.length - 1);
    return this.head.length > 0 ? this.head.charCodeAt(this.head.length - 1) : 10;
  }

  /** Moves finished inline text out of the buffer frames rebuild (see `head`). */
  private settleInline(): void {
    if (this.frames.length > 0 || this.cellDepth > 0 || this.buf.length < SETTLE_AT) return;
    const last = this.buf.charCodeAt(this.buf.length - 1);
    if (last === 32 || last === 10) return;
    this.head += this.buf;
    this.buf = '';
  }

  // Blocks and lines.

  /** Ends the current block of inline content and asks for `gap` newlines before the next. */
  private block(gap: number): void {
    if (this.cellDepth > 0) {
      this.cellBreak(' ');
      return;
    }
    this.flushInline();
    if (gap > this.sep) this.sep = gap;
  }

  private cellBreak(separator: string): void {
    if (this.buf.length > 0 && !this.buf.endsWith(' ') && !this.buf.endsWith(separator)) this.buf += separator;
  }

  private lineBreak(): void {
    if (this.cellDepth > 0) {
      this.cellBreak(this.plain ? ' ' : '<br>');
      return;
    }
    if (this.heading > 0) {
      this.buf += ' ';
      return;
    }
    let end = this.buf.length;
    while (end > 0 && this.buf.charCodeAt(end - 1) === 32) end--;
    const trimmed = this.buf.slice(0, end);
    if (trimmed.length === 0) {
      // The settled text ends in a visible character: the break goes right after it.
      if (this.head.length > 0) this.buf = '\n';
      return;
    }
    if (trimmed.endsWith('\n')) {
      // Two line breaks in a row read as a paragraph break.
      this.buf = trimmed.slice(0, -1);
      this.block(2);
      return;
    }
    this.buf = `${trimmed}\n`;
  }

  private flushInline(): void {
    if (this.head.length > 0) {
      this.buf = this.head + this.buf;
      this.head = '';
    }
    if (this.buf.length === 0 || !NOT_BLANK.test(this.buf)) {
      this.buf = '';
      for (const frame of this.frames) frame.start = 0;
      return;
    }
    for (let i = this.frames.length - 1; i >= 0; i--) this.wrapFrame(this.frames[i]!);
    for (const frame of this.frames) frame.start = 0;
    let text = this.buf;
    this.buf = '';
    if (this.heading > 0) {
      text = text.replace(/\s+/g, ' ').trim();
      if (!this.plain) text = `${'#'.repeat(this.heading)} ${text}`;
      this.writeLines([text]);
      return;
    }
    const lines = text.split('\n');
    const kept: string[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (line.length === 0) continue;
      kept.push(line);
    }
    if (!this.plain) for (let i = 0; i < kept.length - 1; i++) kept[i] += '  ';
    this.writeLines(kept);
  }

  private writeBlock(text: string): void {
    this.writeLines(text.split('\n'));
  }

  private writeLines(lines: string[]): void {
    if (lines.length === 0) return;
    if (this.out.length > 0) {
      const top = this.prefixes[this.prefixes.length - 1];
      const gap = top !== undefined && top.listItem && !top.started ? Math.max(top.gapBefore, Math.min(this.sep, 1)) : this.sep;
      this.out += gap >= 2 ? `\n${this.blankPrefix()}\n` : '\n';
    }
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (i > 0) this.out += '\n';
      this.out += line.length === 0 ? this.blankPrefix() : this.linePrefix() + line;
    }
    this.sep = 0;
  }

  private linePrefix(): string {
    let prefix = '';
    for (let i = 0; i < this.prefixes.length; i++) {
      const p = this.prefixes[i]!;
      if (i >= MAX_PREFIX_DEPTH) {
        // Past the cap a level adds only its marker, once, so output stays linear in the input.
        if (!p.started) prefix += p.first.trim() + ' ';
      } else if (p.started) prefix += p.rest;
      else prefix += p.first;
      p.started = true;
    }
    return prefix;
  }

  private blankPrefix(): string {
    let prefix = '';
    const depth = Math.min(this.prefixes.length, MAX_PREFIX_DEPTH);
    for (let i = 0; i < depth; i++) if (this.prefixes[i]!.started) prefix += this.prefixes[i]!.rest;
    return prefix.trimEnd();
  }

  private pushPrefix(first: string, rest: string, listItem: boolean): void {
    this.prefixes.push({ first, rest, started: false, listItem, gapBefore: this.sep });
  }

  // Lists.

  private inListItem(): boolean {
    for (let i = this.prefixes.length - 1; i >= 0; i--) if (this.prefixes[i]!.listItem) return true;
    return false;
  }

  private openList(ordered: boolean, attrs: Record<string, string>): void {
    this.block(this.inListItem() ? 1 : 2);
    const start = Number.parseInt(attrs.start ?? '1', 10);
    this.lists.push({ ordered, next: Number.isFinite(start) && start >= 0 ? start : 1 });
  }

  private openListItem(attrs: Record<string, string>): void {
    this.block(1);
    if (this.cellDepth > 0) return;
    const list = this.lists[this.lists.length - 1];
    let marker = '- ';
    if (list?.ordered) {
      const value = attrs.value === undefined ? Number.NaN : Number.parseInt(attrs.value, 10);
      if (Number.isFinite(value) && value >= 0) list.next = value;
      marker = `${list.next++}. `;
    }
    if (this.plain) this.pushPrefix('', '', true);
    else this.pushPrefix(marker, ' '.repeat(marker.length), true);
  }

  private popListItem(): void {
    for (let i = this.prefixes.length - 1; i >= 0; i--) {
      if (this.prefixes[i]!.listItem) {
        this.prefixes.length = i;
        return;
      }
    }
  }

  // Code blocks.

  private openPre(id: number, attrs: Record<string, string>): void {
    if (this.cellDepth > 0) {
      if (this.codeDepth++ === 0) this.pushFrame(Frame.Code);
      return;
    }
    this.block(2);
    this.preDepth = 1;
    this.preText = '';
    this.preLineEnded = true;
    this.preLanguage = codeLanguage(attrs);
    const parent = this.tape.parent[id]!;
    const grandparent = parent >= 0 ? this.tape.parent[parent]! : -1;
    this.preFallbackLanguage =
      (parent >= 0 ? codeLanguage(this.tape.attrs[parent]!) : '') || (grandparent >= 0 ? codeLanguage(this.tape.attrs[grandparent]!) : '');
  }

  private appendPre(text: string): void {
    if (text.length === 0) return;
    this.preText += text;
    this.preLineEnded = text.charCodeAt(text.length - 1) === 10;
  }

  private closePre(): void {
    this.preDepth = 0;
    // A newline right after <pre> is not content (HTML parsing rule); trailing blank lines are layout.
    const code = this.preText.replace(/^\r?\n/, '').replace(/\r\n?/g, '\n').trimEnd();
    this.preText = '';
    if (code.length === 0) return;
    if (this.plain) {
      this.writeBlock(code);
    } else {
      const fence = codeFence(code);
      const language = this.preLanguage || this.preFallbackLanguage;
      this.writeBlock(`${fence}${language}\n${code}\n${fence}`);
    }
    this.sep = 2;
  }

  // Inline frames.

  private pushFrame(type: Frame, href = '', title = ''): void {
    this.frames.push({ type, start: this.buf.length, href, title });
  }

  private closeFrame(type: Frame): void {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      if (this.frames[i]!.type === type) {
        const frame = this.frames[i]!;
        // Frames opened inside this one and left open (bad nesting) end with it.
        for (let j = this.frames.length - 1; j > i; j--) this.wrapFrame(this.frames[j]!);
        this.wrapFrame(frame);
        this.frames.length = i;
        if (type === Frame.Link) this.linkDepth--;
        this.settleInline();
        return;
      }
    }
  }

  private wrapFrame(frame: InlineFrame): void {
    const content = this.buf.slice(frame.start);
    const before = this.buf.slice(0, frame.start);
    const core = frame.type === Frame.Code ? content.replace(SPACE_RUN, ' ').trim() : content.trim();
    // Before the frame: its own buffer, else the settled text (which never ends in a space), else a line start.
    const spaceBefore = before.length > 0 ? isSpace(before.charCodeAt(before.length - 1)) : this.head.length === 0;
    if (core.length === 0) {
      this.buf = before + (content.length > 0 && !spaceBefore ? ' ' : '');
      return;
    }
    const lead = isSpace(content.charCodeAt(0)) && !spaceBefore ? ' ' : '';
    const trail = isSpace(content.charCodeAt(content.length - 1)) ? ' ' : '';
    this.buf = before + lead + this.decorate(frame, core) + trail;
  }

  private decorate(frame: InlineFrame, core: string): string {
    if (this.plain) return core;
    switch (frame.type) {
      case Frame.Emphasis:
        return `*${core}*`;
      case Frame.Strong:
        return `**${core}**`;
      case Frame.Strike:
        return `~~${core}~~`;
      case Frame.Code:
        return codeSpan(core);
      case Frame.Link: {
        if (!frame.href) return core;
        const title = frame.title ? ` "${linkTitle(frame.title)}"` : '';
        return `[${core}](${linkDestination(frame.href)}${title})`;
      }
    }
  }

  private openLink(attrs: Record<string, string>): void {
    if (this.codeDepth > 0) return;
    if (this.linkDepth > 0) return;
    this.linkDepth++;
    const href = attrs.href === undefined ? '' : this.urls.resolve(attrs.href);
    this.pushFrame(Frame.Link, href, attrs.title ?? '');
  }

  private image(attrs: Record<string, string>, captionAlt: boolean): void {
    if (this.plain || this.codeDepth > 0 || isTrackingPixel(attrs)) return;
    const source = imageSource(attrs);
    if (!source) return;
    const src = this.urls.resolve(source);
    if (!src) return;
    const alt = (captionAlt ? '' : (attrs.alt ?? '')).replace(/\s+/g, ' ').trim().replace(/[\\[\]]/g, '\\$&');
    const title = attrs.title && !captionAlt ? ` "${linkTitle(attrs.title)}"` : '';
    const last = this.lastChar();
    if (last !== 32 && last !== 10 && this.frames.length === 0) this.buf += ' ';
    this.buf += `![${alt}](${linkDestination(src)}${title})`;
  }

  // Tables.

  private openTable(id: number): void {
    if (this.cellDepth > 0) {
      this.tables.push(newTable(TableMode.Flat, []));
      this.cellBreak(' ');
      return;
    }
    const data = isDataTable(this.tape, id);
    this.block(2);
    // Emphasis or a link around a whole table cannot wrap its cells; they resume after it.
    this.tables.push(newTable(data ? TableMode.Data : TableMode.Layout, data ? this.frames.splice(0) : []));
  }

  private closeTable(): void {
    const table = this.tables.pop();
    if (table === undefined) return;
    if (table.mode === TableMode.Flat) {
      this.cellBreak(' ');
      return;
    }
    if (table.mode === TableMode.Layout) {
      this.block(2);
      return;
    }
    this.finishRow(table);
    this.buf = '';
    this.head = '';
    this.frames.push(...table.outerFrames);
    if (table.caption) {
      this.sep = Math.max(this.sep, 2);
      this.writeLines([table.caption]);
    }
    const lines = renderTable(table.rows, this.plain);
    if (lines.length > 0) {
      this.sep = Math.max(this.sep, 2);
      this.writeLines(lines);
    }
    this.sep = 2;
  }

  /**
   * The innermost table when it is written as a GFM table; for a layout table
   * (parts become blocks) or a flat one (parts become spaces) the part's
   * separator is written here and there is nothing else to do.
   */
  private gridTable(): TableState | undefined {
    const table = this.tables[this.tables.length - 1];
    if (table === undefined || table.mode === TableMode.Layout) {
      this.block(2);
      return undefined;
    }
    if (table.mode === TableMode.Flat) {
      this.cellBreak(' ');
      return undefined;
    }
    return table;
  }

  private openTablePart(id: number, tag: string): void {
    const table = this.gridTable();
    if (table === undefined) return;
    if (tag === 'tr') {
      this.finishRow(table);
      table.row = [];
      table.rowInHead = this.tape.tag[this.tape.parent[id]!] === 'thead';
      table.rowHasData = false;
    } else if (tag === 'td' || tag === 'th') {
      if (table.row === null) {
        table.row = [];
        table.rowInHead = false;
        table.rowHasData = false;
      }
      if (tag === 'td') table.rowHasData = true;
      const span = Number.parseInt(this.tape.attrs[id]!.colspan ?? '1', 10);
      for (let i = 1; i < Math.min(Number.isFinite(span) ? span : 1, 50); i++) table.row.push('');
      table.row.push('');
      this.startCell();
    } else if (tag === 'caption') {
      table.inCaption = true;
      this.startCell();
    }
  }

  private closeTablePart(tag: string): void {
    const table = this.gridTable();
    if (table === undefined) return;
    if (tag === 'tr') this.finishRow(table);
    else if ((tag === 'td' || tag === 'th') && this.cellDepth > 0) {
      const text = this.endCell();
      if (table.row !== null) table.row[table.row.length - 1] = text;
    } else if (tag === 'caption' && table.inCaption) {
      table.inCaption = false;
      table.caption = this.endCell();
    }
  }

  private startCell(): void {
    this.buf = '';
    this.head = '';
    this.cellDepth++;
  }

  private endCell(): string {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const frame = this.frames[i]!;
      this.wrapFrame(frame);
      if (frame.type === Frame.Link) this.linkDepth--;
    }
    this.frames.length = 0;
    this.cellDepth--;
    const text = this.buf.replace(/\s+/g, ' ').trim();
    this.buf = '';
    return text;
  }

  private finishRow(table: TableState): void {
    if (table.row === null) return;
    if (table.row.length > 0) table.rows.push({ cells: table.row, header: table.rowInHead || (!table.rowHasData && table.rows.length === 0) });
    table.row = null;
  }
}

function newTable(mode: TableMode, outerFrames: InlineFrame[]): TableState {
  return { mode, rows: [], caption: '', row: null, rowInHead: false, rowHasData: false, inCaption: false, outerFrames };
}

export function renderMarkdown(tape: Tape, selection: Selection, urls: UrlResolver): string {
  const emitter = new BlockEmitter(tape, urls, false, selection.captionAlt);
  walkSelection(tape, selection, emitter);
  return emitter.result();
}

export function renderText(tape: Tape, selection: Selection, urls: UrlResolver): string {
  const emitter = new BlockEmitter(tape, urls, true);
  walkSelection(tape, selection, emitter);
  return emitter.result();
}
