import { html } from 'diff2html';
import 'diff2html/bundles/css/diff2html.min.css';
import { memo, useMemo, type MouseEvent } from 'react';
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
export function ChangesDiff({
  patches,
  onLine,
}: {
  patches: FilePatch[];
  /** A new-side line number clicked (`extend`: shift held): the review takes it as the lines to comment on. */
  onLine?: (path: string, line: number, extend: boolean) => void;
}) {
  const { shown, more, showAll } = useProgressive(patches.length, FILES);
  const rest = useMemo(() => patches.slice(shown), [patches, shown]);
  const lines = useMemo(() => rest.reduce((n, p) => n + lineCount(p.diff), 0), [rest]);
  return (
    <div className="changes-diff" data-testid="changes-diff" onClick={onLine ? (e) => pickLine(e, onLine) : undefined}>
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
  return <div data-path={patch.path} dangerouslySetInnerHTML={{ __html: markup }} />;
});

/** The new-side line number of a clicked diff row (diff2html's `.line-num2`), with its file. */
function pickLine(e: MouseEvent<HTMLDivElement>, onLine: (path: string, line: number, extend: boolean) => void): void {
  const target = e.target as HTMLElement;
  const cell = target.closest('.d2h-code-linenumber');
  const path = target.closest<HTMLElement>('[data-path]')?.dataset.path;
  const line = Number(cell?.querySelector('.line-num2')?.textContent?.trim() ?? '');
  if (cell && path && Number.isInteger(line) && line > 0) onLine(path, line, e.shiftKey);
}

function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
