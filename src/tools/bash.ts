import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import * as z from 'zod';
import { once } from '../core/lazy.js';
import { errorText } from '../errors.js';
import { keenHome } from '../config/paths.js';
import { commandEnv, type CommandEnvOptions, isWithheld } from './command-env.js';
import { allowListedGitEnv } from './git/allow-listed.js';
import { trustedPath } from './git/safe-git.js';
import { workspaceRoots } from './fs-guard.js';
import { HeadTailBuffer, LiveTail } from './output-cap.js';
import { CANCELLED, defineTool, ToolError, type Tool } from './registry.js';
import type { TerminalAccess, ToolContext } from './types.js';
import { blockedNote, DEFAULT_SANDBOX, hiddenPaths, launchFor, planModeSettings, sandboxEnv, userHome, type SandboxSettings } from './sandbox/index.js';

export const BASH_DEFAULT_TIMEOUT_SECONDS = 120;
export const BASH_MAX_TIMEOUT_SECONDS = 600;
export const BASH_HEAD_CHARS = 10_000;
export const BASH_TAIL_CHARS = 20_000;
/** Output beyond this many bytes stops the command: what is kept is its head and tail anyway. */
export const BASH_MAX_OUTPUT_BYTES = 50 * 1024 * 1024;
/** How long a killed group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;
/** How long to wait for output after bash exits while background children hold the pipes. */
const DRAIN_MS = 250;

const schema = once(() =>
  z.object({
    command: z.string().min(1).describe('The command line, run with `bash -c` in the workspace root.'),
    timeout_seconds: z
      .number()
      .min(0.1)
      .max(BASH_MAX_TIMEOUT_SECONDS)
      .optional()
      .describe(`Kill the command after this many seconds. Default ${BASH_DEFAULT_TIMEOUT_SECONDS}, max ${BASH_MAX_TIMEOUT_SECONDS}.`),
  }),
);

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

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
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
  ending: 'exit' | 'timeout' | 'cancelled' | 'output-cap';
  /** Processes the command started were still running when it ended (they were killed). */
  leftRunning: boolean;
}

export { WITHHELD_FROM_COMMANDS } from './command-env.js';

export interface RunBashOptions {
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** The program and arguments to start (default `bash -c command`; the sandbox wraps it). */
  launch?: { file: string; args: string[]; sandboxed?: boolean };
  env?: NodeJS.ProcessEnv;
  /** Stop the command once its output passes this many bytes (default BASH_MAX_OUTPUT_BYTES). */
  maxOutputBytes?: number;
  /** Each piece of output as it arrives, decoded (up to the volume cap). */
  onOutput?: (text: string) => void;
}

/**
 * Run `command` in its own process group. On timeout or abort the whole group is killed; when
 * the command ends, whatever it left running in its group is killed too (a detached `setsid`
 * escapes the group; inside the sandbox nothing escapes its PID namespace). Output past
 * `maxOutputBytes` stops the command the same way, and is neither decoded nor kept.
 */
export function runBash(command: string, options: RunBashOptions): Promise<BashResult> {
  installExitHook();
  return new Promise<BashResult>((resolve, reject) => {
    const launch = options.launch ?? { file: 'bash', args: ['-c', command] };
    const child = spawn(launch.file, launch.args, {
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: options.env ?? commandEnv(process.env),
    });
    const pgid = child.pid;
    const buffer = new HeadTailBuffer(BASH_HEAD_CHARS, BASH_TAIL_CHARS);
    let ending: BashResult['ending'] = 'exit';
    let escalation: NodeJS.Timeout | undefined;
    let settled = false;

    const killGroup = (why: Exclude<BashResult['ending'], 'exit'>) => {
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
    const maxBytes = options.maxOutputBytes ?? BASH_MAX_OUTPUT_BYTES;
    let bytes = 0;
    let capped = false;
    for (const stream of [child.stdout, child.stderr]) {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => {
        if (capped) return;
        const room = maxBytes - bytes;
        bytes += chunk.length;
        const text = decoder.write(chunk.length <= room ? chunk : chunk.subarray(0, room));
        buffer.push(text);
        options.onOutput?.(text);
        if (chunk.length <= room) return;
        capped = true;
        killGroup('output-cap');
        // Writers that ignore SIGTERM get EPIPE instead of being read for the grace period.
        child.stdout.destroy();
        child.stderr.destroy();
      });
      stream.on('close', () => {
        if (!capped) buffer.push(decoder.end());
        if (--openStreams === 0) for (const f of streamsDone) f();
      });
    }

    const finish = (result: Omit<BashResult, 'output'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      // A group killed on purpose keeps its SIGKILL escalation; a finished one is forgotten, and
      // what it left running is killed now.
      if (pgid !== undefined && ending === 'exit') {
        if (result.leftRunning || launch.sandboxed) signalGroup(pgid, 'SIGKILL');
        liveGroups.delete(pgid);
      }
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
      // In the sandbox the PID namespace ends with the command; its teardown is not a leftover.
      const groupLeft = () => pgid !== undefined && !launch.sandboxed && groupAlive(pgid);
      if (openStreams === 0) return finish({ code, signal, ending, leftRunning: ending === 'exit' && groupLeft() });
      streamsDone.push(() => finish({ code, signal, ending, leftRunning: ending === 'exit' && groupLeft() }));
      // Background children may hold the pipes open; stop reading after a short drain.
      setTimeout(
        () => {
          if (settled) return;
          child.stdout.destroy();
          child.stderr.destroy();
          finish({ code, signal, ending, leftRunning: ending === 'exit' });
        },
        ending === 'exit' ? DRAIN_MS : KILL_GRACE_MS + DRAIN_MS,
      ).unref();
    });
  });
}

