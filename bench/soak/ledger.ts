import type { ChildReport } from './reports';
import { countBy } from './table';
import type { ToolCall } from './work';

/**
 * Everything the soak counted, stage by stage, and the sent / received / lost table made from it.
 * A loss is explained only by what the product itself said: the relay's notice that it died or
 * dropped events (core then marks the workspace's sessions), or a fault that cut the thing off
 * (a tool call in flight in a container that was restarted).
 */
export interface StageRow {
  stage: string;
  sent: number;
  received: number;
  lost: number;
  /** Of the lost: how many the product reported (relay notice) or a fault cut off, and how. */
  explained: number;
  note: string;
}

/** A fault that cut a workspace's container off: when it began, and when the container ran again. */
export interface Cut {
  workspaceId: string;
  at: number;
  backAt: number;
}

/** What send_message answers when the agent's inbox took the message. */
const TAKEN = new Set(['delivered', 'sent_unconfirmed']);

type Hook = Extract<ChildReport, { kind: 'hook' }>;
type Notice = Extract<ChildReport, { kind: 'notice' }>;

export class Ledger {
  /** Per relay process (workspace id + pid): the highest count it reported on GET /counts. */
  readonly relaySent = new Map<string, number>();
  /** Per relay process: the seqs core took in. */
  readonly relayReceived = new Map<string, Set<number>>();
  /** Hook events the hook command published itself (no relay). */
  direct = 0;
  readonly hooks: Hook[] = [];
  readonly notices: Notice[] = [];
  rejected = 0;
  /** Hook events that came twice (sent again by the relay), and the keys seen. */
  copies = 0;
  private readonly copiesSeen = new Set<string>();
  /** Per relay process (workspace/pid/container life), after rows(): what it sent and core received. */
  relays: Record<string, { sent: number; received: number }> = {};
  /** Core's bus: digest -> when emitted (by each core incarnation). */
  readonly bus: { digest: string; name: string; t: number }[] = [];
  /** /api/events: digests received. */
  readonly sse = new Set<string>();
  /** First SSE receipt of each (session, agentStateAt): for hook -> attention. */
  readonly stateSeen = new Map<string, { t: number; at: string; agentState: string }>();
  /** Messages sent from outside: number -> where, when, what send_message answered. */
  readonly messages = new Map<number, { session: string; t: number; status: string }>();
  /** Permission requests seen (id -> decision made, or the error deciding). */
  readonly asks = new Map<
    string,
    { decided: 'allow' | 'deny' | null; error?: string; t: number; workspaceId?: string }
  >();
  /** When core was down (SIGKILL to ready again). */
  readonly coreDown: [number, number][] = [];
  /**
   * Per workspace/pid: how many relay starts core heard of (each relay says so first, before any
   * event): a relay in a restarted container may come back with the same pid, and counts from one.
   */
  private readonly lives = new Map<string, number>();

  private relayKey(workspaceId: string, pid: number): string {
    return `${workspaceId}/${pid}/${this.lives.get(`${workspaceId}/${pid}`) ?? 0}`;
  }

  take(r: ChildReport): void {
    if (r.kind === 'hook') {
      // A copy the relay sent again (core's answer did not reach it): core dropped it; counted apart.
      const copy = r.relayRun === null ? null : `${r.workspaceId} ${r.relayRun} ${r.seq}`;
      if (copy !== null && this.copiesSeen.has(copy)) return void this.copies++;
      if (copy !== null) this.copiesSeen.add(copy);
      this.hooks.push(r);
      if (r.seq === null || r.relayPid === null) this.direct++;
      else {
        const key = this.relayKey(r.workspaceId, r.relayPid);
        const got = this.relayReceived.get(key) ?? new Set<number>();
        got.add(r.seq);
        this.relayReceived.set(key, got);
      }
    } else if (r.kind === 'notice') {
      this.notices.push(r);
      if (r.pid) this.lives.set(`${r.workspaceId}/${r.pid}`, (this.lives.get(`${r.workspaceId}/${r.pid}`) ?? 0) + 1);
    } else if (r.kind === 'rejected') this.rejected++;
    else if (r.kind === 'bus') this.bus.push({ digest: r.digest, name: r.name, t: r.t });
  }

  relayCount(workspaceId: string, pid: number, sent: number): void {
    const key = this.relayKey(workspaceId, pid);
    this.relaySent.set(key, Math.max(sent, this.relaySent.get(key) ?? 0));
  }

