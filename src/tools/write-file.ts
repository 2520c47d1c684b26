import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { once } from '../core/lazy.js';
import { unifiedDiff } from './diff.js';
import { editorError, editorReader, editorWriter } from './file-access.js';
import { displayPath, fsErrorText, resolveWritePath, workspaceRoots } from './fs-guard.js';
import { lineCount, linesText } from './line-count.js';
import { defineTool, ToolError } from './registry.js';
import type { ToolContext } from './types.js';

const schema = once(() =>
  z.object({
    path: z.string().describe('File to write, relative to the workspace.'),
    content: z.string().describe('The complete new content of the file.'),
  }),
);

/** The file's text now (an editor's buffer, when it lends its files); undefined when it does not exist. */
async function currentContent(abs: string, shown: string, ctx: Pick<ToolContext, 'cwd' | 'permissions' | 'files' | 'signal'>, real: string): Promise<string | undefined> {
  let disk: string;
  try {
    disk = await readFile(abs, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ToolError(fsErrorText(err, shown));
  }
  const editor = await editorReader(ctx, real);
  if (!editor) return disk;
  return editor(real, ctx.signal).catch((err: unknown) => {
    throw editorError(err, 'read', shown);
  });
}

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Create or overwrite a file with the given content, creating parent directories as needed. ' +
    'Only paths inside the workspace can be written. Prefer edit_file for changing part of an existing file.',
  schema,
  mutating: true,
  async describe(args, ctx) {
    const { abs, real } = await resolveWritePath(ctx.cwd, args.path, workspaceRoots(ctx));
    const shown = displayPath(ctx.cwd, abs);
    const before = await currentContent(abs, shown, ctx, real);
    const lines = lineCount(args.content);
    return {
      tool: 'write_file',
      summary: `write ${shown} (${linesText(lines)}, ${before === undefined ? 'new file' : 'overwrite'})`,
      detail: unifiedDiff(before ?? '', args.content, { path: shown }),
      access: 'write',
      paths: [real],
    };
  },
  async run(args, ctx) {
    const { abs, real } = await resolveWritePath(ctx.cwd, args.path, workspaceRoots(ctx));
    const shown = displayPath(ctx.cwd, abs);
    let existed = false;
    try {
      await stat(abs);
      existed = true;
    } catch {
      // a new file
    }
    const editor = editorWriter(ctx);
    try {
      await mkdir(dirname(abs), { recursive: true });
      if (!editor) await writeFile(abs, args.content, 'utf8');
    } catch (err) {
      throw new ToolError(fsErrorText(err, shown));
    }
    if (editor) {
      await editor(real, args.content, ctx.signal).catch((err: unknown) => {
        throw editorError(err, 'write', shown);
      });
    }
    return `Wrote ${linesText(lineCount(args.content))} to ${shown}${existed ? ' (replaced the previous content)' : ' (new file)'}.`;
  },
});
