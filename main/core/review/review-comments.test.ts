import { describe, expect, it } from 'vitest';
import type { ReviewComment } from '../../../shared/contract/review-comments';
import { reviewMessage } from './review-comments';

const comment = (c: Partial<ReviewComment>): ReviewComment => ({
  id: 'c',
  sessionId: 's',
  path: 'a.ts',
  startLine: 1,
  endLine: 1,
  quote: 'x\n',
  body: 'why?',
  status: 'draft',
  sentAt: null,
  linesChanged: null,
  createdAt: 'now',
  ...c,
});

describe('the message a review becomes', () => {
  it('carries every comment with its file, line range and quoted code, in one message', () => {
    const text = reviewMessage([
      comment({
        path: 'src/a.ts',
        startLine: 3,
        endLine: 5,
        quote: 'let a = 1;\nlet b = 2;\nlet c = 3;\n',
        body: 'Use const.',
      }),
      comment({ path: 'README.md', startLine: 7, endLine: 7, quote: 'Hello\n', body: 'Say more.' }),
    ]);
    expect(text).toMatch(/^Review from the operator: 2 comments on your changes/);
    expect(text).toContain('1. src/a.ts, lines 3-5:\n```\nlet a = 1;\nlet b = 2;\nlet c = 3;\n```\nUse const.');
    expect(text).toContain('2. README.md, line 7:\n```\nHello\n```\nSay more.');
  });

  it('fences a quote that holds backticks with a longer fence', () => {
    const text = reviewMessage([comment({ quote: 'a ``` b\n' })]);
    expect(text).toContain('````\na ``` b\n````');
  });
});
