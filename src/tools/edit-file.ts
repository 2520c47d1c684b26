import { readFile, writeFile } from 'node:fs/promises';
import * as z from 'zod';
import { once } from '../core/lazy.js';
import { unifiedDiff } from './diff.js';
import { editorError, editorReader, editorWriter } from './file-access.js';
import { displayPath, fsErrorText, resolveWritePath, workspaceRoots } from './fs-guard.js';
import type { ToolContext } from './types.js';
import { countNewlines } from './output-cap.js';
import { defineTool, ToolError } from './registry.js';

const schema = once(() =>
  z.object({
    path: z.string().describe('File to edit, relative to the workspace.'),
    old_string: z.string().describe('The exact text to replace, including whitespace and indentation.'),
    new_string: z.string().describe('The text to put in its place.'),
    replace_all: z.boolean().default(false).describe('Replace every occurrence instead of requiring exactly one.'),
  }),
);

type EditArgs = z.output<ReturnType<typeof schema>>;

interface EditPlan {
  abs: string;
  real: string;
  shown: string;
  before: string;
  after: string;
  count: number;
  firstLine: number;
}

function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let k = text.indexOf(needle); k !== -1; k = text.indexOf(needle, k + needle.length)) n++;
  return n;
}

/** Work out the edit without writing anything; every refusal is a ToolError. */
async function planEdit(args: EditArgs, ctx: Pick<ToolContext, 'cwd' | 'permissions' | 'files' | 'signal'>): Promise<EditPlan> {
  const cwd = ctx.cwd;
  const { abs, real } = await resolveWritePath(cwd, args.path, workspaceRoots(ctx));
  const shown = displayPath(cwd, abs);
  if (args.old_string === '') {
    throw new ToolError('old_string must not be empty; use write_file to create or overwrite a file.');
  }
  if (args.old_string === args.new_string) {
    throw new ToolError('old_string and new_string are identical; there is nothing to change.');
  }
  let raw: Buffer;
  try {
    raw = await readFile(abs);
  } catch (err) {
    const hint = (err as NodeJS.ErrnoException).code === 'ENOENT' ? ' Use write_file to create a new file.' : '';
    throw new ToolError(fsErrorText(err, shown) + hint);
  }
  if (raw.subarray(0, 8192).includes(0)) {
    throw new ToolError(`Refusing to edit ${shown}: it is a binary file (contains NUL bytes).`);
  }
  // An editor's buffer may hold unsaved changes: the edit applies to what the user sees.
  const editor = await editorReader(ctx, real);
  const before = editor
    ? await editor(real, ctx.signal).catch((err: unknown) => {
        throw editorError(err, 'read', shown);
      })
    : raw.toString('utf8');

  let oldText = args.old_string;
  let newText = args.new_string;
  let count = occurrences(before, oldText);
  // The model sees lines without their \r; match CRLF files anyway.
  if (count === 0 && before.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r')) {
    oldText = oldText.replace(/\n/g, '\r\n');
    newText = newText.replace(/\r?\n/g, '\r\n');
    count = occurrences(before, oldText);
  }
  if (count === 0) {
    throw new ToolError(`old_string was not found in ${shown}. Read the file again and copy the text exactly, including whitespace and indentation.`);
  }
  if (count > 1 && !args.replace_all) {
    throw new ToolError(`old_string matches ${count} places in ${shown}; add surrounding lines to make it unique, or set replace_all to true.`);
  }
  const firstLine = countNewlines(before.slice(0, before.indexOf(oldText))) + 1;
  // split/join, not String.replace: `$&` and friends in new_string must stay literal.
  const after = before.split(oldText).join(newText);
  return { abs, real, shown, before, after, count, firstLine };
}

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replace exact text in a file. old_string must match the file exactly (whitespace and indentation ' +
    'included; do not include the line numbers read_file shows) and must occur exactly once unless ' +
    'replace_all is true. Read the file first. Only files inside the workspace can be edited.',
  schema,
  mutating: true,
  async describe(args, ctx) {
    const plan = await planEdit(args, ctx);
    const what = plan.count === 1 ? '1 replacement' : `${plan.count} replacements`;
    return {
      tool: 'edit_file',
      summary: `edit ${plan.shown} (${what}, from line ${plan.firstLine})`,
      detail: unifiedDiff(plan.before, plan.after, { path: plan.shown }),
      access: 'write',
      paths: [plan.real],
    };
  },
  async run(args, ctx) {
    const plan = await planEdit(args, ctx);
    const editor = editorWriter(ctx);
    if (editor) {
      await editor(plan.real, plan.after, ctx.signal).catch((err: unknown) => {
        throw editorError(err, 'write', plan.shown);
      });
    } else {
      try {
        await writeFile(plan.abs, plan.after, 'utf8');
      } catch (err) {
        throw new ToolError(fsErrorText(err, plan.shown));
      }
    }
    const what = plan.count === 1 ? '1 occurrence' : `${plan.count} occurrences`;
    return `Edited ${plan.shown}: replaced ${what} (first at line ${plan.firstLine}).`;
  },
});