  /**
   * The table. With `only` (one engine's workspaces): the stages that belong to a workspace, counted
   * for those workspaces alone (core's own bus → /api/events is left out); their sums are the totals.
   */
  rows(
    calls: ToolCall[],
    windows: [number, number][],
    cuts: Cut[],
    sessionWs: Map<string, string>,
    only?: (workspaceId: string) => boolean,
  ): StageRow[] {
    const rows: StageRow[] = [];
    const mine = (workspaceId: string | undefined): boolean =>
      !only || (workspaceId !== undefined && only(workspaceId));

    // 1. relay -> core. A relay process whose count we never read (it died before a read) is known
    // only by what arrived: its highest seq stands in for its count.
    let sent = 0;
    let received = 0;
    let explained = 0;
    const gaps: string[] = [];
    const relays: Record<string, { sent: number; received: number }> = {};
    if (!only) this.relays = relays;
    const keys = new Set([...this.relaySent.keys(), ...this.relayReceived.keys()]);
    for (const key of [...keys].filter((k) => mine(k.split('/')[0]))) {
      const got = this.relayReceived.get(key) ?? new Set<number>();
      const n = Math.max(this.relaySent.get(key) ?? 0, ...got);
      sent += n;
      received += got.size;
      const missing = n - got.size;
      if (missing <= 0) continue;
      const [ws, pid] = key.split('/');
      relays[key] = { sent: n, received: got.size };
      const reported = this.notices.some(
        (x) => x.workspaceId === ws && (x.dropped > 0 || (x.crashes > 0 && x.pid !== Number(pid))),
      );
      if (reported) explained += missing;
      gaps.push(`${key}: ${missing} missing${reported ? ' (relay reported)' : ''}`);
    }
    const hooks = this.hooks.filter((h) => mine(h.workspaceId));
    const notices = this.notices.filter((n) => mine(n.workspaceId));
    rows.push({
      stage: 'hook events: relays → core',
      sent,
      received,
      lost: sent - received,
      explained,
      note:
        `${hooks.filter((h) => h.seq === null || h.relayPid === null).length} more published by the hook command itself; ` +
        `${only ? '' : `${this.copies} sent again (core dropped the copy); `}` +
        `${notices.length} relay notices ` +
        `(${notices.filter((n) => n.crashes > 0 || n.dropped > 0).length} of lost events)` +
        (gaps.length ? `; ${gaps.join(', ')}` : ''),
    });

    // 2. core -> database: every event core took in that names a state is in the row (or a newer one is).
    const mapped = hooks.filter((h) => h.db !== 'unmapped' && h.db !== 'no-session');
    const missed = mapped.filter((h) => h.db === 'missed');
    rows.push({
      stage: 'state changes: core → database',
      sent: mapped.length,
      received: mapped.length - missed.length,
      lost: missed.length,
      explained: 0,
      note:
        `${mapped.filter((h) => h.db === 'superseded').length} superseded by a newer event; ` +
        `${hooks.length - mapped.length} name no state`,
    });
    if (only)
      return [
        ...rows,
        this.toolCalls(
          calls.filter((c) => mine(sessionWs.get(c.session))),
          cuts,
          sessionWs,
        ),
      ];

    // 3. core's bus -> /api/events, counted while the client was connected (not its first/last 250 ms).
    const inWindow = (t: number): boolean => windows.some(([a, b]) => t > a + 250 && t < b - 250);
    const owed = this.bus.filter((e) => inWindow(e.t));
    const lostEvents = owed.filter((e) => !this.sse.has(e.digest));
    rows.push({
      stage: 'events: core → /api/events',
      sent: owed.length,
      received: owed.length - lostEvents.length,
      lost: lostEvents.length,
      explained: 0,
      note:
        `${this.bus.length} emitted in all, ${windows.length} connections` +
        (lostEvents.length ? `; lost: ${[...new Set(lostEvents.map((e) => e.name))].join(', ')}` : ''),
    });

    rows.push(this.toolCalls(calls, cuts, sessionWs));
    return rows;
  }

  /** 4. model: each tool call the stand-in handed out, and its tool_result back. */
  private toolCalls(calls: ToolCall[], cuts: Cut[], sessionWs: Map<string, string>): StageRow {
    const open = calls.filter((c) => c.answeredAt === undefined);
    // Until the container ran again: a call handed out while `docker restart` waits for the agents to end is cut too.
    const cut = open.filter((c) => cuts.some((x) => x.workspaceId === sessionWs.get(c.session) && x.backAt >= c.at));
    return {
      stage: 'tool calls: model → agent → model',
      sent: calls.length,
      received: calls.length - open.length,
      lost: open.length,
      explained: cut.length,
      note:
        `${calls.filter((c) => c.isError).length} answered as errors (denials included)` +
        (cut.length ? `; ${cut.length} in flight in a restarted container` : '') +
        (open.length - cut.length
          ? `; unanswered: ${open
              .filter((c) => !cut.includes(c))
              .map((c) => c.kind)
              .join(', ')}`
          : ''),
    };
  }
  /**
   * 5. messages from outside: taken by the agent's inbox (`delivered`, or `sent_unconfirmed`: the CLI
   * confirms only holds, refusals, drops) against the model requests that showed them.
   */
  messageRow(
    received: Map<number, unknown>,
    cuts: Cut[],
    sessionWs: Map<string, string>,
    only?: (workspaceId: string) => boolean,
  ): StageRow {
    const all = [...this.messages.entries()].filter(([, m]) => !only || only(sessionWs.get(m.session) ?? ''));
    const delivered = all.filter(([, m]) => TAKEN.has(m.status));
    const arrived = delivered.filter(([n]) => received.has(n));
    return {
      stage: 'messages: send_message → agent',
      sent: delivered.length,
      received: arrived.length,
      lost: delivered.length - arrived.length,
      explained: delivered.filter(
        ([n, m]) =>
          !received.has(n) && cuts.some((c) => c.workspaceId === sessionWs.get(m.session) && c.at >= m.t - 60_000),
      ).length,
      note: `${all.length} sent in all; not delivered: ${JSON.stringify(
        countBy(all.filter(([, m]) => !TAKEN.has(m.status)).map(([, m]) => m.status)),
      )}`,
    };
  }

  /** 6. permission asks seen against the operator's decisions. */
  askRow(only?: (workspaceId: string) => boolean): StageRow {
    const asks = [...this.asks.values()].filter((a) => !only || only(a.workspaceId ?? ''));
    const errors = [...new Set(asks.map((a) => a.error).filter(Boolean))];
    return {
      stage: 'permission asks: core → operator decision',
      sent: asks.length,
      received: asks.filter((a) => a.decided).length,
      lost: asks.filter((a) => !a.decided).length,
      explained: 0,
      note:
        `${asks.filter((a) => a.decided === 'allow').length} allowed, ${asks.filter((a) => a.decided === 'deny').length} denied` +
        (errors.length ? `; errors: ${errors.join(' | ')}` : ''),
    };
  }
}
