'use strict';
// The built addon, or null when it is not there (not built, or a platform without splice): callers fall back.
let addon = null;
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a native addon loads by require alone
  const loaded = require('./build/Release/nexus_splice.node');
  if (typeof loaded.move === 'function') addon = loaded;
} catch {
  addon = null;
}
module.exports = addon;
