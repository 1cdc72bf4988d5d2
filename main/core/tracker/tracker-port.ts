import type { TrackerPickup } from '../../../shared/contract/tracker';

/** An issue as Nexus reads it from any tracker. */
export interface TrackerIssue {
  number: number;
  title: string;
  /** The description as the tracker stores it (Markdown or Textile), unchanged. */
  body: string;
  /** The issue's page for a person. */
  url: string;
}

/**
 * One tracker (Redmine, GitHub Issues, …): what the outbox, "start from an issue" and the pick-up need. A third
 * tracker is one more file implementing this, and one line in adapters.ts.
 */
export interface Tracker {
  issue(number: number): Promise<TrackerIssue>;
  /** Adds a comment; the remote id when the tracker answers with one. */
  comment(number: number, text: string): Promise<string | null>;
  /**
   * The comment whose text contains `marker`, if the issue has one: asked before a comment is sent again whose
   * earlier attempt may have landed (its answer was lost). `found` with the remote id when the tracker tells it.
   */
  findComment(number: number, marker: string): Promise<{ found: boolean; remoteId: string | null }>;
  /** Moves the issue to a status of the tracker's (Redmine: a status id; GitHub: open / closed) with a note. */
  setStatus(number: number, status: string, text: string): Promise<void>;
  /** Open issues matching the workspace's pick-up rule, oldest first. */
  pickable(rule: TrackerPickup): Promise<TrackerIssue[]>;
}

/**
 * A tracker call that did not succeed. `refused`: the tracker answered and said no (a 4xx other than 408/429: bad
 * key, unknown issue, invalid status); otherwise it could not be reached or failed (network, timeout, 5xx, 429).
 * Either way the outbox keeps the row and tries again later; the card shows a refusal as failed.
 */
export class TrackerError extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
    /** The HTTP status, when there was an answer. */
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'TrackerError';
  }
}
