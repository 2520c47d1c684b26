#!/usr/bin/env node
// The executable: loads the bundled CLI (npm run build writes dist/).
// Node >= 22.1 keeps V8's compiled code of dist/ between runs (the launch path's largest cost is
// compiling the bundle); on Node 20 there is no such API and this does nothing.
import module from 'node:module';

try {
  module.enableCompileCache?.();
} catch {
  // a cache directory that cannot be written only costs speed
}
import('../dist/main.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/main.js')) {
    process.stderr.write('keen: the CLI is not built; run `npm run build` in the keen checkout\n');
  } else {
    process.stderr.write(`keen: ${err && err.message ? err.message : err}\n`);
  }
  process.exit(1);
});
