/**
 * The REPL's slash commands: the table (for /help and Tab completion) and the parser that decides
 * whether a line is a command, an unknown command (a one-line hint, never a model call) or a
 * message. A leading `/` followed by something that is not a command name (`/usr/bin/env …`) is a
 * message.
 */

export interface SlashCommand {
  name: string;
  aliases: string[];
  /** Argument synopsis for /help, e.g. `[focus]`. */
  args?: string;
  description: string;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: 'compact', aliases: [], args: '[focus]', description: 'summarise the conversation to free context' },
  { name: 'clear', aliases: ['new'], description: 'start a new session' },
  { name: 'resume', aliases: [], description: "pick one of this directory's sessions" },
  { name: 'sessions', aliases: [], description: "list this directory's sessions" },
  { name: 'model', aliases: [], args: '[name]', description: 'switch the model' },
  { name: 'permissions', aliases: [], args: '[mode M | allow|ask|deny RULE]', description: 'show or change the permission mode and rules' },
  { name: 'undo', aliases: [], args: '[--force]', description: 'restore the files the last turn changed' },
  { name: 'rewind', aliases: [], args: '[message] [--files]', description: 'restore files and conversation to before a message' },
  { name: 'usage', aliases: ['cost'], description: 'tokens, cache hits and cost so far' },
  { name: 'memory', aliases: [], description: 'show the memory files (# fact saves to project memory, #~ fact to user memory)' },
  { name: 'skills', aliases: [], description: 'list the skills (/<skill> [args] runs one)' },
  { name: 'mode', aliases: [], args: '[plan|build]', description: 'show or switch the agent mode' },
  { name: 'init', aliases: [], description: 'have the model draft an AGENTS.md for this repository' },
  { name: 'mcp', aliases: [], description: 'MCP servers: status, tools and prompts' },
  { name: 'hooks', aliases: [], description: 'the hooks that run around each step, and where they come from' },
  { name: 'context', aliases: [], description: 'where the context window goes, and the compactions so far' },
  { name: 'export', aliases: [], args: '[file]', description: 'write the session as one HTML page (docs/export.md)' },
  { name: 'help', aliases: [], description: 'keys and commands' },
  { name: 'exit', aliases: ['quit'], description: 'leave Keen' },
];

export type ParsedInput = { kind: 'message'; text: string } | { kind: 'command'; name: string; args: string } | { kind: 'unknown'; name: string };

const COMMAND = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/;

export function findCommand(name: string): SlashCommand | undefined {
  const n = name.toLowerCase();
  return SLASH_COMMANDS.find((c) => c.name === n || c.aliases.includes(n));
}

export function parseInput(text: string): ParsedInput {
  const trimmed = text.trim();
  const m = COMMAND.exec(trimmed);
  if (!m) return { kind: 'message', text };
  const command = findCommand(m[1]);
  if (!command) return { kind: 'unknown', name: m[1] };
  return { kind: 'command', name: command.name, args: (m[2] ?? '').trim() };
}

/** The one-line hint for an unknown command. */
export function unknownCommandHint(name: string): string {
  const near = SLASH_COMMANDS.find((c) => c.name.startsWith(name.toLowerCase().slice(0, 2)));
  return `Unknown command /${name}.${near ? ` Did you mean /${near.name}?` : ''} Type /help for the list.`;
}

/**
 * Commands whose name starts with `prefix` (without the slash), project commands and skills
 * included; when no name does, those with an alias that does (`/cos` offers `/usage`, `/co` does not).
 */
export function matchCommands(prefix: string): SlashCommand[] {
  const p = prefix.toLowerCase();
  const all = [...SLASH_COMMANDS, ...projectCommands];
  const named = all.filter((c) => c.name.toLowerCase().startsWith(p));
  return named.length > 0 ? named : all.filter((c) => c.aliases.some((a) => a.startsWith(p)));
}

let projectCommands: readonly SlashCommand[] = [];

/**
 * The custom commands and skills of the current session, for /help and Tab completion. Built-in
 * names win: a project command named like one is not offered.
 */
export function setProjectCommands(commands: readonly SlashCommand[]): void {
  projectCommands = commands.filter((c) => !findCommand(c.name));
}

export function listProjectCommands(): readonly SlashCommand[] {
  return projectCommands;
}
