/**
 * What each slash command does. Commands run like turns (one at a time; queued while busy) and
 * report through transcript items. None of them calls the model except /compact.
 */
import { contextLines, sessionContextReport } from '../agent/context-report.js';
import { MODEL_CATALOG } from '../config/models.js';
import { errorText } from '../errors.js';
import { PROVIDER_IDS } from '../providers/types.js';
import type { SessionSummary } from '../transcript/list.js';
import type { CommandHost } from './command-host.js';
import { initCommand, memoryCommand, modeCommand, skillsCommand } from './context-commands.js';
import { listProjectCommands, SLASH_COMMANDS } from './slash-commands.js';
import { usageLines } from './usage-report.js';

/** The session list (and the record schemas it validates with) loads when a command lists sessions, not with the REPL. */
const sessionList = () => Promise.all([import('../transcript/list.js'), import('../transcript/list-format.js')]).then(([list, format]) => ({ ...list, ...format }));

export const KEY_HELP = [
  'Enter send · Shift+Enter, Alt+Enter, Ctrl+J or \\ then Enter: new line',
  '↑/↓ input history (in the / menu: move, Enter or Tab takes it) · Tab complete /commands and @files (@file attaches the file)',
  '!command run a shell command yourself (its output goes to the model with your next message)',
  'Esc interrupt the agent or cancel a compaction · Ctrl+C interrupt; twice when idle to exit',
  'Ctrl+O expand tool output · Ctrl+L redraw the screen · input typed while the agent works is queued (up to 5)',
  'Shift+Tab cycle the permission mode (default → acceptEdits → plan)',
];

