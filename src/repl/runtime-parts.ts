/**
 * What the REPL runtime needs once a session is open: the permission gate (and with it the rule
 * engine and its glob matcher), input dispatch and the slash commands behind it, turns, the
 * session's replay, project commands. Loaded with the first session (runtime.ts, `start`), in
 * parallel with the session's own modules, so none of it is on the way to the first prompt that
 * takes keys.
 */
export { projectSlashCommands } from './context-commands.js';
export { dispatchInput } from './input-dispatch.js';
export { ReplGate } from './repl-gate.js';
export { showSession } from './session-view.js';
export { runTurn, TEXT_BATCH_MS } from './turn-runner.js';
