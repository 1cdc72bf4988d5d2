import type { ToolArgs, ToolName, ToolResult } from '../../../../shared/platform-tools';
import type { ReviewQueue } from '../review/review-queue';
import type { BoardFeed } from '../board-feed';
import type { BoardMirrorSlot } from '../board-mirror';
import type { Agent } from '../store/agents';
import type { BoardStore } from '../store/board';
import type { Run, RunStore } from '../store/runs';
import type { TaskStore } from '../store/tasks';

export interface ToolDeps {
  runs: RunStore;
  tasks: TaskStore;
  board: BoardStore;
  review: ReviewQueue;
  feed: BoardFeed;
  /** The tracker, once its module has filled the slot (a task made with `issue` is linked through it). */
  mirror: BoardMirrorSlot;
}

/** Who is calling, as core resolved it from the NATS subject and the stored records (never the payload). */
export interface ToolContext {
  agent: Agent;
  run: Run;
  deps: ToolDeps;
}

export interface ToolHandler<K extends ToolName> {
  name: K;
  handle(args: ToolArgs<K>, ctx: ToolContext): ToolResult<K> | Promise<ToolResult<K>>;
}

export const toolHandler = <K extends ToolName>(h: ToolHandler<K>): ToolHandler<K> => h;
