import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { oneLineText } from '../security/terminal-text.js';
import { isUsersOwnFile, projectClaudeSettingsPath, projectConfigPath, projectMcpJsonPath, userConfigPath } from './paths.js';
import { projectFileProblem } from './project-files.js';
import { trustDecision, trustProject } from './trust.js';

export interface TrustPromptOptions {
  home: string;
  cwd: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** `--trust` or `--yolo` was given: nothing to ask. */
  decided?: boolean;
}

/**
 * The REPL's once-per-folder question. Asked only when the folder's files would count for more if
 * trusted — a project config's trust-gated keys (permission rules, hooks, …), MCP servers the
 * project declares (`.mcp.json`, `mcpServers` in `.keen/config.json`), which start only in a
 * trusted folder, or hooks in `.claude/settings.json` — and the user never answered for this folder; the answer (yes or no) is remembered, so
 * it is asked once. Runs before the first frame, on the plain terminal. Returns true when the user
 * trusted the folder now.
 */
export async function askTrustIfNeeded(opts: TrustPromptOptions): Promise<boolean> {
  if (opts.decided) return false;
  const file = projectConfigPath(opts.cwd);
  const mcpJson = projectMcpJsonPath(opts.cwd);
  // Another account's files are never offered for trust (they are ignored altogether).
  // Nor the user's own files, which are the project's in the home folder.
  const hasConfig = existsSync(file) && !isUsersOwnFile(file, userConfigPath(opts.home)) && !projectFileProblem(opts.cwd, file);
  const hasMcpJson = existsSync(mcpJson) && !projectFileProblem(opts.cwd, mcpJson);
  const claude = projectClaudeSettingsPath(opts.cwd);
  const hasClaude = existsSync(claude) && !isUsersOwnFile(claude, join(homedir(), '.claude', 'settings.json')) && !projectFileProblem(opts.cwd, claude);
  if (!hasConfig && !hasMcpJson && !hasClaude) return false; // the common case costs three stats
  if (trustDecision(opts.home, opts.cwd)) return false;
  const [{ loadConfig, readConfigFile }, { HOOK_EVENTS }] = await Promise.all([import('./load.js'), import('./hooks-schema.js')]);
  const asks: string[] = [];
  if (hasConfig) {
    const { needsTrust } = loadConfig(opts.home, opts.cwd, { projectTrusted: false });
    if (needsTrust.length) asks.push(`${file} asks for ${needsTrust.join(', ')}`);
    const servers = Object.keys(readConfigFile(file).mcpServers ?? {});
    if (servers.length) asks.push(`${file} declares MCP servers (${servers.join(', ')})`);
  }
  if (hasMcpJson) asks.push(`${mcpJson} declares MCP servers`);
  const claudeHooks = hasClaude ? declaredHookEvents(claude, HOOK_EVENTS) : [];
  if (claudeHooks.length) asks.push(`${claude} declares hooks (${claudeHooks.join(', ')})`);
  if (asks.length === 0) return false;
  opts.output.write(`${oneLineText(asks.join('; '))}.\nTrust this folder? Only trust folders whose files you know. Keen remembers the answer. [y/N] `);
  const answer = await readLine(opts.input);
  const trusted = /^\s*y(es)?\s*$/i.test(answer);
  trustProject(opts.home, opts.cwd, trusted);
  return trusted;
}

/**
 * The events of Keen's that Claude Code's settings file has hooks for (none when it cannot be
 * read); a key Keen has no step for runs nothing and is not named.
 */
function declaredHookEvents(file: string, events: readonly string[]): string[] {
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, '')) as { hooks?: unknown };
    const hooks = raw?.hooks;
    if (!hooks || typeof hooks !== 'object' || Array.isArray(hooks)) return [];
    return Object.entries(hooks).flatMap(([event, groups]) => (events.includes(event) && Array.isArray(groups) && groups.length ? [event] : []));
  } catch {
    return [];
  }
}

/** One line from the terminal (cooked mode), leaving the stream paused for the REPL to take over. */
function readLine(input: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      input.off('data', onData);
      input.off('end', done);
      input.pause();
      resolve(text);
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl !== -1) {
        text = text.slice(0, nl);
        done();
      }
    };
    input.on('data', onData);
    input.once('end', done);
    input.resume();
  });
}