export function helpLines(): string[] {
  const width = Math.max(...SLASH_COMMANDS.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ''}`.length));
  const commands = SLASH_COMMANDS.map((c) => {
    const name = `/${c.name}${c.args ? ` ${c.args}` : ''}`;
    const aliases = c.aliases.length ? ` (also ${c.aliases.map((a) => `/${a}`).join(', ')})` : '';
    return `${name.padEnd(width)}  ${c.description}${aliases}`;
  });
  const custom = listProjectCommands().map((c) => `/${c.name}${c.args ? ` ${c.args}` : ''}  ${c.description}`);
  return [...commands, ...(custom.length ? ['', 'Project commands and skills:', ...custom] : []), '', ...KEY_HELP];
}

export async function runCommand(rt: CommandHost, name: string, args: string): Promise<void> {
  switch (name) {
    case 'help':
      rt.append({ kind: 'block', title: 'Commands', lines: helpLines() });
      return;
    case 'usage': {
      const info = rt.store.getState().session;
      rt.append({ kind: 'block', title: 'Usage this session', lines: usageLines(rt.spendSoFar(), { tokens: info?.contextTokens ?? 0, window: info?.window ?? 0 }) });
      return;
    }
    case 'context':
      rt.append({ kind: 'block', title: 'Context', lines: contextLines(sessionContextReport(rt.requireSession()), 48), palette: 'context' });
      return;
    case 'sessions': {
      const session = rt.requireSession();
      const { formatSessionList, listSessions } = await sessionList();
      const rows = (await listSessions(session.home, rt.cwd, { limit: SESSION_LIST_LIMIT })).filter((r) => r.turns > 0 || r.id === session.sessionId);
      rt.append({ kind: 'block', title: "This directory's sessions", lines: formatSessionList(rows).replace(/\n$/, '').split('\n') });
      return;
    }
    case 'resume':
      await resume(rt, args);
      return;
    case 'model':
      await switchModel(rt, args);
      return;
    case 'clear': {
      const s = rt.requireSession();
      await rt.switchSession({ ...rt.baseFlags(), provider: s.provider, model: s.model }, 'reset', 'Starting a new session…');
      return;
    }
    case 'compact':
      await rt.compact(args);
      return;
    case 'memory':
      memoryCommand(rt);
      return;
    case 'skills':
      skillsCommand(rt);
      return;
    case 'mode':
      modeCommand(rt, args);
      return;
    case 'init':
      await initCommand(rt);
      return;
    case 'mcp': {
      const { mcpStatusLines } = await import('./mcp-commands.js');
      rt.append({ kind: 'block', title: 'MCP servers', lines: mcpStatusLines(rt.requireSession().mcp) });
      return;
    }
    case 'hooks': {
      const { hookListLines } = await import('../hooks/list-hooks.js');
      rt.append({ kind: 'block', title: 'Hooks', lines: hookListLines(rt.requireSession().hooks) });
      return;
    }
    case 'undo':
      await (await import('./undo-commands.js')).undoCommand(rt, args);
      return;
    case 'permissions':
      (await import('./permissions-command.js')).permissionsCommand(rt, rt.permissionPolicy, args);
      return;
    case 'rewind':
      await (await import('./undo-commands.js')).rewindCommand(rt, args);
      return;
    case 'export':
      await (await import('./export-command.js')).exportCommand(rt, args);
      return;
    case 'exit':
      // Not awaited: exit waits for the running command, which is this one.
      void rt.exit(0);
      return;
  }
}

/** The newest sessions /sessions and the resume picker list (`keen sessions --page` pages them all). */
const SESSION_LIST_LIMIT = 200;

async function resume(rt: CommandHost, id: string): Promise<void> {
  const session = rt.requireSession();
  if (id) {
    if (id === session.sessionId) {
      rt.notice(`Session ${id} is the current session.`, 'muted');
      return;
    }
    await rt.switchSession({ ...rt.baseFlags(), session: id }, 'reset', 'Opening session…');
    return;
  }
  const { listSessions, relativeTime } = await sessionList();
  let rows: SessionSummary[];
  try {
    rows = await listSessions(session.home, rt.cwd, { limit: SESSION_LIST_LIMIT });
  } catch (err) {
    rt.notice(`Could not list sessions: ${errorText(err)}`, 'error');
    return;
  }
  const now = new Date();
  const options = rows
    .filter((r) => r.id !== session.sessionId && r.turns > 0)
    .map((r) => ({
      value: r.id,
      label: `${relativeTime(r.lastActivity, now).padEnd(10)} ${r.firstPrompt || '(no prompt yet)'}`,
      hint: `${r.turns} ${r.turns === 1 ? 'turn' : 'turns'}${r.compacted ? ', compacted' : ''} · ${r.id}`,
    }));
  if (options.length === 0) {
    rt.notice('No other sessions in this directory.', 'muted');
    return;
  }
  rt.store.dispatch({ type: 'picker-open', picker: { kind: 'resume', title: 'Resume a session', options } });
}

async function switchModel(rt: CommandHost, args: string): Promise<void> {
  const session = rt.requireSession();
  const models = session.config.models ?? {};
  if (!args) {
    const names = [...new Set([...Object.keys(models), ...Object.keys(MODEL_CATALOG)])];
    const options = names.map((n) => ({ value: n, label: n, hint: models[n]?.provider ?? MODEL_CATALOG[n]?.provider ?? '' }));
    const current = Math.max(0, names.indexOf(session.model));
    rt.store.dispatch({ type: 'picker-open', picker: { kind: 'model', title: `Switch model (now ${session.provider}/${session.model})`, options, selected: current } });
    return;
  }
  const words = args.split(/\s+/);
  const explicit = words.length === 2 && (PROVIDER_IDS as readonly string[]).includes(words[0]) ? words[0] : undefined;
  const model = explicit ? words[1] : args;
  const provider = explicit ?? models[model]?.provider ?? MODEL_CATALOG[model]?.provider;
  if (model === session.model && (!provider || provider === session.provider)) {
    rt.notice(`Already using ${session.provider}/${session.model}.`, 'muted');
    return;
  }
  // A session with nothing on disk yet simply starts over on the new model.
  const stored = session.store.persisted ? session.sessionId : undefined;
  const ok = await rt.switchSession({ ...rt.baseFlags(), session: stored, provider, model }, 'keep', 'Switching model…');
  if (ok) {
    const now = rt.requireSession();
    rt.notice(`Model: ${now.provider}/${now.model}`, 'success');
  }
}
