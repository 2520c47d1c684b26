import { expandCommand } from './custom-commands.js';
import type { ProjectContext } from './project-context.js';
import { loadSkill, skillText } from './skills.js';

export type SlashExpansion =
  | { kind: 'command'; name: string; text: string }
  | { kind: 'skill'; name: string; text: string }
  /** Not a custom command or skill: the caller decides (a message, or "unknown command"). */
  | { kind: 'none' };

const SLASH = /^\/([A-Za-z0-9][\w.-]*)(?:\s+([\s\S]*))?$/;

/**
 * `/<name> args` for a custom command (its body with the arguments filled in) or a skill (a turn
 * that loads the skill with the arguments). Custom commands win over skills of the same name;
 * built-in REPL commands are matched before this is asked. The result is text for the model
 * only: a command or skill body never runs anything by itself.
 */
export function expandSlash(input: string, ctx: Pick<ProjectContext, 'commands' | 'skills'>): SlashExpansion {
  const m = SLASH.exec(input.trim());
  if (!m) return { kind: 'none' };
  const name = m[1];
  const args = (m[2] ?? '').trim();
  const command = ctx.commands.find((c) => c.name === name) ?? ctx.commands.find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (command) return { kind: 'command', name: command.name, text: expandCommand(command.body, args) };
  const skill = ctx.skills.find((s) => s.name === name) ?? ctx.skills.find((s) => s.name.toLowerCase() === name.toLowerCase());
  if (skill) {
    const loaded = loadSkill(skill);
    return { kind: 'skill', name: skill.name, text: `The user invoked the skill "${skill.name}". Follow its instructions.\n\n${skillText(loaded, args)}` };
  }
  return { kind: 'none' };
}

/** Whether `input` has the shape of `/<name> args` (only such input can expand; nothing is read to tell). */
export function looksLikeSlash(input: string): boolean {
  return SLASH.test(input.trim());
}
