import { stat } from 'node:fs/promises';
import { dirname, relative, sep, resolve } from 'node:path';
import * as z from 'zod';
import { displayPath, fsErrorText, realPath, resolveReadPath, workspaceRoots } from './fs-guard.js';
import { createGlobMatcher } from './glob-match.js';
import { nameFilterArgs } from './glob.js';
import { clipLine } from './output-cap.js';
import { droppedNote, resultFilter } from './path-filter.js';
import { once } from '../core/lazy.js';
import { defineTool, ToolError } from './registry.js';
import { RG_COMMON, ripgrepErrorLine, runRipgrep } from './ripgrep.js';

export const GREP_MAX_LINES = 250;
export const GREP_MAX_CHARS = 30_000;
const MAX_COLUMNS = 500;

const schema = once(() =>
  z.object({
    pattern: z.string().min(1).describe('Regular expression (ripgrep/Rust syntax), e.g. "fn \\w+\\(" or "TODO".'),
    path: z.string().optional().describe('File or directory to search, relative to the workspace. Default: the workspace.'),
    glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.go".'),
    case_insensitive: z.boolean().default(false).describe('Match regardless of case.'),
    context: z.number().int().min(0).max(10).optional().describe('Lines of context to show around each match.'),
    files_only: z.boolean().default(false).describe('List only the paths of files that match.'),
  }),
);

/**
 * The last line of a grep that reached its cap. The search stopped there, so the number that
 * matched is not known: it is "more than" what is shown.
 */
export function cutNote(shown: number, unit: 'files' | 'lines'): string {
  return `[Showing the first ${shown} ${unit} of more than ${shown}; the search stopped there. Narrow it with path, glob or a more specific pattern.]`;
}

export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search file contents with a regular expression (ripgrep). Respects .gitignore and skips .git. ' +
    'Returns "path:line:text" for each matching line (context lines as "path-line-text"), or only paths ' +
    `with files_only. Output is capped at ${GREP_MAX_LINES} lines; narrow with path or glob when it is cut.`,
  schema,
  mutating: false,
  concurrent: true,
  async describe(args, ctx) {
    const abs = resolveReadPath(ctx.cwd, args.path ?? '.', workspaceRoots(ctx));
    return { tool: 'grep', summary: `grep ${args.pattern} in ${displayPath(ctx.cwd, abs)}`, access: 'read', paths: [await realPath(abs)] };
  },
  async run(args, ctx) {
    const abs = resolveReadPath(ctx.cwd, args.path ?? '.', workspaceRoots(ctx));
    const shown = displayPath(ctx.cwd, abs);
    const info = await stat(abs).catch((err: unknown) => {
      throw new ToolError(fsErrorText(err, shown));
    });
    const searchDir = info.isDirectory() ? abs : dirname(abs);
    const target = shown === '.' ? '.' : abs;
    const matcher = args.glob && info.isDirectory() ? createGlobMatcher(args.glob) : undefined;
    const keep = (found: string) => matcher === undefined || matcher(relative(searchDir, found).split(sep).join('/'));
    const filter = await resultFilter(ctx, 'grep', abs);

    const flags = [...RG_COMMON, ...filter.rgExcludes(ctx.cwd), '--max-columns', String(MAX_COLUMNS), '--max-columns-preview'];
    if (args.case_insensitive) flags.push('--ignore-case');
    if (args.files_only) flags.push('--files-with-matches');
    else flags.push('--line-number', '--no-heading', '--with-filename', '--null');
    if (args.context !== undefined && !args.files_only) flags.push('--context', String(args.context));
    if (args.glob && info.isDirectory()) flags.push(...nameFilterArgs(args.glob));

    const out: string[] = [];
    let chars = 0;
    let total = 0;
    let full = false;
    /** Keep one line; 'stop' once the cap is passed (rg is stopped: what follows is not shown). */
    const emit = (line: string): 'stop' | undefined => {
      total++;
      const clipped = clipLine(line, MAX_COLUMNS + 100);
      if (out.length >= GREP_MAX_LINES || chars + clipped.length > GREP_MAX_CHARS) {
        full = true;
        return 'stop';
      }
      out.push(clipped);
      chars += clipped.length + 1;
      return undefined;
    };

    let lastFile: string | undefined;
    let lastName: string | undefined;
    const run = await runRipgrep([...flags, '--regexp', args.pattern, '--', target], {
      cwd: ctx.cwd,
      signal: ctx.signal,
      onLine: (line) => {
        if (line === '--') {
          if (out.length > 0 && out[out.length - 1] !== '--') out.push('--');
          return;
        }
        const nul = line.indexOf('\0');
        const file = nul === -1 ? line : line.slice(0, nul);
        // Consecutive lines of one file share its verdict and its shown name.
        if (file !== lastFile) {
          lastFile = file;
          const found = resolve(ctx.cwd, file);
          lastName = keep(found) && !filter.drops(found) ? displayPath(ctx.cwd, found) : undefined;
        }
        if (lastName === undefined) return;
        const name = lastName;
        if (nul === -1) return emit(name);
        const rest = line.slice(nul + 1);
        return emit(`${name}${/^\d+:/.test(rest) ? ':' : '-'}${rest}`);
      },
    });
    if (run.code === 2 && !run.stopped && total === 0) throw new ToolError(`grep failed: ${ripgrepErrorLine(run.stderr)}`);
    while (out[out.length - 1] === '--') out.pop();
    const note = droppedNote(filter.dropped, 'file');
    if (total === 0) return [`No matches for ${args.pattern} in ${shown === '.' ? 'the workspace' : shown}.`, ...(note ? [note] : [])].join('\n');
    if (full) out.push(cutNote(out.filter((l) => l !== '--').length, args.files_only ? 'files' : 'lines'));
    if (note) out.push(note);
    return out.join('\n');
  },
});
