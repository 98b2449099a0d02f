import { TrawlError } from '../../../../common/errors.js';
import { RAG_DEFAULT_CHUNK_OVERLAP as DEFAULT_CHUNK_OVERLAP, RAG_DEFAULT_CHUNK_SIZE as DEFAULT_CHUNK_SIZE } from '../../../../common/limits.js';
import { parseMarkdownBlocks, type MarkdownBlock } from './markdown-blocks.js';
import { sentenceSegmenter, sentenceSpans, tokenSpans } from './text-splitting.js';
import { cl100kTokenizer, type Tokenizer } from './tokenizer.js';

export { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE };

export interface ChunkOptions {
  /** Maximum tokens per chunk, overlap included. Default 512. */
  chunkSize?: number;
  /** Tokens repeated from the end of the previous chunk of the same section. Default 64. */
  overlap?: number;
  sourceUrl?: string | null;
  /** Defaults to cl100k_base. */
  tokenizer?: Tokenizer;
}

/** One `rag` chunk. */
export interface RagChunk {
  /** 0-based index in the document. */
  position: number;
  content: string;
  /** cl100k_base tokens in `content`. */
  token_count: number;
  /** Texts of the headings the chunk sits under, outermost first. */
  heading_path: string[];
  source_url: string | null;
  /** Span of the source Markdown the chunk covers, overlap included (end exclusive). */
  char_start: number;
  char_end: number;
}

/**
 * A piece of a section the chunker packs. `synthetic` pieces are table or
 * code fragments re-wrapped with their header row or fence, so their text is
 * not a plain slice of the source.
 */
interface Unit {
  start: number;
  end: number;
  text: string;
  tokens: number;
  synthetic: boolean;
}

interface Section {
  path: string[];
  level: number;
  blocks: MarkdownBlock[];
}

function sections(blocks: MarkdownBlock[]): Section[] {
  const out: Section[] = [{ path: [], level: 0, blocks: [] }];
  const stack: Array<{ level: number; text: string }> = [];
  for (const block of blocks) {
    if (block.kind === 'heading') {
      const level = block.level ?? 1;
      while (stack.length > 0 && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, text: block.text ?? '' });
      out.push({ path: stack.map((h) => h.text), level, blocks: [block] });
    } else out[out.length - 1]!.blocks.push(block);
  }
  return out.filter((s) => s.blocks.length > 0);
}

class Chunker {
  private readonly chunks: RagChunk[] = [];
  private readonly segmenter = sentenceSegmenter();

  constructor(
    private readonly source: string,
    private readonly size: number,
    private readonly overlap: number,
    private readonly sourceUrl: string | null,
    private readonly tokenizer: Tokenizer,
  ) {}

  private unit(start: number, end: number): Unit {
    const text = this.source.slice(start, end);
    return { start, end, text, tokens: this.tokenizer.count(text), synthetic: false };
  }

  /** Sentences, then token pieces, for a span too big for one chunk. */
  private splitProse(start: number, end: number): Unit[] {
    const units: Unit[] = [];
    for (const s of sentenceSpans(this.source.slice(start, end), start, this.segmenter)) {
      const u = this.unit(s.start, s.end);
      if (u.tokens <= this.size) units.push(u);
      else for (const piece of tokenSpans(s.text, s.start, this.size, this.tokenizer)) units.push(this.unit(piece.start, piece.end));
    }
    return units;
  }

