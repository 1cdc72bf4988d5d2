import { execFileSync, spawn } from 'node:child_process';
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
 * reached git. Pushes go through smart HTTP (`git http-backend` as CGI), behind the same check.
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
  /** The commit a branch of the served repository points at, or null when it has none. */
  branchHead(branch: string): string | null;
  /** A commit made on `branch` of the served repository (from main), as another person's push would. */
  commitOn(branch: string, file: string, content: string): string;
  close(): Promise<void>;
}> {
  const dir = tempDir('nexus-git-');
  const bare = join(dir.path, 'repo.git');
  const work = join(dir.path, 'work');
  git(dir.path, 'init', '--quiet', '--bare', '--initial-branch=main', bare);
  git(dir.path, 'init', '--quiet', '--initial-branch=main', work);
  // Pushes are received over smart HTTP and keep the dumb-HTTP view (info/refs) current.
  git(bare, 'config', 'http.receivepack', 'true');
  git(bare, 'config', 'receive.updateServerInfo', 'true');
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
    if (/[?&]service=git-receive-pack\b/.test(req.url ?? '') || /\/git-receive-pack$/.test(req.url ?? '')) {
      httpBackend(dir.path, req, res);
      return;
    }
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
    branchHead: (branch) => {
      try {
        return git(bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`).trim();
      } catch {
        return null;
      }
    },
    commitOn: (branch, file, content) => {
      git(work, 'checkout', '--quiet', '-B', branch, 'main');
      try {
        execFileSync('sh', ['-c', `printf '%s' "$1" > "$2"`, 'sh', content, join(work, file)]);
        git(work, 'add', file);
        git(work, 'commit', '--quiet', '-m', `update ${file} on ${branch}`);
        git(work, 'push', '--quiet', '--force', bare, branch);
        git(bare, 'update-server-info');
        return git(work, 'rev-parse', 'HEAD').trim();
      } finally {
        git(work, 'checkout', '--quiet', 'main');
      }
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      dir.remove();
    },
  };
}

/** `git http-backend` as a CGI program: the request body on stdin, CGI headers then the body on stdout. */
function httpBackend(root: string, req: IncomingMessage, res: ServerResponse): void {
  const [pathInfo = '/', query = ''] = (req.url ?? '/').split('?');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    REMOTE_USER: 'x-access-token',
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(pathInfo),
    QUERY_STRING: query,
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t',
  };
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
  if (req.headers['git-protocol']) env.GIT_PROTOCOL = String(req.headers['git-protocol']);
  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let started = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (started) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    started = true;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]) || 200;
      else if (name) headers[name] = value;
    }
    res.writeHead(status, headers);
    res.write(head.subarray(end + 4));
  });
  child.on('close', () => {
    if (!started) res.writeHead(500);
    res.end();
  });
}
