import * as z from 'zod';
import { once } from '../core/lazy.js';
import { appendMemory, type MemoryPaths } from '../project/memory.js';
import { defineTool, ToolError, type Tool } from './registry.js';

const schema = once(() =>
  z.object({
    fact: z.string().describe('The fact or preference to keep, as one short line.'),
    scope: z.enum(['project', 'user']).default('project').describe('"project": this repository (.keen/memory.md); "user": every project ($KEEN_HOME/memory.md).'),
  }),
);

/**
 * `remember`: appends one bullet to a memory file (never a path the model names). A mutating
 * tool, so plan mode refuses it. `scope: "user"` writes `$KEEN_HOME/memory.md`, which every later
 * session of every project reads: a write outside the workspace that asks like write_file
 * (headless: denied unless allowed). `scope: "project"` writes the repository's own
 * `.keen/memory.md` and runs without asking (described as a read of the project; the file's
 * place and owner are checked when it is opened, see `appendMemory`).
 */
export function createRememberTool(paths: () => MemoryPaths): Tool {
  return defineTool({
    name: 'remember',
    description:
      'Save a lasting fact or user preference to memory; it appears in the system prompt of every later session. Use it when the user asks you to remember something or states a durable preference. One line per fact.',
    schema,
    mutating: true,
    describe: (args) =>
      args.scope === 'user'
        ? { tool: 'remember', summary: `remember in user memory (every project): ${oneLine(args.fact)}`, access: 'write' }
        : { tool: 'remember', summary: `remember in project memory: ${oneLine(args.fact)}`, access: 'read' },
    async run(args) {
      try {
        const file = await appendMemory(paths(), args.scope, args.fact);
        return `Remembered in ${args.scope} memory (${file}).`;
      } catch (err) {
        throw new ToolError(`Could not remember that: ${(err as Error).message}.`);
      }
    },
  });
}

function oneLine(fact: string): string {
  const flat = fact.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}
