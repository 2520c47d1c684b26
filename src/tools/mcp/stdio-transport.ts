import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';

const STDERR_TAIL_CHARS = 2_000;
const CLOSE_GRACE_MS = 1_500;

/** Process groups of live servers, killed synchronously if Keen exits without closing them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Kill every server group still alive, at once (for `exit` and fatal signals). */
export function killAllServerGroups(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  liveGroups.clear();
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', killAllServerGroups);
  // A signal nobody else handles would end Keen without 'exit': the servers live in their own
  // process groups (so a terminal Ctrl+C does not hit them mid-call), so take them down first and
  // then die of the same signal. When Keen itself handles the signal (a headless run cancelling
  // its turn), it closes the servers on its own way out.
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // Prepended, so it runs before any `once` listener has removed itself and the count is true.
    const onSignal = () => {
      if (process.listenerCount(sig) > 1) return;
      killAllServerGroups();
      process.off(sig, onSignal);
      process.kill(process.pid, sig);
    };
    process.prependListener(sig, onSignal);
  }
}

export interface StdioServerParams {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * The MCP stdio transport, with the server in its own process group so closing it also ends what
 * it started (an `npx` wrapper, a shell script's children). Framing is the SDK's own
 * (`ReadBuffer`, `serializeMessage`); stderr is kept (its tail) for error messages.
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private buffer: ReadBuffer | undefined;
  private serialize: ((message: JSONRPCMessage) => string) | undefined;
  private stderrTail = '';
  private exited = false;
  /** How the process ended ("exit code 1", "signal SIGTERM"), once it has. */
  exitStatus: string | undefined;
  /** Why Keen stopped the server itself ("it sent a message over 10 MB"), if it did. */
  closedBecause: string | undefined;

  constructor(private readonly params: StdioServerParams) {}

  /** The last lines the server wrote to stderr (for "failed to start" messages). */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    installExitHook();
    // The SDK's framing, loaded here so that merely configuring servers costs no startup time.
    const { ReadBuffer, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } = await import('@modelcontextprotocol/sdk/shared/stdio.js');
    const buffer = new ReadBuffer();
    this.buffer = buffer;
    this.serialize = serializeMessage;
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, this.params.args, {
        cwd: this.params.cwd,
        env: this.params.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        windowsHide: true,
      });
      this.child = child;
      child.once('error', (err) => {
        this.exited = true;
        if (child.pid !== undefined) liveGroups.delete(child.pid);
        reject(err);
        this.onerror?.(err);
        this.onclose?.();
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) liveGroups.add(child.pid);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.exited = true;
        this.exitStatus = signal ? `signal ${signal}` : `exit code ${code}`;
        if (child.pid !== undefined) liveGroups.delete(child.pid);
      });
      child.once('close', () => {
        this.exited = true;
        this.onclose?.();
      });
      child.stdout?.on('data', (chunk: Buffer) => {
        if (this.closedBecause) return;
        try {
          buffer.append(chunk);
        } catch {
          // A message past the SDK's buffer limit: thrown here it would end Keen, so the server goes.
          this.closedBecause = `it sent a message over ${STDIO_DEFAULT_MAX_BUFFER_SIZE / 1024 / 1024} MB`;
          this.onerror?.(new Error(`the server ${this.closedBecause}`));
          void this.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
      child.stdin?.on('error', (err) => this.onerror?.(err));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.exited || !this.serialize) {
        reject(new Error('the server process is not running'));
        return;
      }
      if (stdin.write(this.serialize(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** End stdin, then SIGTERM the group, then SIGKILL it; resolves when the process is gone. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) return;
    const pgid = child.pid;
    const gone = new Promise<void>((resolve) => {
      if (this.exited) resolve();
      else child.once('exit', () => resolve());
    });
    const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
    child.stdin?.end();
    signalGroup(pgid, 'SIGTERM');
    await Promise.race([gone, wait(CLOSE_GRACE_MS)]);
    // Children of the server may outlive it in the group: kill what is left either way.
    signalGroup(pgid, 'SIGKILL');
    liveGroups.delete(pgid);
    await Promise.race([gone, wait(CLOSE_GRACE_MS)]);
    this.buffer?.clear();
  }
}
