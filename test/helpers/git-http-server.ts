import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { workerHostAddress } from './network';
import { tempDir } from './temp-dir';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });

/**
 * A git repository served over dumb HTTP on the workers' host address (the `nexus` bridge gateway:
 * reachable from workers on the bridge and on `host`, and from the host itself) that demands `token` as the basic-auth
 * password (unless `token` is null: a public repository), so a clone succeeds only if the credential
 * reached git.
 */
export async function serveGitRepo(
  token: string | null,
  opts: { delayMs?: number } = {},
): Promise<{
  url: string;
  host: string;
  authorizedRequests: () => number;
  rejectedRequests: () => number;
  commit(file: string, content: string): string;
  close(): Promise<void>;
}> {
  const dir = tempDir('nexus-git-');
  const bare = join(dir.path, 'repo.git');
  const work = join(dir.path, 'work');
  git(dir.path, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  git(dir.path, 'init', '--quiet', '--initial-branch=main', work);
  const commit = (file: string, content: string): string => {
    execFileSync('sh', ['-c', `printf '%s' "$1" > "$2"`, 'sh', content, join(work, file)]);
    git(work, 'add', file);
    git(work, 'commit', '--quiet', '-m', `update ${file}`);
    git(work, 'push', '--quiet', bare, 'main');
    git(bare, 'update-server-info');
    return git(work, 'rev-parse', 'HEAD').trim();
  };
  commit('README.md', '# served over HTTP for a test\n');
  let authorized = 0;
  let rejected = 0;
  const expected = token === null ? null : `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    if (opts.delayMs) setTimeout(() => handle(req, res), opts.delayMs);
    else handle(req, res);
  });
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (expected && req.headers.authorization !== expected) {
      rejected++;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    authorized++;
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/')).replace(/^\/+/, '');
    const file = join(dir.path, path);
    if (!file.startsWith(bare) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    createReadStream(file).pipe(res);
  };
  const address = await workerHostAddress();
  await new Promise<void>((r) => server.listen(0, address, r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}/repo.git`,
    host: `${address}:${port}`,
    authorizedRequests: () => authorized,
    rejectedRequests: () => rejected,
    commit,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      dir.remove();
    },
  };
}
