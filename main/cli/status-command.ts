import { parseArgs } from 'node:util';
import type { AppInfo, FleetSummary } from '../../shared/contract';
import { needsYouLine, whatNeedsYou } from '../../shared/needs-you';
import { readServeFile, runningAppCall } from './running-app';

export const STATUS_USAGE = `  nexus status [--data-dir DIR] [--login]   the running app's URL, vault state and what needs you
                                            (--login: the sign-in URL with its token); exit 3 when not running`;

/** Exit code when nothing runs on the data dir (as `systemctl status` does for an inactive unit). */
export const NOT_RUNNING = 3;

const since = (iso: string | null): string => (iso ? ` (since ${iso.replace('T', ' ').slice(0, 16)} UTC)` : '');

const uptime = (s: number): string =>
  s < 120
    ? `${s} s`
    : s < 7200
      ? `${Math.floor(s / 60)} min`
      : `${Math.floor(s / 3600)} h ${Math.floor(s / 60) % 60} min`;

/** What needs the operator, one line each, in the order every surface lists it (shared/needs-you.ts). */
export function needsOperator(info: AppInfo, summary: FleetSummary): string[] {
  return whatNeedsYou({ app: info, fleet: summary, review: summary.review }).map((item) =>
    needsYouLine(item, (s) => `${s.workspaceName}/${s.sessionName}: ${s.reason}${since(s.since)}`),
  );
}

export async function statusCommand(
  args: string[],
  deps: { defaultDataDir: string; out: NodeJS.WritableStream },
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, login: { type: 'boolean' } },
    strict: true,
  });
  const dataDir = values['data-dir'] ?? deps.defaultDataDir;
  const say = (text: string): void => void deps.out.write(`${text}\n`);
  const serveFile = readServeFile(dataDir);
  const info = serveFile ? await runningAppCall(serveFile, 'app.info', {}) : null;
  if (!serveFile || !info) {
    say(
      serveFile
        ? `Nexus is not running: nothing answers at ${serveFile.url} (${dataDir}/serve.json is left from an earlier run).`
        : `Nexus is not running on ${dataDir} (no serve.json there).`,
    );
    say('Start it with `nexus serve`, or `systemctl --user start nexus` where it is installed as a service.');
    return NOT_RUNNING;
  }
  const summary = await runningAppCall(serveFile, 'attention.summary', {});
  const app = info.result;
  say(
    `Nexus ${app.version} is running (pid ${serveFile.pid}, up ${uptime(app.uptimeSeconds)}), data in ${app.dataDir}.`,
  );
  say(`  URL:    ${serveFile.url}/`);
  if (values.login) say(`  Sign in: ${serveFile.url}/?token=${serveFile.token}`);
  say(`  Vault:  ${app.vault.state} — ${app.vault.reason}`);
  say(`  Docker: ${app.docker.state}; NATS: ${app.nats.state}`);
  const needs = summary ? needsOperator(app, summary.result) : ['(the fleet summary did not answer)'];
  if (needs.length === 0) say('Nothing needs you.');
  else {
    say('Needs you:');
    for (const line of needs) say(`  - ${line}`);
  }
  return 0;
}
