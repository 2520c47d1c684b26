import type { HookEvent } from '../config/hooks-schema.js';
import { childEnv } from '../security/child-env.js';
import { combineVerdicts, interpretRun, type HookVerdict } from './decision.js';
import type { HookEntry } from './load-hooks.js';
import { runHookCommand } from './runner.js';

/** The session a hook's input names (known once the session's store exists). */
export interface HookSessionInfo {
  sessionId: string;
  transcriptPath: string;
}

/**
 * A session's hooks, ready to run at each step. Every hook gets the event as JSON on stdin with
 * Claude Code's common fields (`session_id`, `transcript_path`, `cwd`, `hook_event_name`) and the
 * event's own; it runs in the project folder with the child environment of
 * src/security/child-env.ts (no credential of Keen's) plus `KEEN_PROJECT_DIR` and
 * `CLAUDE_PROJECT_DIR`, so Claude Code's hook scripts find their files.
 */
export interface SessionHooks {
  readonly entries: readonly HookEntry[];
  /** Whether any hook is configured for `event` (a step without hooks costs nothing). */
  has(event: HookEvent): boolean;
  /**
   * Run the hooks of `event` whose matcher matches `subject` (the tool name, or the source /
   * trigger), all at once, and combine their verdicts. Their warnings go to `warn` as well.
   */
  run(event: HookEvent, subject: string, fields: Record<string, unknown>, signal?: AbortSignal): Promise<HookVerdict>;
  /** Name the session in every later hook input. */
  bind(info: HookSessionInfo): void;
  /**
   * Called when a hook answers `continue: false` (the controller stops the running turn); returns
   * the function that removes the listener.
   */
  onStop(listener: (reason: string) => void): () => void;
}

export interface SessionHooksOptions {
  cwd: string;
  /** The session's environment (filtered here before a hook sees it). */
  env: NodeJS.ProcessEnv;
  entries: readonly HookEntry[];
  /** Where a failed or timed-out hook is reported. */
  warn: (line: string) => void;
}

export function createSessionHooks(opts: SessionHooksOptions): SessionHooks {
  let info: HookSessionInfo | undefined;
  const stops = new Set<(reason: string) => void>();
  const env = { ...childEnv(opts.env), KEEN_PROJECT_DIR: opts.cwd, CLAUDE_PROJECT_DIR: opts.cwd };
  return {
    entries: opts.entries,
    has: (event) => opts.entries.some((e) => e.event === event),
    bind(next) {
      info = next;
    },
    onStop(listener) {
      stops.add(listener);
      return () => stops.delete(listener);
    },
    async run(event, subject, fields, signal) {
      const matching = opts.entries.filter((e) => e.event === event && e.matches(subject));
      // The same command configured twice (a user and a project file) runs once.
      const unique = [...new Map(matching.map((e) => [e.command, e])).values()];
      if (unique.length === 0) return { warnings: [] };
      const input = JSON.stringify({
        session_id: info?.sessionId ?? '',
        transcript_path: info?.transcriptPath ?? '',
        cwd: opts.cwd,
        hook_event_name: event,
        ...fields,
      });
      const runEnv = info ? { ...env, KEEN_SESSION_ID: info.sessionId } : env;
      const verdicts = await Promise.all(
        unique.map(async (entry) => {
          const run = await runHookCommand({ command: entry.command, input, cwd: opts.cwd, env: runEnv, timeoutSeconds: entry.timeoutSeconds, signal });
          return interpretRun({ event, command: entry.command, timeoutSeconds: entry.timeoutSeconds }, run);
        }),
      );
      // Stopped by a cancel (Esc, Ctrl+C): nothing to report, and the step is being cancelled anyway.
      if (signal?.aborted) return { warnings: [] };
      const verdict = combineVerdicts(verdicts);
      for (const line of verdict.warnings) opts.warn(line);
      if (verdict.stop !== undefined) {
        // SessionStart runs before any turn; Notification runs beside one, not as a step of it.
        const step = event !== 'SessionStart' && event !== 'Notification';
        opts.warn(step ? `a ${event} hook stopped the turn: ${verdict.stop}` : `a ${event} hook asked to stop (there is no turn to stop): ${verdict.stop}`);
        if (step) for (const listener of stops) listener(verdict.stop);
      }
      return verdict;
    },
  };
}
