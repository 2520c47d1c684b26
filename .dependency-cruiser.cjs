/**
 * Import boundaries of src/, checked by `npm run check` (part of `npm test`). Every folder has a
 * layer; a lower layer never imports a higher one, and nothing imports in a circle.
 *
 *   6  cli, repl, acp       the front ends: headless, terminal, editors (siblings, but cli
 *                           dispatches to the other two)
 *   5  agent                the live session and its wiring; the UI uses only its surface files
 *   4  tools, project, providers, compaction, loop, undo, hooks   the engine
 *      export              the session page (records → HTML), beside the engine
 *   3  config, transcript, auth                            foundations
 *   2  tokens, net          token estimation and budgets; HTTP for providers, tools and auth
 *   1  core, security, errors.ts, version.ts               the vocabulary and the leaf guards
 *   -  launch               the launcher, an entry point of its own
 */
const under = (...dirs) => `^src/(${dirs.join('|')})/`;
const LEAVES = ['^src/errors\\.ts$', '^src/version\\.ts$'];
/** The files of agent/ the front ends may import; the rest is its private wiring. */
const AGENT_SURFACE = ['flags', 'open-session', 'session-controller', 'context-report'];

const layer = (name, from, allowed, comment, pathNot = []) => ({
  name,
  severity: 'error',
  comment,
  from: { path: under(...from) },
  to: { path: '^src/', pathNot: [under(...from, ...allowed), ...LEAVES, ...pathNot] },
});

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Import cycles make load order and layering fragile.', from: {}, to: { circular: true } },
    layer('core-is-the-bottom', ['core'], [], 'core is the shared vocabulary of messages, events and providers: it imports nothing of Keen.'),
    layer('security-leaves', ['security'], [], 'The sanitiser, the child environment and the owner check are leaves everything may use.'),
    layer('tokens-and-net-stay-low', ['tokens', 'net'], ['core', 'security'], 'Token budgets and HTTP know messages and errors, nothing of sessions or tools.'),
    layer(
      'foundations-stay-low',
      ['config', 'transcript', 'auth'],
      ['core', 'security', 'tokens', 'net'],
      'config, the transcript store and auth never reach into the engine or the UI.',
      // The one allowed reach: config checks permission-rule syntax with the rule parser when a
      // file loads, so a bad rule is one error naming the file and field (pure, no I/O).
      ['^src/tools/permissions/(rules|tool-names)\\.ts$'],
    ),
    layer(
      'engine-below-agent',
      ['tools', 'project', 'providers', 'compaction', 'loop', 'undo', 'hooks', 'export'],
      ['core', 'security', 'tokens', 'net', 'config', 'transcript', 'auth'],
      'The engine never imports the agent wiring or a front end.',
    ),
    layer(
      'agent-below-ui',
      ['agent'],
      ['core', 'security', 'tokens', 'net', 'config', 'transcript', 'auth', 'tools', 'project', 'providers', 'compaction', 'loop', 'undo', 'hooks'],
      'agent serves both the REPL and the headless CLI; it imports neither.',
    ),
    {
      name: 'ui-through-agent-surface',
      severity: 'error',
      comment: 'The front ends open and drive sessions through the agent surface files only.',
      from: { path: under('cli', 'repl', 'acp') },
      to: { path: '^src/agent/', pathNot: `^src/agent/(${AGENT_SURFACE.join('|')})\\.ts$` },
    },
    {
      name: 'repl-not-cli',
      severity: 'error',
      comment: 'The REPL and the headless CLI are siblings; shared option types live below them.',
      from: { path: '^src/repl/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'acp-is-a-front-end',
      severity: 'error',
      comment: 'The ACP agent drives sessions as the REPL does, through agent/; it imports neither the CLI nor the REPL.',
      from: { path: '^src/acp/' },
      to: { path: under('cli', 'repl') },
    },
    {
      name: 'launcher-stands-alone',
      severity: 'error',
      comment: 'src/launch runs before the compile cache can help anything: it imports only itself and the version.',
      from: { path: '^src/launch/' },
      to: { path: '^src/', pathNot: ['^src/launch/', '^src/version\\.ts$'] },
    },
    {
      name: 'nothing-imports-the-launcher',
      severity: 'error',
      comment: 'The launcher is an entry point of its own (dist/main.js); the CLI never imports it.',
      from: { path: '^src/', pathNot: '^src/launch/' },
      to: { path: '^src/launch/' },
    },
    {
      name: 'every-file-has-a-layer',
      severity: 'error',
      comment: 'A new folder gets its layer here before anything imports it.',
      from: { path: '^src/' },
      to: {
        path: '^src/',
        pathNot: [
          under('core', 'security', 'tokens', 'net', 'config', 'transcript', 'auth', 'tools', 'project', 'providers', 'compaction', 'loop', 'undo', 'hooks', 'export', 'agent', 'cli', 'repl', 'acp', 'launch'),
          ...LEAVES,
        ],
      },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
