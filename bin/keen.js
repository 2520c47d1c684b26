#!/usr/bin/env node
// The executable: runs the bundled CLI that `npm run build` writes to dist/ (dist/main.js compiles
// dist/app.cjs with V8's code cache from the last run; src/launch/launch.ts).
import('../dist/main.js')
  .then((launcher) => launcher.launch())
  .catch((err) => {
    const missing = err && (err.code === 'ERR_MODULE_NOT_FOUND' || err.code === 'ENOENT') && /dist[\\/](main\.js|app\.cjs)/.test(String(err.message));
    process.stderr.write(missing ? 'keen: the CLI is not built; run `npm run build` in the keen checkout\n' : `keen: ${err && err.message ? err.message : err}\n`);
    process.exit(1);
  });
