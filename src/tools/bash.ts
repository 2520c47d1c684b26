import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { errorText } from '../errors.js';
import { HeadTailBuffer } from './output-cap.js';
import { CANCELLED, defineTool, ToolError } from './registry.js';

export const BASH_DEFAULT_TIMEOUT_SECONDS = 120;
export const BASH_MAX_TIMEOUT_SECONDS = 600;
export const BASH_HEAD_CHARS = 10_000;
export const BASH_TAIL_CHARS = 20_000;
/** How long a killed group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;
/** How long to wait for output after bash exits while background children hold the pipes. */
const DRAIN_MS = 250;

const schema = z.object({
  command: z.string().min(1).describe('The command line, run with `bash -c` in the workspace root.'),
  timeout_seconds: z
    .number()
    .min(0.1)
    .max(BASH_MAX_TIMEOUT_SECONDS)
    .optional()
    .describe(`Kill the command after this many seconds. Default ${BASH_DEFAULT_TIMEOUT_SECONDS}, max ${BASH_MAX_TIMEOUT_SECONDS}.`),
});

/** Process groups started here; killed if Keen exits while they run. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  });
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

interface BashResult {
  output: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  ending: 'exit' | 'timeout' | 'cancelled';
  leftRunning: boolean;
}

/**
 * Keen's own provider credentials are not handed to commands the model runs: a model that runs
 * `env` would otherwise send the key back to the provider in a tool result.
 */
export const WITHHELD_FROM_COMMANDS = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'];

export function commandEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };
  for (const name of WITHHELD_FROM_COMMANDS) delete out[name];
  return out;
}

/** Run `command` in its own process group; on timeout or abort the whole group is killed. */
export function runBash(command: string, options: { cwd: string; timeoutMs: number; signal: AbortSignal }): Promise<BashResult> {
  installExitHook();
  return new Promise<BashResult>((resolve, reject) => {
    const child = spawn('bash', ['-c', command], {
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: commandEnv(process.env),
    });
    const pgid = child.pid;
    const buffer = new HeadTailBuffer(BASH_HEAD_CHARS, BASH_TAIL_CHARS);
    let ending: BashResult['ending'] = 'exit';
    let escalation: NodeJS.Timeout | undefined;
    let settled = false;

    const killGroup = (why: 'timeout' | 'cancelled') => {
      if (pgid === undefined || ending !== 'exit') return;
      ending = why;
      signalGroup(pgid, 'SIGTERM');
      escalation = setTimeout(() => {
        signalGroup(pgid, 'SIGKILL');
        liveGroups.delete(pgid);
      }, KILL_GRACE_MS);
      escalation.unref();
    };
    const timer = setTimeout(() => killGroup('timeout'), options.timeoutMs);
    const onAbort = () => killGroup('cancelled');
    options.signal.addEventListener('abort', onAbort, { once: true });
    if (pgid !== undefined) liveGroups.add(pgid);

    let openStreams = 2;
    const streamsDone: Array<() => void> = [];
    for (const stream of [child.stdout, child.stderr]) {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => buffer.push(decoder.write(chunk)));
      stream.on('close', () => {
        buffer.push(decoder.end());
        if (--openStreams === 0) streamsDone.forEach((f) => f());
      });
    }

    const finish = (result: Omit<BashResult, 'output'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      // A group killed on purpose keeps its SIGKILL escalation; a finished one is forgotten.
      if (pgid !== undefined && ending === 'exit' && !result.leftRunning) liveGroups.delete(pgid);
      resolve({ ...result, output: buffer.text() });
    };

    child.on('error', (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      reject(new ToolError(`could not start bash: ${errorText(err)}`));
    });
    child.on('exit', (code, signal) => {
      if (openStreams === 0) return finish({ code, signal, ending, leftRunning: false });
      streamsDone.push(() => finish({ code, signal, ending, leftRunning: false }));
      // Background children may hold the pipes open; stop reading after a short drain.
      setTimeout(() => {
        if (settled) return;
        child.stdout.destroy();
        child.stderr.destroy();
        finish({ code, signal, ending, leftRunning: ending === 'exit' });
      }, ending === 'exit' ? DRAIN_MS : KILL_GRACE_MS + DRAIN_MS).unref();
    });
  });
}

function statusLine(r: BashResult, timeoutSeconds: number): string {
  if (r.ending === 'timeout') return `[timed out after ${timeoutSeconds}s; the command and its child processes were killed]`;
  if (r.signal) return `[killed by ${r.signal}]`;
  return `[exit code ${r.code}]`;
}

export const bashTool = defineTool({
  name: 'bash',
  description:
    'Run a shell command with `bash -c` in the workspace root and return its combined stdout and stderr ' +
    'followed by "[exit code N]". Each call starts a fresh shell (cd does not persist). stdin is empty, ' +
    `so interactive commands get EOF. Default timeout ${BASH_DEFAULT_TIMEOUT_SECONDS}s (timeout_seconds, max ` +
    `${BASH_MAX_TIMEOUT_SECONDS}); on timeout the command and all its child processes are killed. Long output ` +
    'keeps its beginning and end with a note saying how much was cut. Prefer read_file, grep and glob for files.',
  schema,
  mutating: true,
  describe(args) {
    const firstLine = args.command.trim().split('\n')[0];
    const more = args.command.trim().includes('\n') ? ' …' : '';
    return { tool: 'bash', summary: `bash: ${firstLine}${more}`, detail: args.command };
  },
  async run(args, ctx) {
    const timeoutSeconds = args.timeout_seconds ?? BASH_DEFAULT_TIMEOUT_SECONDS;
    const result = await runBash(args.command, { cwd: ctx.cwd, timeoutMs: timeoutSeconds * 1000, signal: ctx.signal });
    if (result.ending === 'cancelled') return { content: CANCELLED, is_error: true };
    const output = result.output.replace(/\s+$/, '');
    const lines = [output === '' ? '(no output)' : output, statusLine(result, timeoutSeconds)];
    if (result.leftRunning) lines.push('[background processes are still running; their later output is not captured]');
    return { content: lines.join('\n'), is_error: result.ending !== 'exit' || result.code !== 0 };
  },
});
