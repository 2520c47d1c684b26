/**
 * A full disk never throws the answer away: with KEEN_HOME on a real, nearly full tmpfs (and, on
 * any machine, under a file-size limit that makes the transcript write fail with EFBIG), a 100 KB
 * answer is still printed, `--format json` still writes its object with `is_error: true` and the
 * error, and the exit code is 1.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { errorLines, FAKE_KEY, useCliRig } from './cli-fixtures.js';
import { cleanEnv, KEEN_BIN } from './harness.js';
import type { Workspace } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

const ANSWER = Array.from({ length: 2000 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog.`).join('\n');

/** Mount a tmpfs of `size` at a fresh directory; undefined where the OS does not allow it. */
function mountTmpfs(size: string): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keen-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    fs.rmdirSync(dir);
    return undefined;
  }
}

const mounted: string[] = [];
afterAll(() => {
  for (const dir of mounted) {
    execFileSync('umount', [dir], { stdio: 'ignore' });
    fs.rmdirSync(dir);
  }
});
const probe = mountTmpfs('64k');
if (probe) mounted.push(probe);

/** keen run with KEEN_HOME at `home`, optionally under `ulimit -f` (512-byte blocks). */
function keenAt(ws: Workspace, home: string, args: string[], fileLimitBlocks?: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const node = [process.execPath, KEEN_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const command = fileLimitBlocks ? `ulimit -f ${fileLimitBlocks}; exec ${node}` : `exec ${node}`;
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], {
      cwd: ws.cwd,
      env: cleanEnv({ KEEN_HOME: home, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: rig.fake.url }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function expectAnswerKept(ws: Workspace, home: string, limit?: number): Promise<void> {
  rig.fake.enqueue({ steps: [{ text: ANSWER }] });
  const text = await keenAt(ws, home, ['run', 'write a long answer'], limit);
  expect(text.code).toBe(1);
  expect(text.stdout).toBe(`${ANSWER}\n`);
  const lines = errorLines(text.stderr);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/could not save the turn: .*(ENOSPC|EFBIG)/);

  rig.fake.enqueue({ steps: [{ text: ANSWER }] });
  const json = await keenAt(ws, home, ['run', '--format', 'json', 'write a long answer'], limit);
  expect(json.code).toBe(1);
  const out = JSON.parse(json.stdout);
  expect(out.is_error).toBe(true);
  expect(out.result).toBe(ANSWER);
  expect(out.error.message).toMatch(/ENOSPC|EFBIG/);
}

describe('a full disk', () => {
  it.runIf(probe !== undefined)('KEEN_HOME on a nearly full tmpfs: the 100 KB answer is printed, JSON has is_error, exit 1', async () => {
    const ws = workspace();
    await expectAnswerKept(ws, probe!);
  });

  it('a file-size limit that fails the transcript write (EFBIG): the same', async () => {
    const ws = workspace();
    await expectAnswerKept(ws, ws.home, 64);
  });
});
