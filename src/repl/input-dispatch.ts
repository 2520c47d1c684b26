/**
 * Where a submitted line goes: a `!command` (shell-command.ts), a `#` memory note, an MCP prompt (`/mcp__server__prompt`), a custom
 * command or skill (`/<name> args`, its expansion sent, what the user typed shown), a built-in
 * slash command, an unknown command (a hint), or a chat message with its `@mentions` and MCP
 * resources attached. Works on the narrow {@link CommandHost}, not on the runtime.
 */
import type { CommandHost } from './command-host.js';
import { runCommand } from './commands.js';
import { memoryInput } from './context-commands.js';
import { expandMentions } from './input/mentions.js';
import type { InputOrigin } from './message-queue.js';
import { shellCommandOf } from './shell-message.js';
import { parseInput, unknownCommandHint } from './slash-commands.js';

/**
 * `origin.pasted`: the text came from a paste, so it is a message whatever it starts with (shown
 * as `origin.shown`: long pastes as their labels). `#` notes and `!` commands are typed
 * single-line input only (a multi-line text starting with `# ` is markdown).
 */
export async function dispatchInput(host: CommandHost, text: string, origin: InputOrigin = {}): Promise<void> {
  if (origin.pasted || origin.shown !== undefined) return chat(host, text, undefined, origin.shown);
  const command = shellCommandOf(text);
  if (command !== undefined) {
    // `!command`: run now as the bash tool would, its output for the model's next turn.
    const session = host.requireSession();
    const { shellTurn } = await import('./shell-command.js');
    host.append({ kind: 'user', text: text.trim(), attachments: [] });
    await host.streamTurn((signal) => shellTurn(session, command, { cwd: host.cwd, gate: host.permissionGate, signal }));
    return;
  }
  if (!text.trim().includes('\n') && (await memoryInput(host, text))) return;
  const parsed = parseInput(text);
  if (parsed.kind === 'unknown' && parsed.name.startsWith('mcp__') && (await mcpPrompt(host, text, parsed.name))) return;
  if (parsed.kind !== 'command' && text.trim().startsWith('/')) {
    // A custom command or a skill: its text goes to the model; the user sees what they typed.
    const expansion = host.requireSession().expandSlash(text);
    if (expansion.kind !== 'none') {
      await chat(host, text.trim(), expansion.text);
      return;
    }
  }
  if (parsed.kind === 'unknown') {
    host.append({ kind: 'user', text: text.trim(), attachments: [] }, { kind: 'notice', text: unknownCommandHint(parsed.name), tone: 'warning' });
    return;
  }
  if (parsed.kind === 'command') {
    host.append({ kind: 'user', text: text.trim(), attachments: [] });
    await runCommand(host, parsed.name, parsed.args);
    return;
  }
  await chat(host, text);
}

/** A turn that shows `shown` (default `text`) and sends `send` (a custom command's or skill's expansion) when given. */
async function chat(host: CommandHost, text: string, send?: string, shown = text): Promise<void> {
  const session = host.requireSession();
  // A command or skill body is repository text: its @mentions are not expanded (only the user's are).
  const expanded = send === undefined ? expandMentions(text, host.cwd) : { text: send, attachments: [], problems: [], images: [] };
  const resources = send === undefined && session.mcp ? await (await import('./mcp-commands.js')).expandMcpResources(expanded.text, session.mcp) : undefined;
  // A model that takes no images gets the text alone, and the user one line saying so.
  const images = session.resolved.info.images ? expanded.images : [];
  const imageProblem = expanded.images.length > images.length ? noImagesLine(session.resolved.name, expanded.images.length) : undefined;
  host.append({ kind: 'user', text: shown, attachments: [...expanded.attachments.map((a) => a.path), ...images.map((i) => i.label), ...(resources?.attached ?? [])] });
  for (const problem of [...expanded.problems, ...(imageProblem ? [imageProblem] : []), ...(resources?.problems ?? [])]) host.notice(problem, 'warning');
  await host.chatAs(
    resources?.text ?? expanded.text,
    images.map((i) => i.image),
  );
}

/** The one line for images a model cannot take. */
export function noImagesLine(model: string, count: number): string {
  return `model ${model} takes no images; ${count === 1 ? 'the image was' : `${count} images were`} not attached (a config "models" entry with "images": true says it does)`;
}

/** `/mcp__<server>__<prompt> [args]`: the prompt's text becomes the message. False: no such prompt. */
async function mcpPrompt(host: CommandHost, text: string, name: string): Promise<boolean> {
  const session = host.requireSession();
  const { mcpPromptMessage } = await import('./mcp-commands.js');
  const result = await mcpPromptMessage(session.mcp, name, text.trim().slice(name.length + 1));
  if (!result) return false;
  if ('error' in result) {
    host.append({ kind: 'user', text: text.trim(), attachments: [] }, { kind: 'notice', text: result.error, tone: 'error' });
    return true;
  }
  host.append({ kind: 'user', text: text.trim(), attachments: [] });
  await host.chatAs(result.text);
  return true;
}
