import * as z from 'zod';
import { appendMemory, type MemoryPaths } from '../context/memory.js';
import { defineTool, ToolError, type Tool } from './registry.js';

const schema = z.object({
  fact: z.string().describe('The fact or preference to keep, as one short line.'),
  scope: z.enum(['project', 'user']).default('project').describe('"project": this repository (.keen/memory.md); "user": every project ($KEEN_HOME/memory.md).'),
});

/**
 * `remember`: appends one bullet to a memory file. Not a mutating tool: it writes only Keen's
 * own memory files (never a path the model names), so it does not ask, and plan mode allows it.
 */
export function createRememberTool(paths: () => MemoryPaths): Tool {
  return defineTool({
    name: 'remember',
    description:
      'Save a lasting fact or user preference to memory; it appears in the system prompt of every later session. Use it when the user asks you to remember something or states a durable preference. One line per fact.',
    schema,
    mutating: false,
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
