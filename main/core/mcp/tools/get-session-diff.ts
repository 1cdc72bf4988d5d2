import { operations, SessionRef } from '../../../../shared/contract';
import { defineTool } from '../tool';

const input = operations['sessions.diff'].input.shape;

export const getSessionDiff = defineTool({
  name: 'get_session_diff',
  title: "Get a session's diff",
  description:
    "What a session changed against its base branch: its commits, the changed files (committed and uncommitted) with line counts, and a unified diff. Bounded: 50 files a page (use offset for the next), each file's diff cut at 64 KB and the page at 512 KB; `file` gives one file whole. `note` says what was left out.",
  ops: ['sessions.diff'],
  input: { session: SessionRef, offset: input.offset, limit: input.limit, file: input.file },
  output: operations['sessions.diff'].output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (args, call) => call('sessions.diff', args),
  summarize: (d) =>
    `Session branch ${d.branch}: ${d.summary.ahead} commit(s) ahead of ${d.summary.base}, ${d.summary.behind} behind; ${d.summary.changedFiles} file(s) changed (+${d.summary.additions} -${d.summary.deletions})${d.summary.uncommitted ? ', some not committed' : ''}.${d.note ? ` ${d.note}` : ''}`,
});
