import { spawn } from 'node:child_process';
import path from 'node:path';

export const KEEN_BIN = path.resolve(import.meta.dirname, '../../bin/keen.js');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  home: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Kill the process after this long (ms). */
  timeoutMs?: number;
}

/**
 * Environment with every provider variable removed, so a test states exactly what it sets. The
 * compile cache directory of the test run stays (test/global-setup.ts).
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(ANTHROPIC|OPENAI|AWS|GEMINI|GOOGLE|KEEN|CODEX)_/.test(k) && k !== 'KEEN_COMPILE_CACHE') continue;
    env[k] = v;
  }
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/**
 * Spawns `bin/keen.js ARGS` and collects its output. HOME is the run's KEEN_HOME unless `env` sets
 * it, so no file of the developer's own home (`~/.claude/settings.json` hooks, `~/.aws`) joins a test.
 */
export function runKeen(args: string[], opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [KEEN_BIN, ...args], {
      cwd: opts.cwd,
      env: cleanEnv({ KEEN_HOME: opts.home, HOME: opts.home, ...opts.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // A command that never reads stdin may exit before the write lands: EPIPE is no failure.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.stdin ?? '');
  });
}