  /** Table rows or code lines, each piece carrying the table header or the code fence so it stands alone. */
  private splitLines(block: MarkdownBlock): Unit[] {
    const parts = block.parts ?? [block.start];
    const lineEnd = (i: number): number => (i + 1 < parts.length ? parts[i + 1]! - 1 : block.end);
    const isCode = block.kind === 'code';
    const closing = isCode ? (this.source.slice(block.start, block.end).match(/\n([`~]{3,})\s*$/)?.[1] ?? '```') : '';
    const headEnd = isCode ? lineEnd(0) : lineEnd(Math.min(1, parts.length - 1));
    const head = this.source.slice(block.start, headEnd);
    const firstBody = isCode ? 1 : 2;
    const wrap = (body: string): string => (isCode ? `${head}\n${body}\n${closing}` : `${head}\n${body}`);
    const overhead = this.tokenizer.count(wrap(''));
    const units: Unit[] = [];
    // `estimate` adds each line's own count (and one for its line break) to the piece's; as in
    // section(), the joined text is counted exactly only near the limit, so a piece of many
    // short lines costs linear, not quadratic, tokenizing.
    let current: { start: number; end: number; estimate: number } | null = null;
    const push = (start: number, end: number): void => {
      const body = this.source.slice(start, end).replace(/\n[`~]{3,}\s*$/, '');
      const text = wrap(body);
      units.push({ start, end, text, tokens: this.tokenizer.count(text), synthetic: true });
    };
    for (let i = firstBody; i < parts.length; i++) {
      const start = parts[i]!;
      const end = lineEnd(i);
      const lineTokens = this.tokenizer.count(this.source.slice(start, end));
      if (current) {
        const estimate = current.estimate + lineTokens + 1;
        if (estimate + 8 <= this.size) {
          current.end = end;
          current.estimate = estimate;
          continue;
        }
        const exact = this.tokenizer.count(wrap(this.source.slice(current.start, end)));
        if (exact <= this.size) {
          current.end = end;
          current.estimate = exact;
          continue;
        }
      }
      if (current) push(current.start, current.end);
      current = null;
      if (overhead + lineTokens + 8 <= this.size) current = { start, end, estimate: overhead + lineTokens };
      else if (this.tokenizer.count(wrap(this.source.slice(start, end))) <= this.size) {
        current = { start, end, estimate: this.tokenizer.count(wrap(this.source.slice(start, end))) };
      }
      else {
        // One row or line longer than a chunk: cut it by tokens, without the wrapper if even that does not fit.
        const room = this.size - overhead;
        const line = this.source.slice(start, end);
        if (room >= 1) for (const p of tokenSpans(line, start, room, this.tokenizer)) push(p.start, p.end);
        else for (const p of tokenSpans(line, start, this.size, this.tokenizer)) units.push(this.unit(p.start, p.end));
      }
    }
    if (current) push(current.start, current.end);
    return units;
  }

  private units(block: MarkdownBlock): Unit[] {
    const whole = this.unit(block.start, block.end);
    if (whole.tokens <= this.size) return [whole];
    if (block.kind === 'code' || block.kind === 'table') return this.splitLines(block);
    if (block.kind === 'list' && block.parts && block.parts.length > 1) {
      const units: Unit[] = [];
      block.parts.forEach((start, i) => {
        const end = i + 1 < block.parts!.length ? block.parts![i + 1]! : block.end;
        const trimmedEnd = start + this.source.slice(start, end).trimEnd().length;
        const item = this.unit(start, trimmedEnd);
        units.push(...(item.tokens <= this.size ? [item] : this.splitProse(start, trimmedEnd)));
      });
      return units;
    }
    return this.splitProse(block.start, block.end);
  }

  private content(units: Unit[], overlapStart: number | null): string {
    let text = '';
    let prev: Unit | null = null;
    if (overlapStart !== null && units.length > 0 && !units[0]!.synthetic) {
      text = this.source.slice(overlapStart, units[0]!.start);
    }
    for (const u of units) {
      if (prev) text += !prev.synthetic && !u.synthetic && u.start >= prev.end ? this.source.slice(prev.end, u.start) : '\n\n';
      text += u.text;
      prev = u;
    }
    return text;
  }

  /**
   * Where the overlap for the next chunk starts: the earliest sentence start
   * in the previous chunk whose tail fits in `overlap` tokens, else the last
   * `overlap` tokens. Null when there is nothing to repeat.
   */
  private overlapStart(units: Unit[], budget: number): number | null {
    if (budget <= 0 || units.length === 0 || units.some((u) => u.synthetic)) return null;
    const start = units[0]!.start;
    const end = units[units.length - 1]!.end;
    const text = this.source.slice(start, end);
    const starts = sentenceSpans(text, start, this.segmenter).map((s) => s.start).filter((s) => s > start);
    let best: number | null = null;
    for (let i = starts.length - 1; i >= 0; i--) {
      if (this.tokenizer.count(this.source.slice(starts[i]!, end)) > budget) break;
      best = starts[i]!;
    }
    if (best !== null) return best;
    const tokens = this.tokenizer.encode(text);
    if (tokens.length <= 1) return null;
    let take = Math.min(budget, tokens.length - 1);
    while (take > 0) {
      const tail = this.tokenizer.decode(tokens.slice(tokens.length - take));
      if (text.endsWith(tail)) {
        const at = end - tail.length;
        return at + (tail.length - tail.replace(/^\s+/, '').length);
      }
      take--;
    }
    return null;
  }

  private emit(units: Unit[], overlapStart: number | null, path: string[]): void {
    const content = this.content(units, overlapStart);
    const charStart = overlapStart !== null && !units[0]!.synthetic ? overlapStart : units[0]!.start;
    this.chunks.push({
      position: this.chunks.length,
      content,
      token_count: this.tokenizer.count(content),
      heading_path: path,
      source_url: this.sourceUrl,
      char_start: charStart,
      char_end: units[units.length - 1]!.end,
    });
  }

  /** Tokens between two units in a chunk: the source between them, or the blank line joining re-wrapped pieces. */
  private gapTokens(prev: Unit, next: Unit): number {
    const gap = !prev.synthetic && !next.synthetic && next.start >= prev.end ? this.source.slice(prev.end, next.start) : '\n\n';
    return gap === '' ? 0 : this.tokenizer.count(gap);
  }

  private overlapTokens(overlapStart: number | null, first: Unit): number {
    return overlapStart === null || first.synthetic ? 0 : this.tokenizer.count(this.source.slice(overlapStart, first.start));
  }

  /**
   * Packs a section's units into chunks. The running estimate adds unit and
   * gap counts; joined text rarely needs more tokens than its parts, so only
   * near the limit is the exact count of the joined text taken.
   */
  section(units: Unit[], path: string[]): void {
    let current: Unit[] = [];
    let overlapStart: number | null = null;
    let estimate = 0;
    for (const unit of units) {
      if (current.length > 0) {
        const candidate = estimate + this.gapTokens(current[current.length - 1]!, unit) + unit.tokens;
        if (candidate + 8 <= this.size || this.tokenizer.count(this.content([...current, unit], overlapStart)) <= this.size) {
          current.push(unit);
          estimate = candidate;
          continue;
        }
        this.emit(current, overlapStart, path);
        overlapStart = this.overlapStart(current, this.overlap);
      }
      current = [unit];
      estimate = this.overlapTokens(overlapStart, unit) + unit.tokens;
      while (overlapStart !== null && estimate + 8 > this.size && this.tokenizer.count(this.content(current, overlapStart)) > this.size) {
        overlapStart = this.shrinkOverlap(overlapStart, unit.start);
        estimate = this.overlapTokens(overlapStart, unit) + unit.tokens;
      }
    }
    if (current.length > 0) this.emit(current, overlapStart, path);
  }

  /** A later start for an overlap that leaves no room: the next sentence, else nothing. */
  private shrinkOverlap(from: number, until: number): number | null {
    const later = sentenceSpans(this.source.slice(from, until), from, this.segmenter).map((s) => s.start).filter((s) => s > from);
    return later[0] ?? null;
  }

  run(): RagChunk[] {
    let carried: Unit[] = [];
    const all = sections(parseMarkdownBlocks(this.source));
    all.forEach((section, i) => {
      const units = [...carried, ...section.blocks.flatMap((b) => this.units(b))];
      carried = [];
      const headingOnly = section.blocks.length === 1 && section.blocks[0]!.kind === 'heading';
      const next = all[i + 1];
      // A heading with no text of its own joins the chunk of the subsection right under it.
      if (headingOnly && next && next.level > section.level && units.every((u) => !u.synthetic)) {
        carried = units;
        return;
      }
      this.section(units, section.path);
    });
    return this.chunks;
  }
}

/**
 * Chunks Markdown for retrieval: cut at section boundaries, then between
 * blocks; a block bigger than a chunk is cut between list items, table rows or
 * code lines (tables repeat their header, code keeps its fence), prose between
 * sentences, and only a sentence bigger than a chunk by tokens. Chunks never
 * exceed `chunkSize` tokens; the one exception is a single character that
 * alone encodes to more tokens than a (tiny) chunkSize.
 */
export function chunkMarkdown(markdown: string, options: ChunkOptions = {}): RagChunk[] {
  const size = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const overlap = options.overlap ?? DEFAULT_CHUNK_OVERLAP;
  if (!Number.isInteger(size) || size < 1) {
    throw new TrawlError('VALIDATION_ERROR', 'chunkSize must be a positive integer', { field: 'chunk_size' });
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new TrawlError('VALIDATION_ERROR', 'overlap must be an integer from 0 to chunkSize - 1', { field: 'chunk_overlap' });
  }
  const tokenizer = options.tokenizer ?? cl100kTokenizer();
  return new Chunker(markdown, size, overlap, options.sourceUrl ?? null, tokenizer).run();
}
