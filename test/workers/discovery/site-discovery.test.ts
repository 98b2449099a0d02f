import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { DomainScope } from '../../../workers/discovery/domain-scope.js';
import { extractLinks } from '../../../workers/discovery/link-extractor.js';
import { NormalizedUrlSet } from '../../../common/url-normalizer.js';

const SITE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../shared/data/sites/rust-by-example.tar.gz');
const START = 'http://site.test/index.html';

/**
 * Link extraction, normalisation and scope together on a real static site,
 * read from disk instead of over HTTP: a breadth-first walk from index.html.
 */
describe('discovery/whole site walk (rust-by-example)', () => {
  let root: string;

  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'trawl-discovery-'));
    execFileSync('tar', ['-xzf', SITE, '-C', root]);
  });

  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  function fileOf(url: string): string | null {
    const { pathname } = new URL(url);
    const file = path.join(root, decodeURIComponent(pathname.endsWith('/') ? `${pathname}index.html` : pathname));
    return file.endsWith('.html') && existsSync(file) ? file : null;
  }

  it('finds all 193 pages reachable from index.html, each once, with depths from the start page', () => {
    const scope = new DomainScope(START);
    const seen = new NormalizedUrlSet();
    const depths = new Map<string, number>();
    const queue: string[] = [seen.add(START)!];
    depths.set(queue[0]!, 0);
    let duplicates = 0;
    const visited: string[] = [];
    while (queue.length > 0) {
      const url = queue.shift()!;
      const file = fileOf(url);
      if (file === null) continue;
      visited.push(url);
      for (const link of extractLinks(readFileSync(file, 'utf8'), url).links) {
        if (!scope.contains(link.url)) continue;
        const key = seen.add(link.url);
        if (key === null) {
          duplicates++;
          continue;
        }
        depths.set(key, depths.get(url)! + 1);
        queue.push(key);
      }
    }
    expect(visited).to.have.length(193);
    expect(new Set(visited).size).to.equal(193);
    expect(duplicates).to.be.greaterThan(1_000);
    // The book's sidebar lists every chapter on every page, so all pages are one hop from the start.
    expect(visited.filter((u) => depths.get(u) === 0)).to.deep.equal([START]);
    expect(visited.filter((u) => depths.get(u) === 1)).to.have.length(192);
  });
});
