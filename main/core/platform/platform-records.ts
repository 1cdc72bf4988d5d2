import type { Disposable } from '../disposable';
import type { EventBus } from '../events';
import type { Db } from '../store';
import { AgentRecords } from './agent-records';
import { BoardService } from './board-service';
import type { NameLookup } from './names';
import type { PlatformService } from './platform-service';

/** Agent records and the board over core.platform's stores; board changes go out as `board.changed` (from `react`). */
export function platformRecords(
  platform: PlatformService,
  db: Db,
  events: EventBus,
  names: NameLookup,
): { records: AgentRecords; board: BoardService; react(): Disposable[] } {
  const records = new AgentRecords({
    agents: platform.agents,
    runs: platform.runs,
    router: platform.router,
    publish: (subject, body) => platform.publish(subject, body),
  });
  const board = new BoardService({
    db,
    names,
    tasks: platform.tasks,
    runs: platform.runs,
    board: platform.board,
    feed: platform.feed,
    mirror: platform.mirror,
  });
  const react = (): Disposable[] => [platform.feed.on((c) => events.emit('board.changed', { taskId: c.taskId }))];
  return { records, board, react };
}
