// What scripts/build-main.mjs (and the bundle's own test) leave out of dist/worker/nexus-mcp.cjs.
import { fileURLToPath } from 'node:url';

/** The checkout's root: zod is resolved from its node_modules whatever the current directory. */
const root = fileURLToPath(new URL('..', import.meta.url));

// nexus-mcp starts once per session, so what it loads is CPU every session pays (docs/performance.md,
// "Nexus's own CPU per session start"). Two things it never uses are left out of its bundle:
//  - Ajv (with ajv-formats and fast-uri, 270 KB): the SDK's server builds one at start for
//    elicitation schemas, and nexus-mcp never elicits; the stand-in refuses if that ever changes;
//  - zod's 40 translated error locales (360 KB): zod's English messages are the only ones used.
const leaveOut = (name, filter, importer, contents) => ({
  name,
  setup(b) {
    b.onResolve({ filter }, (a) => (importer.test(a.importer) ? { path: a.path, namespace: name } : undefined));
    b.onLoad({ filter: /.*/, namespace: name }, () => ({ contents, loader: 'js', resolveDir: root }));
  },
});
// nexus-mcp starts from a V8 startup snapshot of this bundle (resources/worker/nexus-mcp/main.ts), and
// Node 24 cannot snapshot node:tls once loaded ("Unknown external reference"): the NATS client loads it
// at start for TLS connections, which a worker never opens, so it is loaded on first use instead.
const tlsOnFirstUse = {
  name: 'tls-on-first-use',
  setup(b) {
    b.onResolve({ filter: /^(node:)?tls$/ }, (a) =>
      /@nats-io[\\/]transport-node[\\/]/.test(a.importer) ? { path: 'tls', namespace: 'tls-on-first-use' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'tls-on-first-use' }, () => ({
      contents:
        'let tls; const load = () => (tls ??= require("node:tls"));\n' +
        'module.exports = { connect: (...a) => load().connect(...a), get TLSSocket() { return load().TLSSocket; } };',
      loader: 'js',
      resolveDir: root,
    }));
  },
};
export const nexusMcpPlugins = [
  tlsOnFirstUse,
  leaveOut(
    'no-ajv',
    /validation\/ajv-provider\.js$/,
    /@modelcontextprotocol[\\/]sdk[\\/]/,
    'export class AjvJsonSchemaValidator { getValidator() { throw new Error("nexus-mcp validates no JSON Schema (it never elicits)"); } }',
  ),
  leaveOut(
    'zod-english-only',
    /locales\/index\.js$/,
    /zod[\\/]v4[\\/](classic|core)[\\/]/,
    'export { default as en } from "zod/v4/locales/en.js";',
  ),
];
