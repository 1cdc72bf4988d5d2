/**
 * Whether this page is the operator UI on the public origin (docs/remote.md). The local UI is only ever
 * served on http://127.0.0.1 (or app:// inside Electron); the public origin is always https.
 */
export const isPhoneOrigin = (): boolean => window.location.protocol === 'https:' && window.nexus === undefined;
