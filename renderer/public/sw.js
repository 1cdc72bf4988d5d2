// Nexus on the phone (issue 28): the service worker of the operator UI on the public origin. It
// makes the app installable and shows Nexus's push notifications; a permission notification's
// Allow / Deny post the decision through the signed-in session (its cookie and CSRF token). It
// caches nothing: the phone shows live state, never a stale copy.
/* global self */

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', () => undefined);

self.addEventListener('push', (event) => {
  let data;
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { title: 'Nexus', body: 'Something needs you.' };
  }
  const actions =
    data.kind === 'permission' && data.requestId
      ? [
          { action: 'allow', title: 'Allow' },
          { action: 'deny', title: 'Deny' },
        ]
      : [];
  event.waitUntil(
    self.registration.showNotification(data.title || 'Nexus', {
      body: data.body || '',
      tag: data.sessionId ? `session:${data.sessionId}` : 'nexus',
      data,
      actions,
    }),
  );
});

/** Posts the decision of a notification's action; what happened, in words ("Already decided." for a stale one). */
async function decideFromNotification(data, action) {
  const session = await (await fetch('/api/phone/session', { credentials: 'same-origin' })).json();
  if (!session.signedIn) return 'Sign in on the phone to decide.';
  const res = await fetch('/api/rpc/permissions.decide', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-nexus-csrf': session.csrf },
    body: JSON.stringify({ id: data.requestId, behavior: action === 'allow' ? 'allow' : 'deny' }),
  });
  if (res.ok) return action === 'allow' ? 'Allowed.' : 'Denied.';
  if (res.status === 404) return 'Already decided.';
  return `Not decided (HTTP ${res.status}).`;
}

self.addEventListener('notificationclick', (event) => {
  const data = event.notification.data || {};
  event.notification.close();
  if ((event.action === 'allow' || event.action === 'deny') && data.requestId) {
    event.waitUntil(
      decideFromNotification(data, event.action).then((outcome) =>
        self.registration.showNotification('Nexus', {
          body: `${data.toolName || 'Request'}: ${outcome}`,
          tag: `decided:${data.requestId}`,
        }),
      ),
    );
    return;
  }
  const url = data.sessionId ? `/#/sessions/${encodeURIComponent(data.sessionId)}` : '/#/overview';
  event.waitUntil(self.clients.openWindow(url));
});

// The same action path, asked by the page (`{ type: 'decide', data, action }`): the e2e drives it this
// way, as headless Chromium cannot click a notification's action.
self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'decide' && event.ports[0]) {
    const port = event.ports[0];
    event.waitUntil(
      decideFromNotification(event.data.data, event.data.action).then((outcome) => port.postMessage(outcome)),
    );
  }
});
