import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { createResidentServer } from './resident-server';

/**
 * `nexus-mcp --serve <port> <stateRoot> <readyFile>`: the resident server (resident-server.ts),
 * started by its loop (main/core/sessions/launch/resident-mcp.ts). It listens on 127.0.0.1 only, then
 * writes its pid to the ready file.
 */
const Args = z.tuple([
  z.literal('--serve'),
  z.coerce.number().int().min(1024).max(65535),
  z.string().startsWith('/'),
  z.string().startsWith('/'),
]);

export function serveResident(argv: string[]): void {
  const args = Args.safeParse(argv);
  if (!args.success) {
    process.stderr.write('usage: nexus-mcp --serve <port> <stateRoot> <readyFile>\n');
    process.exit(2);
  }
  const [, port, stateRoot, readyFile] = args.data;
  const { server, close } = createResidentServer({ port, stateRoot });
  server.once('error', (e) => {
    process.stderr.write(`nexus-mcp resident: ${e.message}\n`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => writeFileSync(readyFile, String(process.pid)));
  process.on('SIGTERM', () => void close().finally(() => process.exit(0)));
}