function statusLine(r: BashResult, timeoutSeconds: number): string {
  if (r.ending === 'timeout') return `[timed out after ${timeoutSeconds}s; the command and its child processes were killed]`;
  if (r.ending === 'output-cap') return `[stopped after ${BASH_MAX_OUTPUT_BYTES / (1024 * 1024)} MB of output; the command and its child processes were killed]`;
  if (r.signal) return `[killed by ${r.signal}]`;
  return `[exit code ${r.code}]`;
}

/** The most output an editor's terminal keeps for a call (it keeps the end). */
const EDITOR_TERMINAL_BYTES = 1024 * 1024;

/**
 * `command` in the editor's terminal (ACP): the rules and plan mode have decided; Keen's sandbox
 * cannot wrap the editor's process, hence `usable`. The editor's own environment is the base:
 * Keen sets every credential variable it holds to empty there, and its PATH, pager and git
 * settings as its own commands get them.
 */
async function runInEditor(
  terminal: TerminalAccess,
  command: string,
  ctx: ToolContext,
  timeoutSeconds: number,
  env: CommandEnvOptions | undefined,
): Promise<{ content: string; is_error: boolean }> {
  const own = commandEnv(process.env, env);
  const blanks = Object.fromEntries(Object.keys(process.env).flatMap((name) => (isWithheld(name, env) ? [[name, '']] : [])));
  // PATH without its relative entries (command-env.ts): the editor's may name a folder of the repository.
  const path = own.PATH === undefined ? {} : { PATH: own.PATH };
  const extra = { ...blanks, ...path, PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', ...(await allowListedGitEnv(command, ctx, own)) } as Record<string, string>;
  const run = await terminal.run(command, {
    cwd: ctx.cwd,
    env: extra,
    callId: ctx.callId,
    timeoutMs: timeoutSeconds * 1000,
    outputByteLimit: EDITOR_TERMINAL_BYTES,
    signal: ctx.signal,
  });
  if (run.ending === 'cancelled') return { content: CANCELLED, is_error: true };
  const kept = new HeadTailBuffer(BASH_HEAD_CHARS, BASH_TAIL_CHARS);
  kept.push(run.output);
  const output = kept.text().replace(/\s+$/, '');
  const status = statusLine({ output, code: run.exitCode, signal: run.signal as NodeJS.Signals | null, ending: run.ending, leftRunning: false }, timeoutSeconds);
  const lines = [...(run.truncated ? ['[the editor kept only the end of the output]'] : []), output === '' ? '(no output)' : output, status];
  return { content: lines.join('\n'), is_error: run.ending !== 'exit' || run.exitCode !== 0 };
}

/** What the bash tool needs besides the call: the sandbox and the environment rules. */
export interface BashToolOptions {
  sandbox?: SandboxSettings;
  env?: CommandEnvOptions;
  /** KEEN_HOME, hidden from commands (default: from the environment). */
  keenHome?: string;
  /** Told once per process, when bash first runs without the sandbox it wanted. */
  onNotice?: (line: string) => void;
  /** The tail of a running call's output (by call id), for a live tool card; not sent to the model. */
  onOutput?: (callId: string, tail: string) => void;
}

/** The bash tool with `options` (config `sandbox` and `bash.envPassthrough`). */
export function createBashTool(options: BashToolOptions = {}): Tool {
  const sandbox = options.sandbox ?? DEFAULT_SANDBOX;
  return defineTool({
    name: 'bash',
    description:
      'Run a shell command with `bash -c` in the workspace root and return its combined stdout and stderr ' +
      'followed by "[exit code N]". Each call starts a fresh shell (cd does not persist). stdin is empty, ' +
      `so interactive commands get EOF. Default timeout ${BASH_DEFAULT_TIMEOUT_SECONDS}s (timeout_seconds, max ` +
      `${BASH_MAX_TIMEOUT_SECONDS}); on timeout the command and all its child processes are killed, and background ` +
      'processes it starts end with it. Long output keeps its beginning and end with a note saying how much was cut; ' +
      `a command is stopped after ${BASH_MAX_OUTPUT_BYTES / (1024 * 1024)} MB of output. ` +
      (sandbox.mode === 'off'
        ? ''
        : `Commands run in a sandbox: ${sandbox.mode === 'read-only' ? 'the file system is read-only' : 'only the workspace and the temp dir are writable'}${sandbox.network ? '' : ', no network'}. `) +
      'Prefer read_file, grep and glob for files.',
    schema,
    mutating: true,
    describe(args) {
      const firstLine = args.command.trim().split('\n')[0];
      const more = args.command.trim().includes('\n') ? ' …' : '';
      return { tool: 'bash', summary: `bash: ${firstLine}${more}`, detail: args.command, command: args.command, access: 'exec' };
    },
    async run(args, ctx) {
      const timeoutSeconds = args.timeout_seconds ?? BASH_DEFAULT_TIMEOUT_SECONDS;
      // Plan mode's read-only sandbox is Keen's own: the editor's terminal is never used then.
      if (ctx.terminal && !ctx.planMode && ctx.terminal.usable(sandbox.mode)) return runInEditor(ctx.terminal, args.command, ctx, timeoutSeconds, options.env);
      const home = userHome(process.env);
      const kh = options.keenHome ?? keenHome(process.env);
      const effective = ctx.planMode ? planModeSettings(sandbox) : sandbox;
      // The sandbox program is looked up where the repository cannot put one (no relative PATH entries).
      const lookup = { ...process.env, PATH: trustedPath(ctx.cwd, process.env) };
      const env = commandEnv(process.env, options.env);
      // A command an allow rule let through runs no repository code through git. Settled (or
      // refused) before the launch, whose plan makes mount points that only its cleanup removes.
      const gitEnv = await allowListedGitEnv(args.command, ctx, env);
      const launch = await launchFor(args.command, sandbox, workspaceRoots(ctx), ctx.cwd, { home, keenHome: kh, env: lookup, planMode: ctx.planMode });
      if (launch.refused) throw new ToolError(launch.refused);
      if (launch.warning) options.onNotice?.(launch.warning);
      let restored: string[] = [];
      const { callId } = ctx;
      const live = options.onOutput && callId ? new LiveTail((tail) => options.onOutput?.(callId, tail)) : undefined;
      const result = await runBash(args.command, {
        cwd: ctx.cwd,
        timeoutMs: timeoutSeconds * 1000,
        signal: ctx.signal,
        launch,
        env: { ...(launch.sandboxed ? sandboxEnv(env, effective) : env), ...gitEnv },
        onOutput: live && ((text) => live.push(text)),
      }).finally(() => {
        live?.stop();
        restored = launch.cleanup?.() ?? [];
      });
      for (const line of restored) options.onNotice?.(line);
      if (result.ending === 'cancelled') return { content: CANCELLED, is_error: true };
      const output = result.output.replace(/\s+$/, '');
      const lines = [output === '' ? '(no output)' : output, statusLine(result, timeoutSeconds)];
      const failed = result.ending !== 'exit' || result.code !== 0;
      if (launch.sandboxed && failed) {
        const note = blockedNote(
          output,
          effective,
          hiddenPaths(home, kh, process.env, effective).map((h) => h.path),
          ctx.planMode,
          launch.homeRoot,
        );
        if (note) lines.push(note);
      }
      if (result.leftRunning) lines.push('[the processes it left running in the background were stopped when it ended]');
      if (launch.notice) lines.push(launch.notice);
      for (const line of restored) lines.push(`[sandbox: ${line}]`);
      return { content: lines.join('\n'), is_error: failed };
    },
  });
}

/** The bash tool with the default sandbox (workspace-write where available) and env rules. */
export const bashTool = createBashTool();
