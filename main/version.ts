declare const __NEXUS_VERSION__: string | undefined;

/** Injected by the build (scripts/build-main.mjs); falls back for tests run from source. */
export const version: string = typeof __NEXUS_VERSION__ === 'string' ? __NEXUS_VERSION__ : '0.0.0-dev';
