import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { childEnv } from '../security/child-env.js';
import { errorText } from '../errors.js';
import { ToolError } from './registry.js';

/**
 * Flags every ripgrep call shares: .gitignore rules apply even outside a git repository, hidden
 * files are searched but `.git` is not. Never pass a user pattern as `--glob`: rg lets a `--glob`
 * include files that .gitignore excludes. Narrow with `--type-add` (which respects ignores) and
 * filter paths in JS instead.
 */
export const RG_COMMON = ['--no-require-git', '--hidden', '--glob', '!.git', '--no-config', '--color', 'never'];

let cachedPath: Promise<string> | undefined;

/** The ripgrep binary from @vscode/ripgrep, imported lazily (its module throws when missing). */
export function ripgrepPath(): Promise<string> {
  cachedPath ??= import('@vscode/ripgrep').then(
    (m) => m.rgPath,
    (err: unknown) => {
      cachedPath = undefined;
      throw new ToolError(`ripgrep is not available: ${errorText(err)}`);
    },
  );
  return cachedPath;
}

export interface RipgrepRun {
  /** rg's exit code: 0 found, 1 nothing found, 2 error. */
  code: number;
  stderr: string;
  /** The caller stopped rg early (its `onLine` returned `'stop'`); `code` then means nothing. */
  stopped: boolean;
}

/**
 * Run rg in `cwd`, calling `onLine` for each stdout line (without its newline). When `onLine`
 * returns `'stop'`, rg is killed and no further line is delivered: a capped caller pays for what
 * it shows, not for every match. Always pass an explicit search path in `args`: without one, rg
 * may read stdin instead of the directory.
 */
export async function runRipgrep(args: string[], options: { cwd: string; signal: AbortSignal; onLine: (line: string) => unknown }): Promise<RipgrepRun> {
  const rg = await ripgrepPath();
  return new Promise<RipgrepRun>((resolve, reject) => {
    // rg needs no credential of Keen's: it gets the allow-listed environment only.
    const child = spawn(rg, args, { cwd: options.cwd, env: childEnv(process.env), stdio: ['ignore', 'pipe', 'pipe'] });
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let stderr = '';
    let stopped = false;
    const onAbort = () => child.kill('SIGKILL');
    options.signal.addEventListener('abort', onAbort, { once: true });

    const deliver = (line: string) => {
      if (stopped || options.onLine(line) !== 'stop') return;
      stopped = true;
      pending = '';
      child.kill('SIGKILL');
      child.stdout.destroy();
      // The caller has its lines: it need not wait for rg's threads to wind down.
      options.signal.removeEventListener('abort', onAbort);
      resolve({ code: 0, stderr: stderr.trim(), stopped });
    };
    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped) return;
      pending += decoder.write(chunk);
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) deliver(line);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8');
    });
    child.on('error', (err) => {
      options.signal.removeEventListener('abort', onAbort);
      reject(new ToolError(`could not run ripgrep: ${errorText(err)}`));
    });
    child.on('close', (code) => {
      options.signal.removeEventListener('abort', onAbort);
      if (!stopped) {
        pending += decoder.end();
        if (pending !== '') deliver(pending);
      }
      resolve({ code: code ?? 2, stderr: stderr.trim(), stopped });
    });
  });
}

/** rg's stderr as one line for a tool error (regex errors name the problem, not the caret art). */
export function ripgrepErrorLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.some((l) => l.includes('regex parse error'))) {
    const why = lines.find((l) => l.startsWith('error:'));
    return `invalid regex${why ? `: ${why.slice('error:'.length).trim()}` : ''}`;
  }
  return (lines[0] ?? 'unknown error').replace(/^rg: /, '');
}
