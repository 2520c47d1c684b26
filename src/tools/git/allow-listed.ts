import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { decide, type ExplainingGate } from '../permissions/index.js';
import type { ToolContext } from '../types.js';
import { type ConfigEntry, neutralisingSettings, settingsEnv, submoduleNames } from './neutralise.js';
import { ToolError } from '../registry.js';
import { configListing, repositoryTop } from './safe-git.js';

/**
 * A bash command that an allow rule let run without asking (`bash(git status*)`) runs its git
 * with the repository's code-running settings off: the user allowed a command they know, not
 * whatever `.git/config` makes it run. The user's own system and global config stay in force;
 * hooks are off. Other commands (asked and approved, `--yolo`) are left as they are.
 */

/** Whether `command` ran on an allow rule: the policy of the gate decides it again, without asking. */
export function allowedByRule(command: string, ctx: ToolContext): boolean {
  const policy = (ctx.permissions as ExplainingGate).policy;
  if (!policy) return false;
  return decide({ tool: 'bash', summary: `bash: ${command}`, command, access: 'exec', cwd: ctx.cwd }, policy).reason.kind === 'allow-rule';
}

/**
 * The environment to add to `env` (the command's) for `command`: GIT_CONFIG_COUNT and its pairs
 * when an allow rule allowed it, else nothing. The config is the workspace repository's as git
 * reads it with `env`; a command that moves into another repository gets only the fixed
 * settings (fsmonitor, hooks, pager off; see `ALWAYS`). A ToolError when the repository's config
 * cannot be listed in full (`configListing`): the command is refused rather than run on the rule.
 */
export async function allowListedGitEnv(command: string, ctx: ToolContext, env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  if (!allowedByRule(command, ctx)) return {};
  const entries = await wholeListing(ctx.cwd, env);
  const top = repositoryTop(ctx.cwd);
  const gitmodules = top ? join(top, '.gitmodules') : undefined;
  const modules = gitmodules && existsSync(gitmodules) ? await wholeListing(ctx.cwd, env, gitmodules) : [];
  return settingsEnv(neutralisingSettings(entries, 'repository', submoduleNames([...entries, ...modules])), env);
}

/** The config git reads (or `file`'s), or a ToolError: with part of it unknown, nothing it names can be turned off. */
async function wholeListing(cwd: string, env: NodeJS.ProcessEnv, file?: string): Promise<ConfigEntry[]> {
  const listing = await configListing(cwd, env, file);
  if ('problem' in listing) {
    throw new ToolError(`not run on an allow rule: the repository's git config could not be read in full (${listing.problem}), so the programs it names could not be turned off`);
  }
  return listing.entries;
}
