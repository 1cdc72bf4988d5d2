import type { Argv } from 'yargs';
import { deriveAttention, type SessionAttention } from '../../shared/attention';
import { levelWords } from '../../shared/attention-words';
import type { PermissionRequest, Session, SessionUsage, Workspace } from '../../shared/contract';
import { needsYouLine, whatNeedsYou, type NeedsYouItem } from '../../shared/needs-you';
import { estimateShort, tokensShort } from '../../shared/usage-words';
import { dataDirOf, type CliContext } from './cli-context';
import { connectedApp } from './running-app';

/**
 * `nexus ls --json`: what needs you (the app's state, sessions, the review queue: shared/needs-you.ts),
 * each workspace with its sessions and their attention, then the open permission requests.
 */
export interface FleetListing {
  needsYou: NeedsYouItem[];
  workspaces: (Workspace & {
    /** Each session with its model use (tokens and an estimate in USD; null before its first model answer). */
    sessions: (Session & { ref: string; attention: SessionAttention; usage: Omit<SessionUsage, 'sessionId'> | null })[];
  })[];
  permissionRequests: (PermissionRequest & { session: string })[];
}

/** The fleet as the UI shows it: workspaces.list, sessions.list, the attention roll-up and permissions.list. */
export async function fleetListing(dataDir: string): Promise<FleetListing> {
  const app = await connectedApp(dataDir);
  const [info, { workspaces }, { sessions }, attention, { requests }, usage] = await Promise.all([
    app.call('app.info', {}),
    app.call('workspaces.list', {}),
    app.call('sessions.list', {}),
    app.call('attention.get', {}),
    app.call('permissions.list', {}),
    app.call('usage.sessions', {}),
  ]);
  const usageOf = new Map(usage.sessions.map(({ sessionId, ...u }) => [sessionId, u]));
  const needsYou = whatNeedsYou({ app: info, fleet: attention, requests, review: attention.review });
  // A pending request makes its session need you even before the roll-up has seen the hook.
  const attentionOf = new Map(attention.sessions.map((a) => [a.sessionId, a]));
  for (const item of needsYou) if (item.kind === 'session') attentionOf.set(item.session.sessionId, item.session);
  const refOf = new Map(sessions.map((s) => [s.id, `${s.workspaceName}/${s.name}`]));
  return {
    needsYou,
    workspaces: workspaces.map((w) => ({
      ...w,
      sessions: sessions
        .filter((s) => s.workspaceId === w.id)
        .map((s) => ({
          ...s,
          ref: `${w.name}/${s.name}`,
          usage: usageOf.get(s.id) ?? null,
          // The roll-up is a cache that may lag a session just made; the same derivation then answers.
          attention:
            attentionOf.get(s.id) ??
            deriveAttention({
              session: s,
              health: { agentState: s.agentState, at: s.agentStateAt, message: s.agentMessage },
              workspaceRunning: w.status === 'running',
            }),
        })),
    })),
    permissionRequests: requests.map((r) => ({ ...r, session: refOf.get(r.sessionId) ?? r.sessionId })),
  };
}

const when = (iso: string | null): string => (iso ? `${iso.replace('T', ' ').slice(0, 16)} UTC` : '');
const since = (iso: string | null): string => (iso ? ` (since ${when(iso)})` : '');
const oneLine = (value: unknown, max = 80): string => {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/**
 * The listing as text: what needs you, a block per workspace with a line per session (its tokens and estimate last),
 * then the requests.
 */
export function listingText(fleet: FleetListing): string {
  const lines: string[] = [];
  if (fleet.needsYou.length > 0) {
    lines.push('Needs you:');
    for (const item of fleet.needsYou)
      lines.push(
        `  - ${needsYouLine(item, (s) => `${s.workspaceName}/${s.sessionName} — ${s.reason}${since(s.since)}`)}`,
      );
    lines.push('');
  }
  if (fleet.workspaces.length === 0) lines.push('No workspaces yet: create one in the UI.');
  for (const w of fleet.workspaces) {
    lines.push(
      `${w.name}  ${w.status}${w.reason ? ` — ${w.reason}` : ''}${w.engine === 'local' ? '' : `  (engine ${w.engine})`}`,
    );
    if (w.sessions.length === 0) lines.push('  (no sessions)');
    const width = Math.max(0, ...w.sessions.map((s) => s.ref.length));
    for (const s of w.sessions) {
      const a = s.attention;
      const level = levelWords[a.level];
      const why = a.reason !== level ? `  ${a.reason}` : '';
      const from = a.level === 'needs_you' ? since(a.since) : '';
      const used = s.usage
        ? `  (${tokensShort(s.usage.totals.total)} tokens, ${estimateShort(s.usage.estimate)} est.)`
        : '';
      lines.push(`  ${s.ref.padEnd(width)}  ${s.agent.padEnd(6)}  ${level.padEnd(9)}${why}${from}${used}`.trimEnd());
    }
  }
  if (fleet.permissionRequests.length > 0) {
    lines.push('', 'Permission requests (nexus allow ID, nexus deny ID [--note TEXT]):');
    for (const r of fleet.permissionRequests)
      lines.push(`  ${r.id}  ${r.session}  ${r.toolName}  ${oneLine(r.toolInput)}  (expires ${when(r.expiresAt)})`);
  }
  return `${lines.join('\n')}\n`;
}

export const lsCommand = (ctx: CliContext) => (cli: Argv) =>
  cli.command(
    ['ls', 'list'],
    'workspaces, their sessions and what each waits on; open permission requests',
    (y) =>
      y
        .strict()
        .option('json', { type: 'boolean', describe: 'print the listing as JSON' })
        .example('$0 ls', '')
        .example('$0 ls --json | jq ".permissionRequests"', ''),
    async (argv) => {
      const fleet = await fleetListing(dataDirOf(ctx, argv.dataDir as string | undefined));
      ctx.stdout.write(argv.json ? `${JSON.stringify(fleet, null, 2)}\n` : listingText(fleet));
    },
  );
