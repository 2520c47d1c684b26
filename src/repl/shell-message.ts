/**
 * A `!command` typed in the REPL (Claude Code's bash mode): which input is one, and the user
 * message that carries the command and its output into the conversation, so the model sees it
 * on the next turn. The message is plain text the replay can read back into a bash card.
 */

/** The first line of a shell message: tells the model what the block is. */
export const SHELL_MESSAGE_LEAD = '[The user ran a shell command in the REPL; its output is context for the next message, not a request.]';

/**
 * The command of a typed `!command` line, or undefined when `text` is not one: a paste, several
 * lines, or a `!` with nothing after it are messages.
 */
export function shellCommandOf(text: string, pasted = false): string | undefined {
  if (pasted || text.includes('\n')) return undefined;
  const m = /^\s*!(.*)$/.exec(text);
  const command = m?.[1].trim();
  return command ? command : undefined;
}

/** The user message for `command` and the bash tool's result text. */
export function shellMessage(command: string, output: string): string {
  return `${SHELL_MESSAGE_LEAD}\n<shell-command>${command}</shell-command>\n<shell-output>\n${output}\n</shell-output>`;
}

/** `shellMessage`'s parts back, or undefined for any other text. */
export function parseShellMessage(text: string): { command: string; output: string } | undefined {
  if (!text.startsWith(`${SHELL_MESSAGE_LEAD}\n`)) return undefined;
  const m = /^<shell-command>(.*)<\/shell-command>\n<shell-output>\n([\s\S]*)\n<\/shell-output>$/.exec(text.slice(SHELL_MESSAGE_LEAD.length + 1));
  return m ? { command: m[1], output: m[2] } : undefined;
}
