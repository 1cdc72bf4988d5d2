import { html } from 'diff2html';
import 'diff2html/bundles/css/diff2html.min.css';
import { memo, useMemo } from 'react';
import type { FilePatch } from '../../../../shared/contract/sessions';
import { PendingRows, useProgressive, type Steps } from '../../shell/progressive';

/** A page of many files renders the first few files' diffs, then more as the operator scrolls the diff. */
const FILES: Steps = { whole: 5, first: 3, step: 5, root: '.changes-diff' };
/** A diff line's height, for the placeholder of the files not rendered yet. */
const LINE_PX = 20;

/**
 * The unified diff, rendered by diff2html (which escapes the file contents it puts in the HTML),
 * one file at a time: a page of 50 large files is ~15,000 lines and 125,000 elements, so the
 * first files render at once and the rest when scrolled near; each file's layout is skipped while
 * it is off screen (`content-visibility` in changes.css). See docs/performance.md.
 */
export function ChangesDiff({ patches }: { patches: FilePatch[] }) {
  const { shown, more, showAll } = useProgressive(patches.length, FILES);
  const rest = useMemo(() => patches.slice(shown), [patches, shown]);
  const lines = useMemo(() => rest.reduce((n, p) => n + lineCount(p.diff), 0), [rest]);
  return (
    <div className="changes-diff" data-testid="changes-diff">
      {patches.slice(0, shown).map((p) => (
        <FileDiff key={p.path} patch={p} />
      ))}
      {rest.length > 0 ? (
        <PendingRows
          rows={lines}
          rowPx={LINE_PX}
          label={`Show the diffs of the other ${rest.length} files`}
          more={more}
          showAll={showAll}
        />
      ) : null}
    </div>
  );
}

const FileDiff = memo(function FileDiff({ patch }: { patch: FilePatch }) {
  const markup = useMemo(
    () =>
      html(patch.diff.endsWith('\n') ? patch.diff : `${patch.diff}\n`, {
        outputFormat: 'line-by-line',
        drawFileList: false,
        matching: 'none',
        renderNothingWhenEmpty: false,
      }),
    [patch],
  );
  return <div dangerouslySetInnerHTML={{ __html: markup }} />;
});

function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
