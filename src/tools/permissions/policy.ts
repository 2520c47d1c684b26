import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KeenError } from '../../errors.js';
import type { Policy, RuleEntry, RuleSource } from './decide.js';
import { parseMode, type PermissionMode } from './modes.js';
import { credentialPaths } from './protected-paths.js';
import { parseRule } from './rules.js';

/** The `permissions` block of one config file. */
export interface PermissionsConfig {
  allow?: string[];
  ask?: string[];
  deny?: string[];
  additionalDirectories?: string[];
  defaultMode?: string;
}

export interface PolicyInput {
  /** `--permission-mode`. */
  mode?: string;
  /** `--yolo`: an alias of `--permission-mode bypassPermissions` (and it implies trust). */
  yolo?: boolean;
  /** The user's own config (`$KEEN_HOME/config.json`). */
  user?: PermissionsConfig;
  /** The project's config (`.keen/config.json`): its allows count only when `projectTrusted`. */
  project?: PermissionsConfig;
  /** Rules given as plain allow rules of the user (tests, older callers). */
  allow?: string[];
  /** `--allowed-tools` / `--disallowed-tools` values, each comma-separated, repeatable. */
  allowedTools?: string[];
  disallowedTools?: string[];
  /** `--add-dir` values. */
  addDirs?: string[];
  /**
   * Whether the project is trusted (workspace trust decides this; until it is wired in, callers
   * pass false, or `--yolo` implies true).
   */
  projectTrusted?: boolean;
  cwd?: string;
  home?: string;
  /** KEEN_HOME: reads of it ask like credential folders. */
  keenHome?: string;
}

/** Split `a,b(c,d),e` on commas outside parentheses and braces. */
export function splitRuleList(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = '';
    for (const ch of value) {
      if (ch === '(' || ch === '{') depth++;
      if (ch === ')' || ch === '}') depth = Math.max(0, depth - 1);
      if (ch === ',' && depth === 0) {
        if (current.trim()) out.push(current.trim());
        current = '';
      } else {
        current += ch;
      }
    }
    if (current.trim()) out.push(current.trim());
  }
  return out;
}

function entries(list: readonly string[] | undefined, source: RuleSource, home: string, where: string): RuleEntry[] {
  return (list ?? []).map((text, i) => {
    try {
      return { rule: parseRule(text, home), source };
    } catch (err) {
      throw new KeenError(`${where}[${i}]: ${(err as Error).message}`);
    }
  });
}

function realDir(dir: string, cwd: string, home: string, where: string): string {
  const expanded = dir === '~' ? home : dir.startsWith('~/') ? path.join(home, dir.slice(2)) : dir;
  const abs = path.resolve(cwd, expanded);
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch {
    throw new KeenError(`${where}: ${dir} does not exist`);
  }
  if (!fs.statSync(real).isDirectory()) throw new KeenError(`${where}: ${dir} is not a directory`);
  return real;
}

function resolveMode(input: PolicyInput, trusted: boolean): PermissionMode {
  if (input.yolo) return 'bypassPermissions';
  if (input.mode) return parseMode(input.mode);
  if (input.user?.defaultMode) return parseMode(input.user.defaultMode, 'permissions.defaultMode');
  if (trusted && input.project?.defaultMode) return parseMode(input.project.defaultMode, 'permissions.defaultMode');
  return 'default';
}

/**
 * Build the policy for a run: rules from user config, project config, `--allowed-tools` and
 * `--disallowed-tools`; the mode; the extra workspace directories (real paths). A malformed rule,
 * an unknown mode or a missing directory is a KeenError naming it.
 */
export function buildPolicy(input: PolicyInput = {}): Policy {
  const home = input.home ?? os.homedir();
  const cwd = input.cwd ?? process.cwd();
  const trusted = input.projectTrusted ?? !!input.yolo;
  const cliAllow = splitRuleList(input.allowedTools ?? []);
  const cliDeny = splitRuleList(input.disallowedTools ?? []);
  const dirs = [
    ...(input.addDirs ?? []).map((d) => realDir(d, cwd, home, '--add-dir')),
    ...(input.user?.additionalDirectories ?? []).map((d) => realDir(d, cwd, home, 'permissions.additionalDirectories')),
    ...(trusted ? (input.project?.additionalDirectories ?? []) : []).map((d) => realDir(d, cwd, home, 'permissions.additionalDirectories')),
  ];
  const sensitive = [...credentialPaths(home), ...(input.keenHome ? [input.keenHome] : [])].map((p) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return p;
    }
  });
  return {
    mode: resolveMode(input, trusted),
    allow: [
      ...entries(input.allow, 'user', home, 'permissions.allow'),
      ...entries(input.user?.allow, 'user', home, 'permissions.allow'),
      ...entries(input.project?.allow, 'project', home, 'permissions.allow'),
      ...entries(cliAllow, 'cli', home, '--allowed-tools'),
    ],
    ask: [...entries(input.user?.ask, 'user', home, 'permissions.ask'), ...entries(input.project?.ask, 'project', home, 'permissions.ask')],
    deny: [
      ...entries(input.user?.deny, 'user', home, 'permissions.deny'),
      ...entries(input.project?.deny, 'project', home, 'permissions.deny'),
      ...entries(cliDeny, 'cli', home, '--disallowed-tools'),
    ],
    additionalDirs: [...new Set(dirs)],
    sensitive,
    projectTrusted: trusted,
    home,
  };
}
