import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve, join } from 'node:path';

/**
 * Every path of user state, in one place. `KEEN_HOME` (default `~/.keen`) roots config, sessions,
 * auth and input history; nothing else in Keen computes these paths.
 */
export function keenHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.KEEN_HOME?.trim();
  return fromEnv ? resolve(fromEnv) : join(homedir(), '.keen');
}

export function userConfigPath(home: string): string {
  return join(home, 'config.json');
}

/**
 * Whether a project file is one of the user's own (Keen started in the home folder, where
 * `.keen/config.json` is `$KEEN_HOME/config.json` and `.claude/settings.json` Claude Code's): the
 * same real path. Then it is read once, as the user's.
 */
export function isUsersOwnFile(projectFile: string, userFile: string): boolean {
  try {
    return realpathSync.native(projectFile) === realpathSync.native(userFile);
  } catch {
    return false;
  }
}

/** The project config: `.keen/config.json` in the working directory. It wins over the user's. */
export function projectConfigPath(cwd: string): string {
  return join(cwd, '.keen', 'config.json');
}

/** The project's shared MCP server file (`.mcp.json`, the format other agents read too). */
export function projectMcpJsonPath(cwd: string): string {
  return join(cwd, '.mcp.json');
}

/** Claude Code's project settings, whose `hooks` Keen runs too (docs/hooks.md). */
export function projectClaudeSettingsPath(cwd: string): string {
  return join(cwd, '.claude', 'settings.json');
}

export function authPath(home: string): string {
  return join(home, 'auth.json');
}

export function inputHistoryDir(home: string): string {
  return join(home, 'history');
}

/** The workspace-trust store: which project folders the user trusted (or declined). */
export function trustStorePath(home: string): string {
  return join(home, 'trusted-projects.json');
}
