import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KeenError } from '../errors.js';
import { HOOK_EVENTS, type HookEvent, type HooksConfig } from '../config/hooks-schema.js';
import type { ConfigFiles } from '../config/load.js';
import { projectClaudeSettingsPath, projectConfigPath, userConfigPath } from '../config/paths.js';
import { projectFileProblem } from '../config/project-files.js';
import { compileMatcher, type Matcher } from './matcher.js';

/** Seconds a hook may run when its entry gives no `timeout` (Claude Code's default too). */
export const DEFAULT_HOOK_TIMEOUT = 60;

/** One configured hook command, ready to run. */
export interface HookEntry {
  event: HookEvent;
  /** The group's matcher as written (absent: every tool / source). */
  matcher?: string;
  matches: Matcher;
  command: string;
  timeoutSeconds: number;
  /** The file it came from (`/hooks` names it). */
  file: string;
}

/** The hooks a session runs, and the lines to tell the user about those it does not. */
export interface LoadedHooks {
  entries: HookEntry[];
  warnings: string[];
}

/** Claude Code's user settings (`~/.claude/settings.json`), whose hooks are the user's own. */
function userClaudeSettingsPath(userHome: string): string {
  return join(userHome, '.claude', 'settings.json');
}

/**
 * The hooks of a session: the user's config and `~/.claude/settings.json` (always: the user's
 * own, given `userHome`), then — only in a trusted folder — the project's `.keen/config.json` and
 * `.claude/settings.json`. An untrusted project's hooks never
 * run (`loadConfig` already named `.keen/config.json`'s in its notice; `.claude/settings.json`'s
 * get a line here), nor do those of a file another account owns. A matcher that is no valid
 * regular expression is a KeenError naming file and field.
 */
export function loadHooks(at: { home: string; cwd: string; userHome?: string }, files: ConfigFiles, projectTrusted: boolean): LoadedHooks {
  const warnings: string[] = [];
  const entries = fromConfig(userConfigPath(at.home), files.user.hooks);
  const userClaude = at.userHome ? userClaudeSettingsPath(at.userHome) : undefined;
  if (userClaude && existsSync(userClaude)) {
    const read = readClaudeHooks(userClaude);
    warnings.push(...read.warnings);
    entries.push(...read.entries);
  }
  if (projectTrusted) entries.push(...fromConfig(projectConfigPath(at.cwd), files.project.hooks));
  const claude = projectClaudeSettingsPath(at.cwd);
  // In the home folder itself the project's file is the user's, read above.
  if (claude !== userClaude && existsSync(claude)) {
    const foreign = projectFileProblem(at.cwd, claude);
    if (foreign) warnings.push(`${claude}: ignored: ${foreign} (only this account's own files inside the project count)`);
    else {
      const read = readClaudeHooks(claude);
      if (!projectTrusted) {
        if (read.count > 0)
          warnings.push(`${claude}: ignored hooks because this folder is not trusted (trust it with \`keen --trust\` or \`keen run --trust …\`; the REPL asks once)`);
      } else {
        warnings.push(...read.warnings);
        entries.push(...read.entries);
      }
    }
  }
  return { entries, warnings };
}

function fromConfig(file: string, hooks: HooksConfig | undefined): HookEntry[] {
  const out: HookEntry[] = [];
  for (const event of HOOK_EVENTS) {
    (hooks?.[event] ?? []).forEach((group, g) => {
      const matches = matcherOf(file, `hooks.${event}[${g}].matcher`, group.matcher);
      for (const hook of group.hooks) {
        out.push({ event, matcher: group.matcher, matches, command: hook.command, timeoutSeconds: hook.timeout ?? DEFAULT_HOOK_TIMEOUT, file });
      }
    });
  }
  return out;
}

function matcherOf(file: string, field: string, matcher: string | undefined): Matcher {
  try {
    return compileMatcher(matcher);
  } catch (err) {
    throw new KeenError(`invalid config ${file}: field ${field}: ${(err as Error).message}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The command hooks of a Claude Code settings file, read leniently (the file holds much Keen does
 * not use): events Keen has no step for and non-command hook types are named once and skipped.
 */
function readClaudeHooks(file: string): { entries: HookEntry[]; count: number; warnings: string[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    return { entries: [], count: 0, warnings: [`${file}: not read: ${(err as Error).message}`] };
  }
  const hooks = isRecord(raw) ? raw.hooks : undefined;
  if (!isRecord(hooks)) return { entries: [], count: 0, warnings: [] };
  const entries: HookEntry[] = [];
  const skipped = new Set<string>();
  for (const [event, groups] of Object.entries(hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      skipped.add(`${event} hooks (no such step in Keen)`);
      continue;
    }
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, g) => {
      if (!isRecord(group) || !Array.isArray(group.hooks)) return;
      const matcher = typeof group.matcher === 'string' ? group.matcher : undefined;
      const matches = matcherOf(file, `hooks.${event}[${g}].matcher`, matcher);
      for (const hook of group.hooks) {
        if (!isRecord(hook)) continue;
        if (hook.type !== 'command' || typeof hook.command !== 'string' || hook.command.trim() === '') {
          skipped.add(`${String(hook.type ?? 'untyped')} hooks (Keen runs command hooks)`);
          continue;
        }
        const timeout = typeof hook.timeout === 'number' && hook.timeout > 0 ? hook.timeout : DEFAULT_HOOK_TIMEOUT;
        entries.push({ event: event as HookEvent, matcher, matches, command: hook.command, timeoutSeconds: timeout, file });
      }
    });
  }
  const warnings = skipped.size ? [`${file}: skipped ${[...skipped].join(', ')}`] : [];
  return { entries, count: entries.length, warnings };
}
