import type { Db } from '../store';
import type { Agent, AgentStore } from './store/agents';
import type { Run, RunStore } from './store/runs';

/** The stored run a tool call names and its agent, as the database holds them now. */
export interface Caller {
  run: Run | null;
  agent: Agent | null;
}

/** Runs remembered at most; more are forgotten all at once (a run's next call reads its rows again). */
const MAX_RUNS = 1_000;

/**
 * Reads the run and agent behind each tool call, and reuses what it read while nothing has been
 * committed to the database since: `PRAGMA data_version` moves when another connection (or
 * process) commits, `total_changes()` when this connection writes. Checking both costs one read
 * transaction instead of two lookups and their decoding, and a call never sees a record older than
 * the database's (an ended run, a revoked permission or a deleted agent counts on the next call).
 */
export class CallerLookup {
  private readonly dataVersion;
  private readonly ownChanges;
  private token = '';
  private readonly known = new Map<string, Caller>();

  constructor(
    db: Db,
    private readonly runs: RunStore,
    private readonly agents: AgentStore,
  ) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.ownChanges = db.prepare('SELECT total_changes()').pluck();
  }

  get(runId: string): Caller {
    const token = `${String(this.dataVersion.get())}:${String(this.ownChanges.get())}`;
    if (token !== this.token || this.known.size >= MAX_RUNS) {
      this.known.clear();
      this.token = token;
    }
    let caller = this.known.get(runId);
    if (!caller) {
      const run = this.runs.get(runId);
      const agent = run ? this.agents.get(run.agentId) : null;
      // Shared by the calls until the next change: frozen, so no handler can alter what the next one sees.
      if (agent) for (const list of [agent.tools, agent.permissions, agent.mcpServers]) Object.freeze(list);
      caller = { run: run && Object.freeze(run), agent: agent && Object.freeze(agent) };
      this.known.set(runId, caller);
    }
    return caller;
  }
}
