/**
 * The REPL commands about project context: /memory, /skills, /mode, /init, and `#` memory input.
 * None asks the model except /init (a normal turn whose write asks permission as usual).
 */
import { relative, basename, dirname } from 'node:path';
import { parseAgentMode } from '../project/agent-mode.js';
import { existingInstructions, initPrompt } from '../project/init-prompt.js';
import { appendMemory, readMemoryFile } from '../project/memory.js';
import type { LiveSession } from '../agent/open-session.js';
import type { SlashCommand } from './slash-commands.js';
import type { NewItem, NoticeTone } from './state/ui-state.js';
import type { UiStore } from './state/ui-store.js';

/** What these commands use of the REPL runtime (kept narrow so this file does not import it). */
export interface ContextCommandHost {
  readonly cwd: string;
  readonly store: UiStore;
  requireSession(): LiveSession;
  append(...items: NewItem[]): void;
  notice(text: string, tone?: NoticeTone): void;
  /** A turn sending `prompt` (the user's command line is already on screen). */
  chatAs(prompt: string): Promise<void>;
}

/** Lines of a memory file /memory shows at most. */
const MEMORY_SHOWN_BYTES = 8 * 1024;

export function memoryCommand(rt: ContextCommandHost): void {
  const ctx = rt.requireSession().loadContext();
  const lines: string[] = [];
  for (const scope of ['user', 'project'] as const) {
    const file = ctx.memoryPaths[scope];
    const read = readMemoryFile(ctx.memoryPaths, scope, MEMORY_SHOWN_BYTES);
    lines.push(`${scope === 'user' ? 'User' : 'Project'} memory: ${file}`);
    const text = read?.content.trimEnd();
    lines.push(...(text ? text.split('\n').map((l) => `  ${l}`) : ['  (empty)']));
    if (read?.truncated) lines.push(`  … cut at ${MEMORY_SHOWN_BYTES} bytes`);
    lines.push('');
  }
  lines.push('Start a message with # to save a fact to project memory, #~ for user memory.');
  rt.append({ kind: 'block', title: 'Memory', lines });
}

export function skillsCommand(rt: ContextCommandHost): void {
  const { skills } = rt.requireSession().loadContext();
  if (skills.length === 0) {
    rt.notice('No skills found (.agents/skills, .keen/skills, .claude/skills, $KEEN_HOME/skills, ~/.agents/skills).', 'muted');
    return;
  }
  const width = Math.max(...skills.map((s) => s.name.length));
  const lines = skills.map((s) => `/${s.name.padEnd(width)}  ${s.description}  (${relative(rt.cwd, s.file) || s.file})`);
  rt.append({ kind: 'block', title: 'Skills', lines: [...lines, '', 'Type /<skill> [args] to run one; the model also loads them itself.'] });
}

export function modeCommand(rt: ContextCommandHost, args: string): void {
  const session = rt.requireSession();
  if (!args) {
    rt.notice(`Mode: ${session.mode.get()} (switch with /mode plan or /mode build)`, 'muted');
    return;
  }
  const mode = parseAgentMode(args);
  if (!mode) {
    rt.notice(`Unknown mode "${args}": use /mode plan or /mode build.`, 'warning');
    return;
  }
  session.mode.set(mode);
  rt.store.dispatch({ type: 'mode', mode });
  // One plan mode: /mode moves the permission mode too (planModeHolder); the footer shows it.
  const info = rt.store.getState().session;
  if (info) rt.store.dispatch({ type: 'session', info: { ...info, permissionMode: session.policy.mode } });
  rt.notice(
    mode === 'plan' ? 'Plan mode: the agent reads and plans; writes and mutating commands are refused.' : 'Build mode: the agent may change files (with your permission).',
    'success',
  );
}

export async function initCommand(rt: ContextCommandHost): Promise<void> {
  const existing = existingInstructions(rt.cwd);
  if (existing) {
    rt.notice(`${existing} already exists; edit it, or remove it to draft a new one.`, 'muted');
    return;
  }
  await rt.chatAs(initPrompt(rt.cwd));
}

/**
 * `# fact` (project memory) or `#~ fact` (user memory) typed at the prompt: saved without asking
 * the model. Returns false when `text` is not memory input.
 */
export async function memoryInput(rt: ContextCommandHost, text: string): Promise<boolean> {
  const m = /^#(~?)\s*([\s\S]*)$/.exec(text.trim());
  if (!m) return false;
  const scope = m[1] ? 'user' : 'project';
  rt.append({ kind: 'user', text: text.trim(), attachments: [] });
  try {
    const file = await appendMemory(rt.requireSession().loadContext().memoryPaths, scope, m[2]);
    rt.notice(`Saved to ${scope} memory (${file})`, 'success');
  } catch (err) {
    rt.notice(`Not saved: ${(err as Error).message}`, 'warning');
  }
  return true;
}

/** The session's custom commands and skills as /help and Tab-completion rows. */
export function projectSlashCommands(rt: ContextCommandHost): SlashCommand[] {
  const ctx = rt.requireSession().loadContext();
  const commands = ctx.commands.map((c) => ({
    name: c.name,
    aliases: [],
    args: '[args]',
    description: c.description ?? `custom command (${basename(dirname(dirname(c.file)))})`,
  }));
  const skills = ctx.skills.map((s) => ({ name: s.name, aliases: [], args: '[args]', description: `skill: ${s.description}` }));
  const names = new Set(commands.map((c) => c.name.toLowerCase()));
  return [...commands, ...skills.filter((s) => !names.has(s.name.toLowerCase()))];
}
