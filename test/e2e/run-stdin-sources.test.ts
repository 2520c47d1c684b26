/**
 * `keen run` with stdin redirected from a file or from /dev/null (scripts, CI): these are read in
 * one call instead of as a stream (src/cli/stdin.ts), and must behave as a pipe with the same
 * bytes does. And stdout, which is built at the first write: a reader that went away (a closed
 * terminal, `| head -c0`) must not turn the answer into a crash.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { errorLines, FAKE_KEY, useCliRig, userTexts } from './cli-fixtures.js';
import { cleanEnv, KEEN_BIN, type RunResult } from './harness.js';
import type { Workspace } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

/** `bin` ARGS with `stdin` (a descriptor, or an empty pipe) and `env` (the fake's by default). */
function spawnKeen(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; stdin: number | 'empty-pipe'; bin?: string }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? KEEN_BIN, ...args], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: [opts.stdin === 'empty-pipe' ? 'pipe' : opts.stdin, 'pipe', 'pipe'],
    });
    if (opts.stdin === 'empty-pipe') child.stdin?.end();
    else fs.closeSync(opts.stdin);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const fakeEnv = (ws: Workspace) => cleanEnv({ KEEN_HOME: ws.home, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: rig.fake.url });

/** `keen ARGS` with stdin opened from `stdinPath` (not a pipe); `flags` 'w' opens it write-only. */
function keenWithStdinFrom(ws: Workspace, args: string[], stdinPath: string, flags: 'r' | 'w' = 'r'): Promise<RunResult> {
  return spawnKeen(args, { cwd: ws.cwd, env: fakeEnv(ws), stdin: fs.openSync(stdinPath, flags) });
}

describe('keen run: stdin from a file or a device', () => {
  it('reads a redirected file whole (UTF-8 across the whole text) and adds it after the words', async () => {
    const ws = workspace();
    const input = path.join(ws.home, 'prompt.txt');
    const body = `${'résumé ✓ '.repeat(20_000)}\nthe end\n`;
    fs.writeFileSync(input, body);
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Read the file.' }] });

    const r = await keenWithStdinFrom(ws, ['run', 'summarise this:'], input);

    expect(errorLines(r.stderr)).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Read the file.\n');
    const sent = userTexts(rig.since(from)[0]).join('');
    expect(sent.startsWith('summarise this:')).toBe(true);
    expect(sent).toContain(body.trim());
  });

  it('with stdin from /dev/null sends the words alone', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'Hello.' }] });

    const r = await keenWithStdinFrom(ws, ['run', 'say hello'], '/dev/null');

    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Hello.\n');
    expect(userTexts(rig.since(from)[0])).toEqual(['say hello']);
  });

  it('with stdin from /dev/null and no words: the one-line "no message" error, nothing sent, no session', async () => {
    const ws = workspace();
    const from = rig.fake.requests.length;

    const r = await keenWithStdinFrom(ws, ['run'], '/dev/null');

    expect(r.code).not.toBe(0);
    expect(errorLines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/no message/);
    expect(rig.since(from)).toHaveLength(0);
    expect(fs.existsSync(path.join(ws.home, 'sessions'))).toBe(false);
  });

  it('with stdin that cannot be read (opened for writing only): one line naming stdin, no session', async () => {
    const ws = workspace();
    const out = path.join(ws.home, 'write-only.txt');
    fs.writeFileSync(out, '');
    const r = await keenWithStdinFrom(ws, ['run', 'say hello'], out, 'w');
    expect(r.code).toBe(2);
    expect(errorLines(r.stderr)).toEqual([expect.stringMatching(/^keen: could not read stdin: .*EBADF/)]);
    expect(fs.existsSync(path.join(ws.home, 'sessions'))).toBe(false);
  });

  it('with stdin from an empty file and no words: the same error', async () => {
    const ws = workspace();
    const empty = path.join(ws.home, 'empty.txt');
    fs.writeFileSync(empty, '');
    const r = await keenWithStdinFrom(ws, ['run'], empty);
    expect(r.code).not.toBe(0);
    expect(errorLines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/no message/);
  });
});

describe('keen run: a stdout nobody reads any more', () => {
  it('the answer is still saved and the run ends without a stack trace', async () => {
    const ws = workspace();
    rig.fake.enqueue({ steps: [{ text: 'x'.repeat(256 * 1024) }] });
    const child = spawn(process.execPath, [KEEN_BIN, 'run', 'write a lot'], {
      cwd: ws.cwd,
      env: cleanEnv({ KEEN_HOME: ws.home, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: rig.fake.url }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.destroy(); // the read end closes before anything is printed: every write fails with EPIPE
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
    const transcripts = fs
      .readdirSync(path.join(ws.home, 'sessions'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('transcript_events.jsonl'));
    expect(transcripts).toHaveLength(1);
    const text = fs.readFileSync(path.join(ws.home, 'sessions', transcripts[0]), 'utf8');
    expect(text).toContain('"kind":"assistant_turn"');
  });
});

describe('keen run: stdin a pipe, installed behind a symlinked node_modules (as pnpm lays it out)', () => {
  it('a provider loaded from node_modules at run time (genkit) still resolves its dependencies through the symlinks', async () => {
    const ws = workspace();
    const root = path.resolve(import.meta.dirname, '../..');
    const install = path.join(ws.home, 'install');
    for (const dir of ['bin', 'dist']) fs.cpSync(path.join(root, dir), path.join(install, dir), { recursive: true });
    fs.copyFileSync(path.join(root, 'package.json'), path.join(install, 'package.json'));
    fs.symlinkSync(path.join(root, 'node_modules'), path.join(install, 'node_modules'));
    const gemini = await startGeminiFake();
    try {
      gemini.enqueue({ steps: [{ text: 'Gemini answered.' }] });
      const r = await spawnKeen(['run', '--provider', 'genkit', 'say hello'], {
        bin: path.join(install, 'bin', 'keen.js'),
        cwd: ws.cwd,
        env: cleanEnv({ KEEN_HOME: ws.home, GEMINI_API_KEY: 'test-gemini-key', GOOGLE_GEMINI_BASE_URL: gemini.url }),
        stdin: 'empty-pipe',
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('Gemini answered.\n');
    } finally {
      await gemini.close();
    }
  });
});
