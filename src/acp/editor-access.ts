/**
 * What an ACP client lends Keen's tools (src/tools/file-access.ts): its files through
 * `fs/read_text_file` / `fs/write_text_file` (unsaved buffers) when it advertises `fs`, and its
 * terminals through `terminal/*` when it advertises `terminal` — the latter only where Keen's
 * bash sandbox is off or the user's config opts in (`acp.clientTerminal`), since bubblewrap
 * cannot wrap a process the editor starts.
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { McpServerEntry } from '../config/mcp-schema.js';
import type { EditorAccess, FileAccess, TerminalAccess, TerminalRun } from '../tools/types.js';

export interface EditorAccessOptions {
  client: acp.AgentContext;
  capabilities: acp.ClientCapabilities;
  /** The ACP session id (known once the session opened; tools run only after). */
  sessionId: () => string;
  /** The user's config opts in to the editor's terminal under Keen's sandbox too. */
  terminalOptIn: boolean;
  /** A call's terminal exists: the editor embeds it in the call's card. */
  onTerminal: (callId: string, terminalId: string) => Promise<void>;
}

function files(o: EditorAccessOptions): FileAccess | undefined {
  const fs = o.capabilities.fs;
  if (!fs?.readTextFile && !fs?.writeTextFile) return undefined;
  const out: FileAccess = {};
  if (fs.readTextFile) {
    out.readText = async (path, signal) =>
      (await o.client.request('fs/read_text_file', { sessionId: o.sessionId(), path }, { cancellationSignal: signal, stopWaitingOnCancel: true })).content;
  }
  if (fs.writeTextFile) {
    out.writeText = async (path, content, signal) => {
      await o.client.request('fs/write_text_file', { sessionId: o.sessionId(), path, content }, { cancellationSignal: signal, stopWaitingOnCancel: true });
    };
  }
  return out;
}

/** How long an editor has to report a killed terminal's exit before Keen stops waiting. */
export const KILL_GRACE_MS = 3000;

function terminal(o: EditorAccessOptions): TerminalAccess | undefined {
  if (o.capabilities.terminal !== true) return undefined;
  return {
    usable: (mode) => mode === 'off' || o.terminalOptIn,
    async run(command, { cwd, env, callId, timeoutMs, outputByteLimit, signal }): Promise<TerminalRun> {
      const term = await o.client.createTerminal({
        sessionId: o.sessionId(),
        command: 'bash',
        args: ['-c', command],
        cwd,
        env: Object.entries(env).map(([name, value]) => ({ name, value })),
        outputByteLimit,
      });
      let ending: TerminalRun['ending'] = 'exit';
      let stopped = () => {};
      // After a kill the editor has KILL_GRACE_MS to report the exit; an editor that never does
      // must not hold the turn (Esc, the timeout) for ever.
      let graceTimer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<undefined>((resolve) => {
        stopped = () => (graceTimer = setTimeout(() => resolve(undefined), KILL_GRACE_MS));
      });
      const stop = (why: TerminalRun['ending']) => {
        if (ending !== 'exit') return;
        ending = why;
        void term.kill().catch(() => undefined);
        stopped();
      };
      const timer = setTimeout(() => stop('timeout'), timeoutMs);
      const onAbort = () => stop('cancelled');
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        if (callId) await Promise.race([o.onTerminal(callId, term.id).catch(() => undefined), gaveUp]);
        const exit = await Promise.race([term.waitForExit(), gaveUp]);
        const out = await Promise.race([term.currentOutput().catch(() => undefined), gaveUp]);
        if (!exit) return { output: `${out?.output ?? ''}[the editor did not end its terminal]\n`, truncated: out?.truncated ?? false, exitCode: null, signal: null, ending };
        return { output: out?.output ?? '', truncated: out?.truncated ?? false, exitCode: exit.exitCode ?? null, signal: exit.signal ?? null, ending };
      } finally {
        clearTimeout(timer);
        clearTimeout(graceTimer);
        signal.removeEventListener('abort', onAbort);
        // The card keeps showing a released terminal's output; an editor that never answers the
        // release does not hold the call.
        await Promise.race([term.release().catch(() => undefined), new Promise((r) => setTimeout(r, KILL_GRACE_MS).unref())]);
      }
    },
  };
}

/** The access `capabilities` allow; undefined when the client lends nothing. */
export function editorAccess(o: EditorAccessOptions): EditorAccess | undefined {
  const access: EditorAccess = { files: files(o), terminal: terminal(o) };
  return access.files || access.terminal ? access : undefined;
}

/**
 * The client's `mcpServers` (session/new, session/load) as Keen's server entries: stdio with its
 * command, args and env; http and sse with url and headers. They are the user's (their editor's
 * settings), so they need no trust, but they get no credential of Keen's (origin `editor`).
 */
export function editorMcpServers(list: readonly acp.McpServer[] | undefined): Record<string, McpServerEntry> | undefined {
  if (!list?.length) return undefined;
  const pairs = (items: readonly { name: string; value: string }[]) => Object.fromEntries(items.map((i) => [i.name, i.value]));
  const out: Record<string, McpServerEntry> = {};
  for (const s of list) {
    if ('type' in s && (s.type === 'http' || s.type === 'sse')) out[s.name] = { type: s.type, url: s.url, headers: pairs(s.headers ?? []) };
    else if ('command' in s) out[s.name] = { command: s.command, args: s.args ?? [], env: pairs(s.env ?? []) };
  }
  return out;
}
