import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { reachableHtmlPages, unpackSite } from '../../test/fixtures/static-site-server.js';

/** Copies of each source in the site: 3 × 495 extraction pages and 6 × 193 rust-by-example pages, about 2,650 pages with the hubs. */
const EXTRACTION_COPIES = 3;
const RBE_COPIES = 6;

function hub(title: string, links: string[]): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></body></html>`;
}

/**
 * An extraction page with its links to its own site's pages (relative or
 * root-relative, which here would all answer 404) pointed at `#`: its links
 * to other sites are kept and lead out of the crawl's scope.
 */
function withoutLocalLinks(html: string): string {
  return html.replace(/(<a\b[^>]*?\bhref\s*=\s*)("[^"]*"|'[^']*')/gi, (all, prefix: string, quoted: string) =>
    /^["']\s*(https?:)?\/\//i.test(quoted) ? all : `${prefix}"#"`,
  );
}

/**
 * A static site of real pages from ../shared/data, linked into one graph:
 * `/` links to a hub per copy of each source; an extraction hub links every
 * page of the extraction set (the pages as they are, their own links mostly
 * to other sites); a rust-by-example copy is the whole site under its own
 * folder, entered at its index.html. Answers the folder it was built in and
 * the number of its reachable HTML pages.
 */
export function buildBenchSite(dataDir: string): { root: string; htmlFiles: number } {
  const rbe = unpackSite(path.join(dataDir, 'sites/rust-by-example.tar.gz'), 'bench-crawl-rbe');
  const root = mkdtempSync(path.join(tmpdir(), 'trawl-bench-crawl-site-'));
  const extractionDir = path.join(dataDir, 'extraction/html');
  const extraction = readdirSync(extractionDir).filter((f) => f.endsWith('.html.gz'));
  const top: string[] = [];
  let htmlFiles = 1;
  for (let c = 0; c < EXTRACTION_COPIES; c++) {
    const dir = path.join(root, 'ext', String(c));
    mkdirSync(dir, { recursive: true });
    const links = extraction.map((file) => {
      const name = file.replace(/\.gz$/, '');
      writeFileSync(path.join(dir, name), withoutLocalLinks(gunzipSync(readFileSync(path.join(extractionDir, file))).toString('utf8')));
      return `/ext/${c}/${name}`;
    });
    writeFileSync(path.join(dir, 'index.html'), hub(`Extraction pages, copy ${c}`, links));
    top.push(`/ext/${c}/index.html`);
    htmlFiles += links.length + 1;
  }
  const rbePages = reachableHtmlPages(rbe).size;
  for (let c = 0; c < RBE_COPIES; c++) {
    cpSync(rbe, path.join(root, 'rbe', String(c)), { recursive: true });
    top.push(`/rbe/${c}/index.html`);
    htmlFiles += rbePages;
  }
  rmSync(rbe, { recursive: true, force: true });
  writeFileSync(path.join(root, 'index.html'), hub('Bench site', top));
  return { root, htmlFiles };
}
