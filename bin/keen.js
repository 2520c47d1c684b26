#!/usr/bin/env node
// The executable: loads the bundled CLI (npm run build writes dist/).
import('../dist/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/main.js')) {
    process.stderr.write('keen: the CLI is not built; run `npm run build` in the keen checkout\n');
  } else {
    process.stderr.write(`keen: ${err && err.message ? err.message : err}\n`);
  }
  process.exit(1);
});
