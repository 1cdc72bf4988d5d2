import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A real Redmine (Debian's package, SQLite, webrick) on loopback for one test file: a copy of the template
 * scripts/redmine.sh builds once, its own instance directory and port. `stop` and `start` take it down and bring
 * it back on the same port and database (an outage); `dispose` removes everything.
 */
export interface RedmineServer {
  url: string;
  apiKey: string;
  /** The project the tests file issues in (identifier). */
  project: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** A REST call as admin; the parsed JSON body (null for an empty one). */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** A new issue in the project; its id. */
  issue(subject: string, description?: string): Promise<number>;
  /** The issue's journals (comments and changes), oldest first. */
  journals(id: number): Promise<RedmineJournal[]>;
  dispose(): Promise<void>;
}

export interface RedmineJournal {
  id: number;
  notes: string;
  user: { id: number; name: string };
  details: { property: string; name: string; old_value: string | null; new_value: string | null }[];
}

export async function startRedmine(project = 'nexus'): Promise<RedmineServer> {
  const template = execFileSync('bash', [join(repoRoot, 'scripts/redmine.sh'), 'template'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'nexus-redmine-'));
  for (const d of ['config', 'log', 'tmp', 'files']) mkdirSync(join(dir, d));
  writeFileSync(join(dir, 'config/database.yml'), `production:\n  adapter: sqlite3\n  database: ${dir}/redmine.db\n`);
  copyFileSync(join(template, 'secret_key.txt'), join(dir, 'config/secret_key.txt'));
  copyFileSync(join(template, 'redmine.db'), join(dir, 'redmine.db'));
  const apiKey = readFileSync(join(template, 'api-key'), 'utf8').trim();
  // Redmine finds an instance only under /var/lib/redmine/<name> (lib/redmine/multi_tenancy.rb).
  const tenant = `nexus-${basename(dir)}`;
  const link = join('/var/lib/redmine', tenant);
  symlinkSync(dir, link);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let output = '';

  const api = async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-redmine-api-key': apiKey, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  };

  const start = async (): Promise<void> => {
    output = '';
    const c = spawn('rackup', ['-r', 'webrick', '-E', 'production', '-o', '127.0.0.1', '-p', String(port)], {
      cwd: '/usr/share/redmine',
      env: { ...process.env, REDMINE_INSTANCE: tenant },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = c;
    c.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
    c.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
    // Boot takes 4-5 s idle, up to 12 s under load (docs/tracker.md).
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (c.exitCode !== null) throw new Error(`redmine exited (${c.exitCode}): ${output}`);
      if (Date.now() > deadline) throw new Error(`redmine did not answer: ${output}`);
      const ok = await fetch(`${url}/issue_statuses.json`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  const stop = async (): Promise<void> => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGTERM');
    const hard = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(hard);
  };

  await start();
  const made = await api('POST', '/projects.json', {
    project: { name: project, identifier: project, is_public: true },
  });
  if (made.status !== 201) throw new Error(`creating the project answered ${made.status}`);

  return {
    url,
    apiKey,
    project,
    start,
    stop,
    api,
    issue: async (subject, description = '') => {
      const r = await api<{ issue: { id: number } }>('POST', '/issues.json', {
        issue: { project_id: project, subject, description, tracker_id: 1, priority_id: 2 },
      });
      if (r.status !== 201) throw new Error(`creating an issue answered ${r.status}`);
      return r.body.issue.id;
    },
    journals: async (id) => {
      const r = await api<{ issue: { journals: RedmineJournal[] } }>('GET', `/issues/${id}.json?include=journals`);
      return r.body.issue.journals;
    },
    dispose: async () => {
      await stop();
      rmSync(link, { force: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
