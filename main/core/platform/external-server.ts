/**
 * Why platform tools do not run on a configured external server: it gives Nexus no per-run users,
 * so any worker could call tools as any run and publish hook events as any workspace. The URL is
 * shown without any user or password in it.
 */
export function externalRefusal(url: string): string {
  let where = 'the configured server';
  try {
    where = new URL(url.replace(/^(nats|tls):/, 'http:')).host || where;
  } catch {
    // keep the generic name
  }
  return (
    `Platform tools are off: the external NATS server (${where}, nats.url / NEXUS_NATS_URL) gives no per-run ` +
    'identity, so any worker could act as any run. Unset it to use the managed nats-server.'
  );
}
