import type { Plugin } from 'esbuild';

/** The esbuild plugins that leave Ajv and zod's translated locales out of nexus-mcp's bundle. */
export declare const nexusMcpPlugins: Plugin[];
