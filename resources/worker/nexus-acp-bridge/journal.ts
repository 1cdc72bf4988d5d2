/**
 * What the agent wrote, numbered, kept until core says it has it: a core that was away (SIGKILLed, restarting)
 * asks for everything after the last line it processed and gets it in order. The agent's requests to the client
 * (a permission ask) stay "open" until core writes their answer, so a new core can ask the operator again even if
 * the old one had seen them.
 */
export interface JournalLine {
  seq: number;
  line: string;
}

/** Lines beyond this many unacknowledged are dropped from the front (core was away for very long): it is told. */
const MAX_LINES = 50_000;

export class Journal {
  private lines: JournalLine[] = [];
  private last = 0;
  /** Requests of the agent not answered yet: JSON-RPC id (as JSON) → the seq of the line that asked. */
  private readonly open = new Map<string, number>();
  dropped = 0;

  /** One line from the agent's stdout; returns it numbered. */
  add(line: string): JournalLine {
    const entry = { seq: ++this.last, line };
    this.lines.push(entry);
    if (this.lines.length > MAX_LINES) {
      this.lines.shift();
      this.dropped++;
    }
    const req = requestId(line);
    if (req !== null) this.open.set(req, entry.seq);
    return entry;
  }

  /** A line core sent the agent: an answer closes the request it answers. */
  answered(line: string): void {
    const id = responseId(line);
    if (id !== null) this.open.delete(id);
  }

  /** Core has processed everything up to `seq`: those lines need not be kept. */
  ack(seq: number): void {
    const openSeqs = new Set(this.open.values());
    this.lines = this.lines.filter((l) => l.seq > seq || openSeqs.has(l.seq));
  }

  /** Every kept line after `seq`, plus the open requests at or before it, in order. */
  after(seq: number): JournalLine[] {
    const openSeqs = new Set(this.open.values());
    return this.lines.filter((l) => l.seq > seq || openSeqs.has(l.seq));
  }

  get lastSeq(): number {
    return this.last;
  }

  openSeqs(): number[] {
    return [...this.open.values()].sort((a, b) => a - b);
  }
}

type Rpc = { id?: unknown; method?: unknown; result?: unknown; error?: unknown };

function parse(line: string): Rpc | null {
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === 'object' ? (v as Rpc) : null;
  } catch {
    return null;
  }
}

/** The id of a request (has a method and an id), as JSON; null for anything else. */
export function requestId(line: string): string | null {
  const m = parse(line);
  return m && typeof m.method === 'string' && m.id !== undefined && m.id !== null ? JSON.stringify(m.id) : null;
}

/** The id a response answers (an id, no method), as JSON; null for anything else. */
export function responseId(line: string): string | null {
  const m = parse(line);
  return m && m.method === undefined && m.id !== undefined && m.id !== null ? JSON.stringify(m.id) : null;
}
