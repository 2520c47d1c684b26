import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { fsErrorText } from './fs-guard.js';
import { isIgnored, loadIgnoreRules } from './gitignore.js';
import { describeDirRead, resolveDir } from './glob.js';
import { droppedNote, resultFilter } from './path-filter.js';
import { defineTool, ToolError } from './registry.js';

export const LIST_MAX_ENTRIES = 500;

const schema = z.object({
  path: z.string().optional().describe('Directory to list, relative to the workspace. Default: the workspace.'),
});

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
    const dirs: string[] = [];
    const files: string[] = [];
    let hidden = 0;
    for (const entry of entries) {
      const abs = path.join(dir.abs, entry.name);
      let isDir = entry.isDirectory();
      // A symlink to a directory lists as a directory.
      if (entry.isSymbolicLink()) isDir = (await stat(abs).catch(() => null))?.isDirectory() ?? false;
      if (isIgnored(rules, abs, isDir)) {
        hidden++;
        continue;
      }
      if (await filter.dropsEntry(abs)) continue;
      (isDir ? dirs : files).push(isDir ? `${entry.name}/` : entry.name);
    }
    const byName = (a: string, b: string) => a.localeCompare(b, 'en');
    const all = [...dirs.sort(byName), ...files.sort(byName)];
    const lines = all.slice(0, LIST_MAX_ENTRIES);
    const notes: string[] = [];
    if (all.length > LIST_MAX_ENTRIES) {
      notes.push(`[Showing ${LIST_MAX_ENTRIES} of ${all.length} entries; use glob to narrow down.]`);
    }
    if (hidden > 0) notes.push(`[${hidden} ${hidden === 1 ? 'entry' : 'entries'} hidden by .gitignore or .git]`);
    const note = droppedNote(filter.dropped, 'entry');
    if (note) notes.push(note);
    if (all.length === 0) lines.push(hidden > 0 || note ? `(${dir.shown} has no visible entries)` : `(${dir.shown} is empty)`);
    return [...lines, ...notes].join('\n');
  },
});
