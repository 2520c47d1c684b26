/** Small faults, each with a clear line: a config saved with a BOM, a read-only KEEN_HOME. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorLines, useCliRig } from './cli-fixtures.js';

const { rig, workspace } = useCliRig();

const mounted: string[] = [];
afterAll(() => {
  for (const dir of mounted) {
    execFileSync('umount', [dir], { stdio: 'ignore' });
    fs.rmdirSync(dir);
  }
});
function readOnlyMount(): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-ro-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=16k', 'tmpfs', dir], { stdio: 'ignore' });
    mounted.push(dir);
    return dir;
  } catch {
    fs.rmdirSync(dir);
    return undefined;
  }
}
const ro = readOnlyMount();

describe('small faults', () => {
  it('a config file that starts with a UTF-8 byte-order mark is read', async () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws.home, 'config.json'), `\uFEFF${JSON.stringify({ maxTurns: 1 })}`);
    rig.fake.enqueue({ steps: [{ toolCall: { name: 'read_file', args: { path: 'x' } } }] });
    const r = await rig.keen(ws, ['run', 'hi']);
    // maxTurns 1 from the BOM file took effect: the loop stops after one request.
    expect(r.code).toBe(2);
    expect(errorLines(r.stderr)).toEqual(['keen: stopped after the maximum number of tool turns (config maxTurns)']);
  });

  it.runIf(ro !== undefined)('a KEEN_HOME below a read-only folder is named as read-only, not as a missing folder', async () => {
    const ws = workspace();
    const r = await rig.keen(ws, ['run', 'hi'], { env: { KEEN_HOME: path.join(ro!, 'nested', '.keen') } });
    expect(r.code).toBe(1);
    const lines = errorLines(r.stderr);
    expect(lines).toEqual([`keen: cannot write Keen's state: ${ro} is on a read-only file system; set KEEN_HOME to a writable folder (now ${path.join(ro!, 'nested', '.keen')})`]);
  });
});
