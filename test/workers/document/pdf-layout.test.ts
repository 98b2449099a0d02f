import { expect } from 'chai';
import { blocksOf, blocksToHtml, linesOfPage, withoutPageFurniture, type TextRun } from '../../../workers/pipeline/pdf/pdf-layout.js';

/** A run of text at (x, y) in a font of `size`, about half an em per character wide. */
const run = (text: string, x: number, y: number, size = 10, eol = false): TextRun => ({ text, x, y, size, width: text.length * size * 0.5, eol });

describe('PDF layout: lines, headings, paragraphs and tables from positioned text', () => {
  it('joins the runs of one baseline and splits a line into cells at wide gaps only', () => {
    const lines = linesOfPage([run('Hello', 10, 700), run('world', 38, 700, 10, true), run('Name', 10, 680), run('Price', 120, 680, 10, true)], 1);
    expect(lines.map((l) => l.cells.map((c) => c.text))).to.deep.equal([['Hello world'], ['Name', 'Price']]);
  });

  it('starts a new line when the baseline moves even without an end-of-line mark', () => {
    const lines = linesOfPage([run('First line', 10, 700), run('Second line', 10, 686)], 1);
    expect(lines).to.have.length(2);
  });

  it('finds headings by size, paragraphs by spacing, and tables by aligned columns', () => {
    const lines = linesOfPage(
      [
        run('Annual figures', 10, 760, 20, true),
        run('Revenue rose in every quarter of the year, and the costs of the new', 10, 730, 10, true),
        run('harbour crane were paid off.', 10, 718, 10, true),
        run('Costs', 10, 690, 14, true),
        run('A second para-', 10, 670, 10, true),
        run('graph follows after a gap.', 10, 658, 10, true),
        run('Quarter', 10, 630), run('Amount', 150, 630, 10, true),
        run('Q1', 10, 616), run('120', 150, 616, 10, true),
        run('Q2', 10, 602), run('135', 150, 602, 10, true),
      ],
      1,
    );
    const blocks = blocksOf(lines);
    expect(blocks).to.deep.equal([
      { kind: 'heading', level: 1, text: 'Annual figures' },
      { kind: 'paragraph', text: 'Revenue rose in every quarter of the year, and the costs of the new harbour crane were paid off.' },
      { kind: 'heading', level: 2, text: 'Costs' },
      { kind: 'paragraph', text: 'A second paragraph follows after a gap.' },
      { kind: 'table', rows: [['Quarter', 'Amount'], ['Q1', '120'], ['Q2', '135']] },
    ]);
    const html = blocksToHtml(blocks, 'Figures & <costs>');
    expect(html).to.contain('<title>Figures &amp; &lt;costs&gt;</title>');
    expect(html).to.contain('<thead><tr><th>Quarter</th><th>Amount</th></tr></thead>');
  });

  it('leaves running heads and page numbers out but keeps a chapter title that opens every page', () => {
    const lines = [1, 2, 3, 4].flatMap((page) =>
      linesOfPage(
        [
          run('Harbour Authority, internal', 200, 810, 8, true),
          run(`Chapter ${page}`, 10, 780, 16, true),
          run(`Text of chapter ${page}, long enough to be the body of the page.`, 10, 750, 10, true),
          run(`Another line of chapter ${page} that the body is made of.`, 10, 700, 10, true),
          run(String(page), 290, 30, 8, true),
        ],
        page,
      ),
    );
    const kept = withoutPageFurniture(lines, 4).map((l) => l.cells[0]!.text);
    expect(kept.filter((t) => t.startsWith('Chapter'))).to.have.length(4);
    expect(kept.filter((t) => t.startsWith('Text of chapter'))).to.have.length(4);
    expect(kept).not.to.include('Harbour Authority, internal');
    expect(kept).not.to.include('3');
  });

  it('keeps a repeated line of a two-page document, which is too short a run to call furniture', () => {
    const lines = [1, 2].flatMap((page) => linesOfPage([run('Notes', 10, 810, 8, true), run(`Body ${page} of the text here.`, 10, 700, 10, true)], page));
    expect(withoutPageFurniture(lines, 2)).to.have.length(4);
  });
});
