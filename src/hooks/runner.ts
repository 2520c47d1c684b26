import { spawn } from 'node:child_process';
import type { HookRun } from './decision.js';

/** Most of a hook's stdout or stderr that is kept (the rest is dropped). */
const OUTPUT_CAP = 1024 * 1024;

export interface RunHookOptions {
  command: string;
  /** The event as JSON, written to the command's stdin. */
  input: string;
  cwd: string;
  /** The child's whole environment (the caller builds it: src/security/child-env.ts). */
  env: NodeJS.ProcessEnv;
  timeoutSeconds: number;
  signal?: AbortSignal;
}

/**
 * Runs one hook command through the shell, the event on stdin, and resolves with how it ended
 * (never rejects). At its timeout, or when `signal` aborts, the command and everything it
 * started (its process group) is killed.
 */
export function runHookCommand(opts: RunHookOptions): Promise<HookRun> {
  return new Promise((resolve) => {
    const group = process.platform !== 'win32';
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const finish = (run: HookRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(run);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(opts.command, { shell: true, cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: group, windowsHide: true });
    } catch (err) {
      resolve({ code: null, stdout: '', stderr: '', timedOut: false, error: (err as Error).message });
      return;
    }
    const kill = () => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutSeconds * 1000);
    const onAbort = () => kill();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (d: Buffer) => {
      if (stdout.length < OUTPUT_CAP) stdout += d.toString('utf8');
    });
    child.stderr?.on('data', (d: Buffer) => {
      if (stderr.length < OUTPUT_CAP) stderr += d.toString('utf8');
    });
    child.on('error', (err) => finish({ code: null, stdout, stderr, timedOut, error: err.message }));
    // A killed hook may leave a grandchild holding the pipes: its exit is the end.
    child.on('exit', (code) => {
      if (timedOut || opts.signal?.aborted) finish({ code, stdout, stderr, timedOut });
    });
    child.on('close', (code) => finish({ code, stdout, stderr, timedOut }));
    // A hook that does not read its input closes the pipe early: not an error.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input);
  });
}
