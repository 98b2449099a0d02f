import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, cpSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../../deploy/local/processes.js';

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full, base) : [path.relative(base, full)];
  });
}

describe('generated protobuf code', function () {
  this.timeout(60_000);

  it('matches what buf generates from proto/ today', () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'trawl-proto-'));
    try {
      cpSync(path.join(ROOT, 'proto'), scratch, { recursive: true, filter: (src) => !src.includes(`${path.sep}gen`) });
      execFileSync(path.join(ROOT, 'node_modules/.bin/buf'), ['generate', '--template', 'buf.gen.yaml'], {
        cwd: scratch,
        env: { ...process.env, PATH: `${path.join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` },
        stdio: 'pipe',
      });
      const fresh = path.join(scratch, 'gen');
      const committed = path.join(ROOT, 'proto/gen');
      expect(listFiles(committed).sort()).to.deep.equal(listFiles(fresh).sort());
      for (const file of listFiles(fresh)) {
        expect(readFileSync(path.join(committed, file), 'utf8'), `proto/gen/${file} is stale: run npm run proto:generate`).to.equal(
          readFileSync(path.join(fresh, file), 'utf8'),
        );
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
