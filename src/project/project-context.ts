import { monotonicMs } from './clock.js';
import { commandDirs, discoverCommands, type CustomCommand } from './custom-commands.js';
import { findInstructions, type InstructionFile } from './instructions.js';
import { memoryPaths, readMemory, type MemoryFile, type MemoryPaths } from './memory.js';
import { walkProject } from './repo-root.js';
import { discoverSkills, skillDirs, type Skill } from './skills.js';
import { agentDirs, discoverAgents, type AgentDefinition } from './subagents.js';

/** Everything the system prompt carries besides the environment: read fresh for every turn. */
export interface ProjectContext {
  instructions: InstructionFile[];
  memory: MemoryFile[];
  memoryPaths: MemoryPaths;
  skills: Skill[];
  commands: CustomCommand[];
  agents: AgentDefinition[];
  /**
   * One line each: files skipped because their front matter is malformed, because they lead out
   * of their place (a symlink out of the project) or because they are another account's.
   */
  warnings: string[];
}

export interface ContextLocation {
  cwd: string;
  /** KEEN_HOME. */
  home: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Reads instructions, memory, skills, custom commands and subagent definitions. Repository files
 * are data: nothing here runs code or grants a permission; bodies only ever become text for the
 * model. Never throws for a bad file (it becomes a warning).
 */
export function loadProjectContext(at: ContextLocation): ProjectContext {
  // One walk up from the cwd serves every kind of file.
  const walk = walkProject(at.cwd);
  const paths = memoryPaths(walk, at.home);
  const skills = discoverSkills(skillDirs(walk, at.home, at.env));
  const commands = discoverCommands(commandDirs(walk, at.home));
  const agents = discoverAgents(agentDirs(walk, at.home));
  const warnings: string[] = [];
  if (walk.cwdProblem) warnings.push(`not reading project files in ${walk.root}: the folder is ${walk.cwdProblem}`);
  const instructions = findInstructions(walk, at.home, warnings);
  const memory = readMemory(paths, warnings);
  return {
    instructions,
    memory,
    memoryPaths: paths,
    skills: skills.skills,
    commands: commands.commands,
    agents: agents.agents,
    warnings: [...new Set([...warnings, ...skills.warnings, ...commands.warnings, ...agents.warnings])],
  };
}

/**
 * A read of the project context that no turn has used yet, and that is younger than this, is the
 * next turn's (the first turn of `keen run` uses the one its session open made); every later read
 * goes to disk, as files may have changed since.
 */
export const CONTEXT_FRESH_MS = 1000;

/** A session's project context: read when it opens, fresh for every turn after. */
export interface ProjectContextSource {
  /** The newest read (what the tools of the turn in progress see). */
  current(): ProjectContext;
  /** A fresh read — or the session open's, when no one has asked yet and it is under CONTEXT_FRESH_MS old. */
  load(): ProjectContext;
}

/**
 * Reads the context now (its warnings are the caller's to show once) and serves later reads.
 * `reuseFirst`: the first turn's input was known before this read (a one-shot `keen run`), so
 * that turn may use it; a REPL or a stream-json driver may change files between the open and its
 * first message, and gets a fresh read.
 */
export function projectContextSource(at: ContextLocation, { reuseFirst = false, now = monotonicMs }: { reuseFirst?: boolean; now?: () => number } = {}): ProjectContextSource {
  let context = loadProjectContext(at);
  let unused: number | undefined = reuseFirst ? now() : undefined;
  return {
    current: () => context,
    load: () => {
      const fresh = unused !== undefined && now() - unused < CONTEXT_FRESH_MS;
      unused = undefined;
      if (!fresh) context = loadProjectContext(at);
      return context;
    },
  };
}
