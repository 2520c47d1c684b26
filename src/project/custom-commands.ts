import { join } from 'node:path';
import { lookupDirs, markdownFiles, type LookupDir } from './definition-dirs.js';
import type { WalkFrom } from './repo-root.js';
import { parseFrontMatter, stringField } from './front-matter.js';
import { readCapped } from './read-capped.js';
import { oneLine } from './skills.js';

/** A command file is read up to this size. */
export const COMMAND_FILE_CAP = 32 * 1024;

/** A custom slash command: `/<name> args` sends `body` with the arguments filled in. */
export interface CustomCommand {
  name: string;
  description?: string;
  file: string;
  /** The file's Markdown without front matter. */
  body: string;
}

const NAME = /^[A-Za-z][\w-]*$/;

/** Command folders, nearest first: project `.keen/commands`, `.claude/commands`, then `$KEEN_HOME/commands`. */
export function commandDirs(cwd: WalkFrom, home: string): LookupDir[] {
  return lookupDirs(cwd, { project: ['.keen/commands', '.claude/commands'], user: [{ dir: join(home, 'commands'), config: home }] });
}

/**
 * Every `<name>.md` of `dirs`, first name wins. Front matter is optional (only `description` is
 * used); a file whose front matter does not parse, that leads out of its folder's bound or is
 * another account's is skipped with one warning naming it.
 */
export function discoverCommands(dirs: readonly (string | LookupDir)[]): { commands: CustomCommand[]; warnings: string[] } {
  const commands: CustomCommand[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const { entry, file, within } of markdownFiles(dirs, warnings)) {
    const name = entry.slice(0, -3);
    if (!NAME.test(name) || seen.has(name.toLowerCase())) continue;
    const text = readCapped(file, COMMAND_FILE_CAP, { within, warnings, what: 'command' });
    if (!text) continue;
    try {
      const { data, body } = parseFrontMatter(text.content);
      const description = stringField(data, 'description');
      seen.add(name.toLowerCase());
      commands.push({ name, description: description && oneLine(description, 120), file, body: body.trim() });
    } catch (err) {
      warnings.push(`skipped command ${file}: ${(err as Error).message}`);
    }
  }
  return { commands, warnings };
}

/**
 * The command's body with its arguments: `$ARGUMENTS` becomes the whole argument text, `$1`,
 * `$2`… the words (quotes group words: `"two words"`); a missing positional becomes ''. A body
 * without any placeholder gets the arguments appended on their own paragraph, so they are never
 * silently dropped.
 */
export function expandCommand(body: string, args: string): string {
  const words = splitArgs(args);
  const hasPlaceholder = /\$ARGUMENTS|\$\d/.test(body);
  const out = body.replace(/\$ARGUMENTS/g, () => args.trim()).replace(/\$(\d+)/g, (_, n: string) => words[Number(n) - 1] ?? '');
  return !hasPlaceholder && args.trim() ? `${out}\n\n${args.trim()}` : out;
}

function splitArgs(args: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(args); m; m = re.exec(args)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}
