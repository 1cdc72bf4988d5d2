import { html } from 'diff2html';
import 'diff2html/bundles/css/diff2html.min.css';
import { useMemo } from 'react';
import type { FilePatch } from '../../../../shared/contract/sessions';

/** The unified diff, rendered by diff2html (which escapes the file contents it puts in the HTML). */
export function ChangesDiff({ patches }: { patches: FilePatch[] }) {
  const markup = useMemo(
    () =>
      html(patches.map((p) => (p.diff.endsWith('\n') ? p.diff : `${p.diff}\n`)).join(''), {
        outputFormat: 'line-by-line',
        drawFileList: false,
        matching: 'none',
        renderNothingWhenEmpty: false,
      }),
    [patches],
  );
  return <div className="changes-diff" data-testid="changes-diff" dangerouslySetInnerHTML={{ __html: markup }} />;
}
