// Nexus on the phone (issue 28): the service worker of the operator UI on the public origin. It
// makes the app installable; it caches nothing (the phone shows live state, never a stale copy).
// Push notifications are not built yet (docs/remote.md, "From the phone").
/* global self */

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', () => undefined);
