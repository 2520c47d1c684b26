/**
 * No fault loses a turn: `keen run` killed mid-tool with SIGHUP (a closed terminal) or SIGKILL.
 * Three write_file calls have finished and a `sleep` is running in bash when the signal arrives.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTranscript } from '../../src/transcript/reader.js';
import { errorLines, FAKE_KEY, filesUnder, toolResults, useCliRig } from './cli-fixtures.js';
import { cleanEnv, KEEN_BIN } from './harness.js';
import { alive } from '../kit/processes.js';
import type { Workspace } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

function script() {
  rig.fake.enqueue(...[1, 2, 3].map((n) => ({ steps: [{ text: `Writing ${n}.` }, { toolCall: { name: 'write_file', args: { path: `f${n}.txt`, content: `file ${n}\n` } } }] })), {
    steps: [{ toolCall: { name: 'bash', args: { command: 'sleep 300 & echo $! > sleep.pid; wait' } } }],
  });
}

function start(ws: Workspace): { child: ChildProcess; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> } {
  // Unsandboxed: the pid bash writes must be a host pid, and the process-group kill is what is
  // under test (in the sandbox, bubblewrap's die-with-parent ends commands; test/tools/sandbox).
  fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({ sandbox: { mode: 'off' } }));
  const child = spawn(process.execPath, [KEEN_BIN, 'run', '--yolo', 'write three files then wait'], {
    cwd: ws.cwd,
    env: cleanEnv({ KEEN_HOME: ws.home, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: rig.fake.url }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, exited };
}

async function until<T>(probe: () => T | undefined, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function sleepPid(ws: Workspace): Promise<number> {
  return until(() => {
    const text = fs.existsSync(path.join(ws.cwd, 'sleep.pid')) ? fs.readFileSync(path.join(ws.cwd, 'sleep.pid'), 'utf8').trim() : '';
    return /^\d+$/.test(text) ? Number(text) : undefined;
  }, 'bash to start sleep');
}

function transcriptOf(ws: Workspace): string {
  return filesUnder(path.join(ws.home, 'sessions')).find((f) => f.endsWith('transcript_events.jsonl'))!;
}

/** The tool messages on disk, in order, as [name, is_error, content]. */
async function storedResults(ws: Workspace): Promise<[string, boolean, string][]> {
  const { records } = await loadTranscript(transcriptOf(ws));
  return records
    .flatMap((r) => (r.kind === 'assistant_turn' ? r.messages : []))
    .flatMap((m) => (m.role === 'tool' ? [[m.name, !!m.is_error, m.content] as [string, boolean, string]] : []));
}

describe('a turn killed mid-tool', () => {
  it('SIGHUP: the finished tool results and the cancelled bash call are saved, sleep is killed, exit 130', async () => {
    const ws = workspace();
    script();
    const { child, exited } = start(ws);
    const pid = await sleepPid(ws);
    child.kill('SIGHUP');
    const end = await exited;
    expect(end.code).toBe(130);
    await until(() => (alive(pid) ? undefined : true), 'sleep to die');
    for (const n of [1, 2, 3]) expect(fs.readFileSync(path.join(ws.cwd, `f${n}.txt`), 'utf8')).toBe(`file ${n}\n`);
    const results = await storedResults(ws);
    expect(results.map(([name, isError]) => [name, isError])).toEqual([
      ['write_file', false],
      ['write_file', false],
      ['write_file', false],
      ['bash', true],
    ]);
    expect(results[3][2]).toBe('cancelled');
  });

  it('SIGKILL: every finished result is on disk; the next open records the running call as interrupted and the model sees it', async () => {
    const ws = workspace();
    script();
    const { child, exited } = start(ws);
    const pid = await sleepPid(ws);
    child.kill('SIGKILL');
    await exited;
    // Without a sandbox a command may outlive a SIGKILLed Keen (docs/security.md); end it here.
    if (alive(pid)) process.kill(pid, 'SIGKILL');

    const before = await storedResults(ws);
    expect(before.map(([name, isError]) => [name, isError])).toEqual([
      ['write_file', false],
      ['write_file', false],
      ['write_file', false],
    ]);

    const id = path.basename(path.dirname(transcriptOf(ws)));
    const from = rig.fake.requests.length;
    rig.fake.enqueue({ steps: [{ text: 'The wait was interrupted.' }] });
    const r = await rig.keen(ws, ['run', '--session', id, 'what happened?']);
    expect(r.code).toBe(0);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('interrupted');
    const sent = toolResults(rig.since(from)[0]);
    expect(sent.map((t) => t.isError)).toEqual([false, false, false, true]);
    expect(sent[3].text).toMatch(/^interrupted: /);
    const after = await storedResults(ws);
    expect(after[3]).toEqual(['bash', true, sent[3].text]);
  });
});
