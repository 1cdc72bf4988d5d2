import { createServer, type AddressInfo } from 'node:net';

/** A TCP port free on `host` a moment ago (bound to 0 and let go): for a server the test starts itself. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, host, () => resolve());
  });
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}
