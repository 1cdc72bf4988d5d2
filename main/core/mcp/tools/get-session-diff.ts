import { operations } from '../../../../shared/contract';
import { defineTool, inputFrom } from '../tool';

const input = inputFrom('sessions.diff');

export const getSessionDiff = defineTool({
  name: 'get_session_diff',
  title: "Get a session's diff",
  description:
    'What a session changed against its base branch: its commits, the changed files (committed and ' +
    'uncommitted) with line counts, and a unified diff. Bounded: 50 files a page (use offset for the ' +
    "next), each file's diff cut at 64 KB and the page at 512 KB; `file` gives one file whole. `note` " +
    'says what was left out.',
  ops: ['sessions.diff'],
  input: input.shape,
  output: operations['sessions.diff'].output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (args, call) => call('sessions.diff', input.toOp(args)),
  summarize: (d) =>
    `Session branch ${d.branch}: ${d.summary.ahead} commit(s) ahead of ${d.summary.base}, ${d.summary.behind} behind; ` +
    `${d.summary.changedFiles} file(s) changed (+${d.summary.additions} -${d.summary.deletions})` +
    `${d.summary.uncommitted ? ', some not committed' : ''}.${d.note ? ` ${d.note}` : ''}`,
});
