/** What the soak's core process (core-process.ts) tells the soak over IPC, one message per thing it saw. */

/** What core's handler left in the session's row for a hook event it took in. */
export type DbOutcome =
  /** The row's agent_state_at is this event's stamp: the state was written. */
  | 'written'
  /** The row holds a newer state (events run concurrently; core keeps the newest). */
  | 'superseded'
  /** The event names no state (e.g. a Notification of another kind). */
  | 'unmapped'
  /** No such session (deleted meanwhile). */
  | 'no-session'
  /** The row is older than the event: core took the event in and did not write it. */
  | 'missed';

export type ChildReport =
  | { kind: 'ready'; url: string; pid: number; delegationUrl: string | null }
  | {
      kind: 'hook';
      workspaceId: string;
      sessionId: string;
      name: string;
      /** The relay's stamp. */
      at: string;
      /** The relay's sequence number and process (null: the hook command published it itself). */
      seq: number | null;
      relayPid: number | null;
      /** The relay process's random id: a copy it sent again (no answer in time) has the same run and seq. */
      relayRun: string | null;
      db: DbOutcome;
      t: number;
    }
  | { kind: 'notice'; workspaceId: string; crashes: number; dropped: number; pid: number; t: number }
  | { kind: 'rejected'; workspaceId: string; t: number }
  | {
      kind: 'bus';
      name: string;
      /** sha1 of `<name>\n<data>`: what /api/events writes for it. */
      digest: string;
      t: number;
      session?: string;
      agentState?: string;
      agentStateAt?: string | null;
    };
