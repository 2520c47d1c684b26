import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { once } from '../core/lazy.js';
import { displayPath, fsErrorText, realPath, resolveReadPath, workspaceRoots } from './fs-guard.js';
import { createGlobMatcher, nameFilterOf } from './glob-match.js';
import { droppedNote, resultFilter } from './path-filter.js';
import { defineTool, ToolError } from './registry.js';
import { RG_COMMON, ripgrepErrorLine, runRipgrep } from './ripgrep.js';
import type { PermissionRequest, ToolContext } from './types.js';

export const GLOB_MAX_RESULTS = 300;

const schema = once(() =>
  z.object({
    pattern: z.string().min(1).describe('Glob such as "**/*.ts", "src/**/*.{ts,tsx}" or "*.md". Without a "/" it matches file names at any depth.'),
    path: z.string().optional().describe('Directory to search, relative to the workspace. Default: the workspace.'),
  }),
);

/** Resolve a directory argument shared by glob, grep and list_dir. */
export async function resolveDir(ctx: Pick<ToolContext, 'cwd' | 'permissions'>, input: string | undefined): Promise<{ abs: string; shown: string; real: string }> {
  const abs = resolveReadPath(ctx.cwd, input ?? '.', workspaceRoots(ctx));
  const shown = displayPath(ctx.cwd, abs);
  const info = await stat(abs).catch((err: unknown) => {
    throw new ToolError(fsErrorText(err, shown));
  });
  if (!info.isDirectory()) throw new ToolError(`${shown} is not a directory.`);
  return { abs, shown, real: await realPath(abs) };
}

/** The permission request of a tool that reads a directory (glob, list_dir). */
export async function describeDirRead(tool: string, what: string, ctx: Pick<ToolContext, 'cwd' | 'permissions'>, input: string | undefined): Promise<PermissionRequest> {
  const dir = await resolveDir(ctx, input);
  return { tool, summary: `${what} in ${dir.shown}`, access: 'read', paths: [dir.real] };
}

/** `--type-add` flags narrowing rg to a file-name glob; respects .gitignore, unlike `--glob`. */
export function nameFilterArgs(pattern: string): string[] {
  const name = nameFilterOf(pattern);
  return name ? ['--type-add', `keenglob:${name}`, '--type', 'keenglob'] : [];
}

export const globTool = defineTool({
  name: 'glob',
  description:
    'Find files by name pattern. Respects .gitignore and skips .git. Returns matching paths relative to ' +
    `the workspace, sorted, at most ${GLOB_MAX_RESULTS}. Use grep to search file contents.`,
  schema,
  mutating: false,
  concurrent: true,
  describe: (args, ctx) => describeDirRead('glob', `glob ${args.pattern}`, ctx, args.path),
  async run(args, ctx) {
    const dir = await resolveDir(ctx, args.path);
    let pattern = args.pattern.trim();
    if (pattern.startsWith(`${dir.abs}/`)) pattern = pattern.slice(dir.abs.length + 1);
    const matches = createGlobMatcher(pattern);
    const found: string[] = [];
    const filter = await resultFilter(ctx, 'glob', dir.abs);
    const run = await runRipgrep([...RG_COMMON, ...filter.rgExcludes(dir.abs), '--files', ...nameFilterArgs(pattern), '.'], {
      cwd: dir.abs,
      signal: ctx.signal,
      onLine: (line) => {
        const rel = line.startsWith('./') ? line.slice(2) : line;
        if (rel !== '' && matches(rel) && !filter.drops(join(dir.abs, rel))) found.push(rel);
      },
    });
    if (run.code === 2 && found.length === 0 && run.stderr !== '') {
      throw new ToolError(`glob failed: ${ripgrepErrorLine(run.stderr)}`);
    }
    const note = droppedNote(filter.dropped, 'file');
    if (found.length === 0) return [`No files match ${pattern} in ${dir.shown === '.' ? 'the workspace' : dir.shown}.`, ...(note ? [note] : [])].join('\n');
    found.sort();
    const shown = found.slice(0, GLOB_MAX_RESULTS).map((rel) => displayPath(ctx.cwd, join(dir.abs, rel)));
    if (found.length > GLOB_MAX_RESULTS) {
      shown.push(`[Showing ${GLOB_MAX_RESULTS} of ${found.length} files; ${found.length - GLOB_MAX_RESULTS} more not shown. Narrow the pattern or path.]`);
    }
    if (note) shown.push(note);
    return shown.join('\n');
  },
});
