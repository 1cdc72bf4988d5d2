import type { Cut, Ledger, StageRow } from './ledger';
import type { Work } from './work';

/**
 * The soak's counts split by the engine each workspace was on: where each workspace was, how many
 * sessions and model requests each engine carried, and per engine the stages that belong to a
 * workspace (hook events, state changes, tool calls, messages, permission asks). Each engine's
 * rows add up to the table's totals (core's bus → /api/events is core's alone and is not split).
 */
export interface EngineSummary {
  engine: string;
  workspaces: string[];
  sessions: number;
  modelRequests: number;
  toolCalls: number;
}

export function byEngine(x: {
  ledger: Ledger;
  work: Work;
  cuts: Cut[];
  sessionWs: Map<string, string>;
  windows: [number, number][];
  engines: string[];
  workspaces: { name: string; id: string; engine: string }[];
}): {
  engines: EngineSummary[];
  placement: { workspace: string; engine: string; sessions: number }[];
  stages: Record<string, StageRow[]>;
} {
  const engineOfWs = new Map(x.workspaces.map((w) => [w.id, w.engine]));
  const sessionsOf = (wsIds: Set<string>): string[] =>
    [...x.sessionWs.entries()].filter(([, ws]) => wsIds.has(ws)).map(([id]) => id);
  const calls = [...x.work.calls.values()];
  const stages: Record<string, StageRow[]> = {};
  const engines = x.engines.map((engine): EngineSummary => {
    const only = (workspaceId: string): boolean => engineOfWs.get(workspaceId) === engine;
    const wsIds = new Set(x.workspaces.filter((w) => w.engine === engine).map((w) => w.id));
    const sessions = sessionsOf(wsIds);
    stages[engine] = [
      ...x.ledger.rows(calls, x.windows, x.cuts, x.sessionWs, only),
      x.ledger.messageRow(x.work.received, x.cuts, x.sessionWs, only),
      x.ledger.askRow(only),
    ];
    return {
      engine,
      workspaces: x.workspaces.filter((w) => w.engine === engine).map((w) => w.name),
      sessions: sessions.length,
      modelRequests: sessions.reduce((n, id) => n + (x.work.turns.get(id) ?? 0), 0),
      toolCalls: calls.filter((c) => only(x.sessionWs.get(c.session) ?? '')).length,
    };
  });
  const placement = x.workspaces.map((w) => ({
    workspace: w.name,
    engine: w.engine,
    sessions: sessionsOf(new Set([w.id])).length,
  }));
  return { engines, placement, stages };
}
