/**
 * Import boundaries of src/, checked by `npm run check` (part of `npm test`).
 * Layers, lowest first: llm/core (the shared vocabulary) → config, session, auth → tools,
 * llm (providers, prompts, compaction, loop), context → app-state → cli, repl.
 * A lower layer never imports a higher one, and nothing imports in a circle.
 */
const upper = (...dirs) => `^src/(${dirs.join('|')})/`;
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Import cycles make load order and layering fragile.', from: {}, to: { circular: true } },
    {
      name: 'core-is-the-bottom',
      severity: 'error',
      comment: 'llm/core is the shared vocabulary: it imports nothing of Keen but itself and the leaf helpers.',
      from: { path: '^src/llm/core/' },
      to: { path: '^src/', pathNot: ['^src/llm/core/', '^src/errors\\.ts$', '^src/version\\.ts$'] },
    },
    {
      name: 'foundations-stay-low',
      severity: 'error',
      comment: 'config, session and auth are foundations: they never reach into tools, providers, the loop or the UI.',
      from: { path: '^src/(config|session|auth)/' },
      to: {
        path: [upper('tools', 'app-state', 'cli', 'repl', 'context'), '^src/llm/(providers|prompts|compaction)/', '^src/llm/loop\\.ts$'],
        // The one allowed reach: config checks permission-rule syntax with the rule parser when a
        // file loads, so a bad rule is one error naming the file and field (pure, no I/O).
        pathNot: ['^src/tools/permissions/rules\\.ts$'],
      },
    },
    {
      name: 'engine-below-app',
      severity: 'error',
      comment: 'tools and llm never import the app layers above them.',
      from: { path: '^src/(tools|llm|context)/' },
      to: { path: upper('app-state', 'cli', 'repl') },
    },
    {
      name: 'app-state-below-ui',
      severity: 'error',
      comment: 'app-state serves both the REPL and the headless CLI; it imports neither.',
      from: { path: '^src/app-state/' },
      to: { path: upper('cli', 'repl') },
    },
    {
      name: 'repl-not-cli',
      severity: 'error',
      comment: 'The REPL and the headless CLI are siblings; shared option types live below them.',
      from: { path: '^src/repl/' },
      to: { path: '^src/cli/' },
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
