/**
 * `keen compact` cancelled by a signal: Ctrl+C (SIGINT), kill (SIGTERM) and a closed terminal
 * (SIGHUP) all cancel the summary mid-stream, leave the transcript byte for byte unchanged and
 * exit 130 — the same as a headless turn.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCompactionRequest } from '../kit/anthropic-wire-helpers.js';
import { FAKE_KEY, filesUnder, useCliRig } from './cli-fixtures.js';
import { cleanEnv, KEEN_BIN } from './harness.js';
import type { Workspace } from '../kit/temp-dir.js';

const { rig, workspace } = useCliRig();

/** Spawns `keen compact --session ID`, sends `sig` once the summary has begun streaming. */
function compactAndSignal(ws: Workspace, id: string, sig: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [KEEN_BIN, 'compact', '--session', id], {
      cwd: ws.cwd,
      env: cleanEnv({ KEEN_HOME: ws.home, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: rig.fake.url }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (d) => {
      stdout += d;
      if (!sent && stdout.includes('## Goal')) {
        sent = true;
        child.kill(sig);
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('keen compact cancelled by a signal', () => {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${sig}: compaction cancelled, history unchanged, exit 130`, async () => {
      const ws = workspace();
      rig.fake.setResponder(undefined);
      rig.fake.enqueue({ steps: [{ text: 'Hello there.' }] });
      const first = await rig.keen(ws, ['run', '--format', 'json', 'Say hello.']);
      expect(first.code).toBe(0);
      const id = JSON.parse(first.stdout).session_id as string;
      const transcript = filesUnder(path.join(ws.home, 'sessions')).find((f) => f.endsWith('transcript_events.jsonl'))!;
      const before = fs.readFileSync(transcript, 'utf8');

      const from = rig.fake.requests.length;
      // The summary starts, then stalls: the signal arrives mid-stream.
      rig.fake.enqueue({ steps: [{ text: '## Goal\nSay hello.\n' }, { hold: true }, { text: '## Accomplished\nGreeted.' }] });
      const end = await compactAndSignal(ws, id, sig);
      expect(isCompactionRequest(rig.since(from)[0])).toBe(true);
      expect({ code: end.code, signal: end.signal }).toEqual({ code: 130, signal: null });
      expect(end.stderr).toMatch(/^keen: compaction failed: .*the session is unchanged\n$/);
      expect(fs.readFileSync(transcript, 'utf8')).toBe(before);
    });
  }
});
