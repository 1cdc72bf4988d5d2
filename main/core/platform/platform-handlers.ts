import type { Handlers } from '../handlers';
import type { AgentRecords } from './agent-records';
import type { BoardService } from './board-service';
import type { PlatformService } from './platform-service';

type PlatformHandlers = Pick<
  Handlers,
  | 'agents.create'
  | 'agents.list'
  | 'agents.forWorkspace'
  | 'agents.update'
  | 'board.list'
  | 'tasks.setStatus'
  | 'tasks.create'
  | 'runs.create'
  | 'runs.end'
>;

/** Operator operations over agents, tasks, the board and runs; the run password stays in process (see contract/platform.ts). */
export function platformHandlers(
  platform: PlatformService,
  more: { records: AgentRecords; board: BoardService; workspaceId(ref: string): string },
): PlatformHandlers {
  return {
    'agents.create': (input) => platform.createAgent(input),
    'agents.list': () => ({ agents: platform.agents.list() }),
    'agents.forWorkspace': (input) => more.records.forWorkspace(more.workspaceId(input.workspace)),
    'agents.update': ({ id, ...patch }) => more.records.update(id, patch),
    'board.list': (input) => ({
      tasks: more.board.list(input.workspace ? more.workspaceId(input.workspace) : undefined),
    }),
    'tasks.setStatus': (input) => more.board.setStatus(input.id, input.status),
    'tasks.create': (input) => {
      const t = platform.createTask({ title: input.title, body: input.body, parentId: input.parentId ?? null });
      return { id: t.id, title: t.title, status: t.status, parentId: t.parentId };
    },
    'runs.create': async (input) => {
      const c = await platform.createRun(input.agentId, input.taskId, input.sessionId);
      return { runId: c.runId, natsUrl: c.natsUrl, user: c.user, inboxPrefix: c.inboxPrefix, subject: c.subject };
    },
    'runs.end': async (input) => {
      await platform.endRun(input.runId, input.status, input.summary);
      return { runId: input.runId, status: input.status };
    },
  };
}
