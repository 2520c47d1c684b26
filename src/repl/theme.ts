/**
 * Colours of the REPL, by role. `NO_COLOR` (any non-empty value, https://no-color.org) drops every
 * colour; bold, dim, italic and inverse stay, since they carry structure rather than colour.
 */

export type Role =
  | 'accent'
  | 'user'
  | 'muted'
  | 'success'
  | 'warning'
  | 'error'
  | 'diffAdd'
  | 'diffRemove'
  | 'diffHunk'
  | 'heading'
  | 'code'
  | 'link'
  | 'keyword'
  | 'string'
  | 'number'
  | 'comment'
  | 'type';

const PALETTE: Record<Role, string> = {
  accent: 'cyan',
  user: 'cyan',
  muted: 'gray',
  success: 'green',
  warning: 'yellow',
  error: 'red',
  diffAdd: 'green',
  diffRemove: 'red',
  diffHunk: 'cyan',
  heading: 'blue',
  code: 'cyan',
  link: 'blue',
  keyword: 'magenta',
  string: 'green',
  number: 'yellow',
  comment: 'gray',
  type: 'cyan',
};

let colorsOn = !process.env.NO_COLOR;

/** Re-read `NO_COLOR` (tests and the entry point call it after changing the environment). */
export function refreshTheme(env: NodeJS.ProcessEnv = process.env): void {
  colorsOn = !env.NO_COLOR;
}

/** The Ink colour for a role, or undefined when colours are off. */
export function color(role: Role): string | undefined {
  return colorsOn ? PALETTE[role] : undefined;
}
