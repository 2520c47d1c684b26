import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASH_HEAD_CHARS, BASH_MAX_OUTPUT_BYTES, BASH_TAIL_CHARS } from '../../src/tools/bash.js';
import { createDefaultRegistry } from '../../src/tools/index.js';
import { call as callTool } from './helpers.js';
import { alive } from '../kit/processes.js';
import { tempProject } from '../kit/temp-dir.js';

/** These tests watch host PIDs, so they run without the sandbox (its PID namespace has its own). */
const unsandboxed = createDefaultRegistry({ sandbox: { mode: 'off', network: true } });
const call: typeof callTool = (cwd, name, args, options = {}) => callTool(cwd, name, args, { registry: unsandboxed, ...options });

/** Which of `pids` still run once all are gone, or once a wait far beyond a kill's has passed. */
async function waitGone(pids: number[], ms = 20_000): Promise<boolean[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const states = pids.map(alive);
    if (!states.some(Boolean) || Date.now() > deadline) return states;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function readPid(file: string): Promise<number> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (/^\d+\n$/.test(text)) return Number(text);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no pid in ${file}`);
}

/** A child and a grandchild (in a nested bash), both sleeping, pids written to files. */
const FAMILY = `sleep 300 & echo $! > child.pid; bash -c 'sleep 301 & echo $! > grand.pid; wait' & wait`;

describe('bash', () => {
  it('runs in the workspace and reports output and exit code', async () => {
    const dir = tempProject();
    const msg = await call(dir, 'bash', { command: 'pwd; echo oops >&2; exit 3' });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toBe(`${dir}\noops\n[exit code 3]`);
    const ok = await call(dir, 'bash', { command: 'true' });
    expect(ok).toMatchObject({ content: '(no output)\n[exit code 0]' });
    expect(ok.is_error).toBeUndefined();
  });

  it('gives commands an empty stdin instead of hanging', async () => {
    const dir = tempProject();
    expect((await call(dir, 'bash', { command: 'cat; echo done' })).content).toBe('done\n[exit code 0]');
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    const dir = tempProject();
    // FAMILY sleeps for minutes: the call ends under the test timeout only if the timeout kills it.
    const msg = await call(dir, 'bash', { command: FAMILY, timeout_seconds: 0.5 });
    expect(msg.is_error).toBe(true);
    expect(msg.content).toBe('(no output)\n[timed out after 0.5s; the command and its child processes were killed]');
    const pids = [await readPid(path.join(dir, 'child.pid')), await readPid(path.join(dir, 'grand.pid'))];
    expect(await waitGone(pids)).toEqual([false, false]);
  });

  it('escalates to SIGKILL for a grandchild that ignores SIGTERM', async () => {
    const dir = tempProject();
    const msg = await call(dir, 'bash', {
      command: `bash -c "trap '' TERM; sleep 300 & echo \\$! > stubborn.pid; wait" & wait`,
      timeout_seconds: 0.3,
    });
    expect(msg.content).toContain('[timed out after 0.3s');
    const pid = await readPid(path.join(dir, 'stubborn.pid'));
    expect(await waitGone([pid])).toEqual([false]);
  });

  it('returns "cancelled" on abort and kills the process group', async () => {
    const dir = tempProject();
    const ac = new AbortController();
    const pending = call(dir, 'bash', { command: FAMILY }, { signal: ac.signal });
    const pids = [await readPid(path.join(dir, 'child.pid')), await readPid(path.join(dir, 'grand.pid'))];
    expect(pids.map(alive)).toEqual([true, true]);
    ac.abort();
    expect(await pending).toMatchObject({ is_error: true, content: 'cancelled' });
    expect(await waitGone(pids)).toEqual([false, false]);
  });

  it('keeps the head and tail of long output and says exactly how much was cut', async () => {
    const dir = tempProject();
    const msg = await call(dir, 'bash', { command: 'seq 1 100000' });
    const full = Array.from({ length: 100000 }, (_, k) => `${k + 1}\n`).join('');
    const lines = msg.content.split('\n');
    expect(lines.at(-1)).toBe('[exit code 0]');
    const markerAt = lines.findIndex((l) => l.startsWith('[... '));
    const m = /^\[\.\.\. (\d+) lines \((\d+) characters\) cut from the middle of the output \.\.\.\]$/.exec(lines[markerAt]);
    expect(m).not.toBeNull();
    const head = lines.slice(0, markerAt);
    const tail = lines.slice(markerAt + 1, -1);
    expect(head[0]).toBe('1');
    expect(tail.at(-1)).toBe('100000');
    // Whole lines on both sides, consecutive numbers, and the counts add up exactly.
    expect(Number(tail[0]) - Number(head.at(-1)) - 1).toBe(Number(m![1]));
    const kept = head.join('\n').length + 1 + tail.join('\n').length + 1;
    expect(kept + Number(m![2])).toBe(full.length);
    expect(msg.content.length).toBeLessThan(BASH_HEAD_CHARS + BASH_TAIL_CHARS + 200);
  });

  it('stops a command whose output passes the volume cap, and says so', async () => {
    const dir = tempProject();
    const msg = await call(dir, 'bash', { command: 'yes; echo never' });
    expect(msg.is_error).toBe(true);
    const lines = msg.content.split('\n');
    expect(lines[0]).toBe('y');
    expect(lines.at(-1)).toBe(`[stopped after ${BASH_MAX_OUTPUT_BYTES / (1024 * 1024)} MB of output; the command and its child processes were killed]`);
    const m = /^\[\.\.\. (\d+) lines \((\d+) characters\) cut from the middle/.exec(lines.find((l) => l.startsWith('[... ')) ?? '');
    // Everything up to the cap was counted, nothing after it: `echo never` never ran.
    expect(Number(m?.[2]) + msg.content.length).toBeGreaterThan(BASH_MAX_OUTPUT_BYTES - BASH_HEAD_CHARS);
    expect(Number(m?.[2])).toBeLessThan(BASH_MAX_OUTPUT_BYTES);
    expect(msg.content).not.toContain('never');
  });

  it('does not wait for background processes that keep the output open, and stops them when it ends', async () => {
    const dir = tempProject();
    // The background sleep holds the output open far beyond the test timeout: the call ends at
    // all only if it stops reading once bash has exited.
    const msg = await call(dir, 'bash', { command: 'sleep 1001 & echo $! > bg.pid; echo started' });
    expect(msg.content).toBe('started\n[exit code 0]\n[the processes it left running in the background were stopped when it ended]');
    expect(await waitGone([await readPid(path.join(dir, 'bg.pid'))])).toEqual([false]);
  });

  it('a background command with redirected output does not outlive the call', async () => {
    const dir = tempProject();
    const msg = await call(dir, 'bash', { command: 'sleep 1002 >/dev/null 2>&1 & echo $! > bg.pid' });
    expect(msg.content).toContain('[the processes it left running in the background were stopped when it ended]');
    expect(await waitGone([await readPid(path.join(dir, 'bg.pid'))])).toEqual([false]);
  });

  it('refuses a timeout above the maximum, naming the field', async () => {
    const dir = tempProject();
    expect(await call(dir, 'bash', { command: 'true', timeout_seconds: 1200 })).toMatchObject({
      is_error: true,
      content: 'Invalid arguments for bash: timeout_seconds: Too big: expected number to be <=600.',
    });
  });
});

describe('bash environment', () => {
  it('withholds every credential and secret-looking variable unless bash.envPassthrough names it', async () => {
    const dir = tempProject();
    const secrets: Record<string, string> = {
      ANTHROPIC_API_KEY: 'v-anthropic',
      ANTHROPIC_AUTH_TOKEN: 'v-auth',
      OPENAI_API_KEY: 'v-openai',
      GEMINI_API_KEY: 'v-gemini',
      AWS_SECRET_ACCESS_KEY: 'v-aws',
      AWS_SESSION_TOKEN: 'v-awssession',
      MY_SERVICE_KEY: 'v-key',
      GITHUB_TOKEN: 'v-gh',
      APP_SECRET: 'v-secret',
      DB_PASSWORD: 'v-pw',
      SOME_CREDENTIALS_FILE: 'v-cred',
      CUSTOM_LLM: 'v-custom',
      NPM_TOKEN: 'v-kept',
    };
    Object.assign(process.env, secrets, { KEEN_TEST_PLAIN_VAR: 'still-here' });
    try {
      const registry = createDefaultRegistry({ sandbox: { mode: 'off', network: true }, env: { passthrough: ['NPM_TOKEN'], withhold: ['CUSTOM_LLM'] } });
      const msg = await callTool(dir, 'bash', { command: 'env' }, { registry });
      for (const [name, value] of Object.entries(secrets)) {
        if (name === 'NPM_TOKEN') expect(msg.content).toContain(`NPM_TOKEN=${value}`);
        else expect(msg.content, name).not.toContain(value);
      }
      expect(msg.content).toContain('KEEN_TEST_PLAIN_VAR=still-here');
    } finally {
      for (const name of [...Object.keys(secrets), 'KEEN_TEST_PLAIN_VAR']) delete process.env[name];
    }
  });

  it("does not hand Keen's provider keys to commands the model runs", async () => {
    const dir = tempProject();
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-leak-check-123';
    process.env.KEEN_TEST_PLAIN_VAR = 'still-here';
    try {
      const msg = await call(dir, 'bash', { command: 'echo "key=[$ANTHROPIC_API_KEY] plain=[$KEEN_TEST_PLAIN_VAR]"' });
      expect(msg.content).toContain('key=[] plain=[still-here]');
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
      delete process.env.KEEN_TEST_PLAIN_VAR;
    }
  });
});
