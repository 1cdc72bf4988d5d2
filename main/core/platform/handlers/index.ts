import type { ToolName } from '../../../../shared/platform-tools';
import { boardComment } from './board-comment';
import { memoryPropose } from './memory-propose';
import { memorySearch } from './memory-search';
import { runSearch } from './run-search';
import { skillList } from './skill-list';
import { skillPropose } from './skill-propose';
import { skillView } from './skill-view';
import { taskDelegate } from './task-delegate';
import { taskSubtask } from './task-subtask';
import type { ToolHandler } from './tool-handler';

/** One handler per platform tool. */
export const toolHandlers: { [K in ToolName]: ToolHandler<K> } = {
  'memory.propose': memoryPropose,
  'memory.search': memorySearch,
  'task.subtask': taskSubtask,
  'task.delegate': taskDelegate,
  'board.comment': boardComment,
  'skill.propose': skillPropose,
  'skill.list': skillList,
  'skill.view': skillView,
  'run.search': runSearch,
};
