/**
 * Whether a shell command only reads (plan mode lets these run). Conservative: one simple
 * command (no `;` `&` `|` `>` `<` backticks, `$(`, or newlines), whose program is on a short list
 * of read-only tools, with no argument that makes it write (`find -delete`, `sort -o`, `rg --pre`).
 * Anything else counts as mutating.
 */
export function isReadOnlyCommand(command: string): boolean {
  const text = command.trim();
  if (!text || /[;&|`<>\n\r]|\$\(/.test(text)) return false;
  const words = text.split(/\s+/);
  const program = words[0];
  if (program === 'git') return READ_ONLY_GIT.has(words[1] ?? '') && !words.some((w) => w === '--output' || w.startsWith('--output='));
  if (!READ_ONLY.has(program)) return false;
  if (program === 'find') return !words.some((w) => /^-(delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/.test(w));
  if (program === 'rg') return !words.some((w) => w.startsWith('--pre'));
  if (program === 'sort') return !words.some((w) => w === '-o' || w.startsWith('--output'));
  return true;
}

const READ_ONLY = new Set([
  'ls',
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'rg',
  'find',
  'pwd',
  'echo',
  'stat',
  'du',
  'df',
  'sort',
  'uniq',
  'cut',
  'diff',
  'which',
  'type',
  'realpath',
  'dirname',
  'basename',
]);

const READ_ONLY_GIT = new Set(['status', 'log', 'diff', 'show', 'blame', 'ls-files', 'rev-parse', 'grep', 'describe']);
