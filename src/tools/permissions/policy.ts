import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { KeenError } from '../../errors.js';
import type { Policy, RuleEntry, RuleSource } from './decide.js';
import { parseMode, type PermissionMode } from './modes.js';
import { credentialPaths } from './protected-paths.js';
import { parseRule } from './rules.js';
import type { KnownTools } from './tool-names.js';

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
  /**
   * `--allowed-tools` / `--disallowed-tools` values (also spelled `--allowedTools` /
   * `--disallowedTools`), repeatable, each a list separated by commas or blanks outside
   * parentheses (`"Bash(git:*) Read"`, `"bash(npm test),read_file"`).
   */
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
  /**
   * The names of the configured MCP servers. Given, every rule's tool is checked: a rule naming
   * no built-in tool and no configured server is a KeenError (exit 2) with the close names.
   */
  mcpServers?: readonly string[];
}

/**
 * Split `a,b(c, d) e` into rules on commas and blanks outside parentheses and braces (and outside
 * quotes inside them: `bash(echo ")")` is one rule).
 */
export function splitRuleList(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    let depth = 0;
    let quote = '';
    let current = '';
    const flush = () => {
      if (current.trim()) out.push(current.trim());
      current = '';
    };
    for (const ch of value) {
      if (quote) {
        if (ch === quote) quote = '';
      } else if (depth > 0 && (ch === '"' || ch === "'")) {
        quote = ch;
      } else if (ch === '(' || ch === '{') {
        depth++;
      } else if (ch === ')' || ch === '}') {
        depth = Math.max(0, depth - 1);
      } else if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
        flush();
        continue;
      }
      current += ch;
    }
    flush();
  }
  return out;
}

function entries(list: readonly string[] | undefined, source: RuleSource, home: string, where: string, known?: KnownTools): RuleEntry[] {
  return (list ?? []).map((text, i) => {
    try {
      return { rule: parseRule(text, home, known), source };
    } catch (err) {
      throw new KeenError(`${where}[${i}]: ${(err as Error).message}`, err instanceof KeenError ? err.exitCode : 1);
    }
  });
}

function realDir(dir: string, cwd: string, home: string, where: string): string {
  const expanded = dir === '~' ? home : dir.startsWith('~/') ? join(home, dir.slice(2)) : dir;
  const abs = resolve(cwd, expanded);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    throw new KeenError(`${where}: ${dir} does not exist`);
  }
  if (!statSync(real).isDirectory()) throw new KeenError(`${where}: ${dir} is not a directory`);
  return real;
}

function resolveMode(input: PolicyInput, trusted: boolean): PermissionMode {
  if (input.yolo) {
    // Two flags for one setting: refuse a contradiction rather than pick the less careful one.
    if (input.mode && parseMode(input.mode) !== 'bypassPermissions') {
      throw new KeenError(`--yolo and --permission-mode ${input.mode} contradict each other (--yolo is --permission-mode bypassPermissions): give one`, 2);
    }
    return 'bypassPermissions';
  }
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
  const home = input.home ?? homedir();
  const cwd = input.cwd ?? process.cwd();
  const trusted = input.projectTrusted ?? !!input.yolo;
  const cliAllow = splitRuleList(input.allowedTools ?? []);
  const cliDeny = splitRuleList(input.disallowedTools ?? []);
  const known: KnownTools | undefined = input.mcpServers ? { mcpServers: input.mcpServers } : undefined;
  const dirs = [
    ...(input.addDirs ?? []).map((d) => realDir(d, cwd, home, '--add-dir')),
    ...(input.user?.additionalDirectories ?? []).map((d) => realDir(d, cwd, home, 'permissions.additionalDirectories')),
    ...(trusted ? (input.project?.additionalDirectories ?? []) : []).map((d) => realDir(d, cwd, home, 'permissions.additionalDirectories')),
  ];
  const sensitive = [...credentialPaths(home), ...(input.keenHome ? [input.keenHome] : [])].map((p) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  });
  return {
    mode: resolveMode(input, trusted),
    allow: [
      ...entries(input.allow, 'user', home, 'permissions.allow', known),
      ...entries(input.user?.allow, 'user', home, 'user config permissions.allow', known),
      ...entries(input.project?.allow, 'project', home, 'project config permissions.allow', known),
      ...entries(cliAllow, 'cli', home, '--allowed-tools', known),
    ],
    ask: [
      ...entries(input.user?.ask, 'user', home, 'user config permissions.ask', known),
      ...entries(input.project?.ask, 'project', home, 'project config permissions.ask', known),
    ],
    deny: [
      ...entries(input.user?.deny, 'user', home, 'user config permissions.deny', known),
      ...entries(input.project?.deny, 'project', home, 'project config permissions.deny', known),
      ...entries(cliDeny, 'cli', home, '--disallowed-tools', known),
    ],
    known,
    additionalDirs: [...new Set(dirs)],
    sensitive,
    projectTrusted: trusted,
    home,
  };
}
