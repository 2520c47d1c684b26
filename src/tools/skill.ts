import * as z from 'zod';
import { once } from '../core/lazy.js';
import { loadSkill, skillText, type Skill } from '../project/skills.js';
import { defineTool, ToolError, type Tool } from './registry.js';

const schema = once(() =>
  z.object({
    name: z.string().describe('The skill name, as listed under Skills in the system prompt.'),
  }),
);

/** `skill`: returns a skill's full instructions, its folder and the folder's files. */
export function createSkillTool(skills: () => Skill[]): Tool {
  return defineTool({
    name: 'skill',
    description: 'Load a skill listed in the system prompt: returns its full instructions, its folder and the files in that folder.',
    schema,
    mutating: false,
    async run(args) {
      const all = skills();
      const skill = all.find((s) => s.name === args.name) ?? all.find((s) => s.name.toLowerCase() === args.name.toLowerCase());
      if (!skill) {
        const known = all.map((s) => s.name).join(', ') || 'none';
        throw new ToolError(`Unknown skill "${args.name}". Available skills: ${known}.`);
      }
      try {
        return skillText(loadSkill(skill));
      } catch (err) {
        throw new ToolError((err as Error).message);
      }
    },
  });
}
