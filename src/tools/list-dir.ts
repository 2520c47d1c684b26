import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { once } from '../core/lazy.js';
import { fsErrorText } from './fs-guard.js';
import { isIgnored, loadIgnoreRules } from './gitignore.js';
import { describeDirRead, resolveDir } from './glob.js';
import { droppedNote, resultFilter } from './path-filter.js';
import { defineTool, ToolError } from './registry.js';
import { sortedLazily } from './first-sorted.js';

export const LIST_MAX_ENTRIES = 500;

interface Item {
  name: string;
  isDir: boolean;
  link: boolean;
}

// Built at the first listing: an ICU collator costs the launch of every command that imports the tools.
let collator: Intl.Collator | undefined;
/** Directories first, then by name. */
const listOrder = (a: Item, b: Item) => {
  if (a.isDir !== b.isDir) return a.isDir ? -1 : 1;
  collator ??= new Intl.Collator('en');
  return collator.compare(a.name, b.name);
};

const schema = once(() =>
  z.object({
    path: z.string().optional().describe('Directory to list, relative to the workspace. Default: the workspace.'),
  }),
);

export const listDirTool = defineTool({
  name: 'list_dir',
  description:
    'List a directory: one entry per line, directories first and marked with a trailing "/". Skips .git ' +
    `and entries matched by .gitignore (the count of hidden entries is shown). At most ${LIST_MAX_ENTRIES} entries. ` +
    'Use glob to find files deeper down.',
  schema,
  mutating: false,
  concurrent: true,
  describe: (args, ctx) => describeDirRead('list_dir', 'list', ctx, args.path),
  async run(args, ctx) {
    const dir = await resolveDir(ctx, args.path);
    const entries = await readdir(dir.abs, { withFileTypes: true }).catch((err: unknown) => {
      throw new ToolError(fsErrorText(err, dir.shown));
    });
    const rules = await loadIgnoreRules(ctx.cwd, dir.abs);
    const filter = await resultFilter(ctx, 'list_dir', dir.abs);
    const items: Item[] = entries.map((entry) => ({ name: entry.name, isDir: entry.isDirectory(), link: entry.isSymbolicLink() }));
    // A symlink to a directory lists as a directory (only links are stat'ed: plain entries are typed).
    await Promise.all(
      items
        .filter((item) => item.link)
        .map(async (item) => {
          item.isDir = (await stat(join(dir.abs, item.name)).catch(() => null))?.isDirectory() ?? false;
        }),
    );
    // Entries are checked in the order shown and only until one past the cap: a directory of
    // 100,000 entries costs its read and one selection pass, not 100,000 ignore checks and a sort.
    const lines: string[] = [];
    let hidden = 0;
    let checked = 0;
    let more = false;
    for (const item of sortedLazily(items, listOrder, LIST_MAX_ENTRIES + 1)) {
      checked++;
      const abs = join(dir.abs, item.name);
      if (isIgnored(rules, abs, item.isDir)) {
        hidden++;
        continue;
      }
      // Only a symlink's real path needs a realpath: any other entry's is the folder's plus its name.
      if (item.link ? await filter.dropsEntry(abs) : filter.drops(abs)) continue;
      if (lines.length === LIST_MAX_ENTRIES) {
        more = true;
        break;
      }
      lines.push(item.isDir ? `${item.name}/` : item.name);
    }
    const notes: string[] = [];
    const unchecked = items.length - checked;
    if (more && unchecked === 0) notes.push(`[Showing ${LIST_MAX_ENTRIES} of ${LIST_MAX_ENTRIES + 1} entries; use glob to narrow down.]`);
    else if (more) notes.push(`[Showing the first ${LIST_MAX_ENTRIES} entries; the directory holds ${items.length}. Use glob to narrow down.]`);
    if (hidden > 0) notes.push(`[${hidden} ${hidden === 1 ? 'entry' : 'entries'} hidden by .gitignore or .git${more && unchecked > 0 ? ' among those checked' : ''}]`);
    const note = droppedNote(filter.dropped, 'entry');
    if (note) notes.push(note);
    if (lines.length === 0) lines.push(hidden > 0 || note ? `(${dir.shown} has no visible entries)` : `(${dir.shown} is empty)`);
    return [...lines, ...notes].join('\n');
  },
});
