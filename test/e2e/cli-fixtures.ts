/**
 * Shared pieces of the CLI end-to-end tests: the built-bundle check, a per-file Anthropic fake,
 * and readers for what the fake recorded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { RecordedRequest } from '../fakes/script.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { afterAll, beforeAll } from 'vitest';
import { runKeen, type RunResult } from './harness.js';
import { tempWorkspace, type Workspace } from '../kit/temp-dir.js';
import { isNoSandboxWarning } from '../kit/sandbox.js';

const DIST_MAIN = path.resolve(import.meta.dirname, '../../dist/main.js');

/** The e2e tests spawn the bundle; `npm test` builds it first. Fail loudly when it is missing. */
export function assertBuilt(): void {
  if (!fs.existsSync(DIST_MAIN)) {
    throw new Error(`${DIST_MAIN} is missing: run \`npm run build\` before the e2e tests (npm test does it)`);
  }
}

/** A recognisable fake key: the secret-leak checks grep KEEN_HOME for it. */
export const FAKE_KEY = 'sk-ant-e2e-SECRET-7f3a9c1d';

export interface CliRig {
  fake: ScriptedServer;
  /** `keen ARGS` in `ws` against the fake, with the fake key and KEEN_HOME set. */
  keen(ws: Workspace, args: string[], opts?: { stdin?: string; env?: Record<string, string | undefined> }): Promise<RunResult>;
  /** Requests the fake received since `from` (an index into fake.requests). */
  since(from: number): RecordedRequest[];
  /** Enqueues one reply with these tool calls and one final text; returns the index of the 2nd request. */
  script(calls: { name: string; args: unknown }[]): number;
}

export async function startRig(): Promise<CliRig> {
  assertBuilt();
  const fake = await startAnthropicFake();
  return {
    fake,
    keen: (ws, args, opts = {}) =>
      runKeen(args, {
        cwd: ws.cwd,
        home: ws.home,
        stdin: opts.stdin,
        env: { ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: fake.url, ...opts.env },
      }),
    since: (from) => fake.requests.slice(from),
    script: (calls) => {
      const from = fake.requests.length;
      fake.enqueue({ steps: calls.map((c) => ({ toolCall: c })) }, { steps: [{ text: 'done' }] });
      return from + 1;
    },
  };
}

interface WireBlock {
  type: string;
  text?: string;
  name?: string;
  input?: Record<string, unknown>;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

interface WireMessage {
  role: 'user' | 'assistant';
  content: string | WireBlock[];
}

/** The `messages` array of a recorded Messages API request. */
export function wireMessages(req: RecordedRequest): WireMessage[] {
  return (req.body?.messages ?? []) as WireMessage[];
}

export function blocksOf(message: WireMessage): WireBlock[] {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** Every tool_result block of a request, in order, with its text. */
export function toolResults(req: RecordedRequest): { text: string; isError: boolean }[] {
  return wireMessages(req)
    .flatMap(blocksOf)
    .filter((b) => b.type === 'tool_result')
    .map((b) => ({ text: resultText(b.content), isError: b.is_error === true }));
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (typeof c?.text === 'string' ? c.text : '')).join('');
  return '';
}

/** The user texts of a request, in order. */
export function userTexts(req: RecordedRequest): string[] {
  return wireMessages(req)
    .filter((m) => m.role === 'user')
    .flatMap(blocksOf)
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '');
}

/** Every file below `dir` (recursively). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else out.push(full);
  }
  return out;
}

/** Non-empty stderr lines other than the continue hint (and a sandbox-less machine's warning). */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() !== '' && !RESUME_HINT.test(l) && !isNoSandboxWarning(l));
}

/** The id of the newest session stored in `home` (a successful headless run prints no hint). */
export function storedSessionId(home: string): string | undefined {
  const transcripts = filesUnder(path.join(home, 'sessions'))
    .filter((f) => f.endsWith('transcript_events.jsonl'))
    .map((f) => path.basename(path.dirname(f)))
    .sort();
  return transcripts.at(-1);
}

/** Printed after a failure or an interruption of a saved headless session, never after a success. */
export const RESUME_HINT = /^Run `keen run --session (\S+)` to continue\.$/;

/** The id in the `Run \`keen run --session <id>\` to continue.` line, if printed. */
export function resumeIdOf(stderr: string): string | undefined {
  for (const line of stderr.split('\n')) {
    const m = RESUME_HINT.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Registers the per-file hooks: one fake for the file; its temp workspaces go as test/kit/temp-dir.ts says. The
 * returned rig delegates to the one started in beforeAll.
 */
export function useCliRig(): { rig: CliRig; workspace: (files?: Record<string, string>) => Workspace } {
  let inner: CliRig | undefined;
  beforeAll(async () => {
    inner = await startRig();
  });
  afterAll(async () => {
    await inner?.fake.close();
  });
  const live = (): CliRig => {
    if (!inner) throw new Error('the CLI rig is used before beforeAll started it');
    return inner;
  };
  return {
    rig: {
      get fake() {
        return live().fake;
      },
      keen: (ws, args, opts) => live().keen(ws, args, opts),
      since: (from) => live().since(from),
      script: (calls) => live().script(calls),
    },
    workspace: (files = {}) => tempWorkspace(files),
  };
}
