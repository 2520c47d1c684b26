/**
 * A test editor: the ACP SDK's client side driving a spawned `bin/keen.js acp` over stdio, as Zed
 * would. It answers permission questions, and — when the test gives it buffers or a terminal —
 * serves `fs/*` from its own open buffers and runs `terminal/*` commands as real processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { assertBuilt, FAKE_KEY } from '../e2e/cli-fixtures.js';
import { cleanEnv, KEEN_BIN } from '../e2e/harness.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import type { ScriptedServer } from '../fakes/scripted-server.js';
import { type Workspace } from '../kit/temp-dir.js';

export type Answer = 'once' | 'session' | 'deny';

/** A terminal the editor ran, as its user would see it. */
export interface EditorTerminal {
  command: string;
  args: string[];
  cwd?: string | null;
  env: acp.EnvVariable[];
  output: string;
  exit?: { exitCode: number | null; signal: string | null };
  released: boolean;
}

export interface Editor {
  agent: acp.ClientContext;
  initialized: acp.InitializeResponse;
  updates: acp.SessionUpdate[];
  permissions: acp.RequestPermissionRequest[];
  /** How the next permission questions are answered. */
  answer: Answer;
  /** Called with every update as it arrives. */
  onUpdate?: (u: acp.SessionUpdate) => void;
  /** The editor's open buffers by absolute path (served by fs/read_text_file, written by fs/write_text_file). */
  buffers: Map<string, string>;
  /** fs/* calls in order: `read <path>` / `write <path>`. */
  fsCalls: string[];
  terminals: Map<string, EditorTerminal>;
  stderr: () => string;
  /** Every byte `keen acp` wrote to stdout (the protocol stream). */
  stdout: () => string;
  close(): Promise<void>;
}

export interface EditorOptions {
  capabilities?: acp.ClientCapabilities;
  args?: string[];
  /** Environment of `keen acp` beside KEEN_HOME/HOME (default: the fake's key and URL). */
  env?: Record<string, string | undefined>;
  /** The Anthropic fake's URL. */
  fakeUrl: string;
  /** An editor that answers terminal/kill and release but never stops the process. */
  deafToKill?: boolean;
}

export async function startEditor(ws: Workspace, opts: EditorOptions): Promise<Editor> {
  // The editor's own environment holds what it passes its agent (a key included): its terminals start from it.
  const editorEnv = cleanEnv({ ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: opts.fakeUrl, KEEN_HOME: ws.home, HOME: ws.home, ...opts.env });
  const child: ChildProcess = spawn(process.execPath, [KEEN_BIN, 'acp', ...(opts.args ?? [])], {
    cwd: ws.cwd,
    env: editorEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.on('data', (d) => (stdout += d));
  const e: Editor = {
    agent: undefined as unknown as acp.ClientContext,
    initialized: undefined as unknown as acp.InitializeResponse,
    updates: [],
    permissions: [],
    answer: 'once',
    buffers: new Map(),
    fsCalls: [],
    terminals: new Map(),
    stderr: () => stderr,
    stdout: () => stdout,
    close: async () => {
      for (const kill of processes) kill();
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.stdin!.end();
        await exited;
      }
    },
  };
  const app = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      e.updates.push(params.update);
      e.onUpdate?.(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      e.permissions.push(params);
      return { outcome: { outcome: 'selected', optionId: e.answer } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      e.fsCalls.push(`read ${params.path}`);
      const text = e.buffers.get(params.path);
      if (text === undefined) throw acp.RequestError.resourceNotFound(`file://${params.path}`);
      return { content: text };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      e.fsCalls.push(`write ${params.path}`);
      e.buffers.set(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, ({ params }) => {
      const id = `term-${e.terminals.size + 1}`;
      const t: EditorTerminal = { command: params.command, args: params.args ?? [], cwd: params.cwd, env: params.env ?? [], output: '', released: false };
      e.terminals.set(id, t);
      const env = { ...editorEnv, ...Object.fromEntries(t.env.map((v) => [v.name, v.value])) };
      const proc = spawn(t.command, t.args, { cwd: t.cwd ?? ws.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      proc.stdout.on('data', (d) => (t.output += d));
      proc.stderr.on('data', (d) => (t.output += d));
      exits.set(
        id,
        new Promise((resolve) =>
          proc.on('close', (code, signal) => {
            t.exit = { exitCode: code, signal };
            resolve();
          }),
        ),
      );
      processes.push(() => proc.kill('SIGKILL'));
      kills.set(id, () => (opts.deafToKill ? undefined : proc.kill('SIGKILL')));
      return { terminalId: id };
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
      await exits.get(params.terminalId);
      return e.terminals.get(params.terminalId)!.exit!;
    })
    .onRequest(acp.methods.client.terminal.output, ({ params }) => {
      const t = e.terminals.get(params.terminalId)!;
      return { output: t.output, truncated: false, exitStatus: t.exit ?? null };
    })
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
      kills.get(params.terminalId)?.();
      return {};
    })
    .onRequest(acp.methods.client.terminal.release, ({ params }) => {
      kills.get(params.terminalId)?.();
      e.terminals.get(params.terminalId)!.released = true;
      return {};
    });
  const exits = new Map<string, Promise<void>>();
  const kills = new Map<string, () => void>();
  const processes: (() => void)[] = [];
  const connection = app.connect(acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>));
  e.agent = connection.agent;
  e.initialized = await e.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: opts.capabilities ?? {} });
  return e;
}

/** The text of every update of `kind`, joined. */
/**
 * A test file's editors and the one Anthropic fake they talk to, started before the file's first
 * test and closed after its last; call it at the top of the file. `editor` starts `keen acp` in a
 * workspace (a `tempWorkspace` made in the test), closed when the test finishes.
 */
export function editorSuite(): { readonly fake: ScriptedServer; editor(ws: Workspace, opts?: Omit<EditorOptions, 'fakeUrl'>): Promise<Editor> } {
  let fake: ScriptedServer | undefined;
  beforeAll(async () => {
    assertBuilt();
    fake = await startAnthropicFake();
  });
  afterAll(() => fake?.close());
  return {
    get fake() {
      if (!fake) throw new Error('editorSuite: the fake starts in beforeAll');
      return fake;
    },
    async editor(ws, opts = {}) {
      const e = await startEditor(ws, { ...opts, fakeUrl: this.fake.url });
      onTestFinished(() => e.close());
      return e;
    },
  };
}

export const texts = (updates: acp.SessionUpdate[], kind: string) =>
  updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => {
      const content = 'content' in u ? u.content : undefined;
      return content && !Array.isArray(content) && content.type === 'text' ? content.text : '';
    })
    .join('');

export const prompt = (e: Editor, sessionId: string, text: string) => e.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
