import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../store';
import { Finding } from './skill-scanner';

export const SkillStatus = z.enum(['draft', 'active', 'rejected', 'superseded']);

export interface SkillRecord {
  id: string;
  slug: string;
  version: number;
  name: string;
  description: string;
  markdown: string;
  status: z.infer<typeof SkillStatus>;
  findings: Finding[];
  agentId: string | null;
  runId: string | null;
  createdAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
}

const Row = z.object({
  id: z.string(),
  slug: z.string(),
  version: z.number().int(),
  name: z.string(),
  description: z.string(),
  markdown: z.string(),
  status: SkillStatus,
  findings: z.string(),
  agent_id: z.string().nullable(),
  run_id: z.string().nullable(),
  created_at: z.string(),
  decided_at: z.string().nullable(),
  decided_by: z.string().nullable(),
});
const toSkill = (raw: unknown): SkillRecord => {
  const r = Row.parse(raw);
  return {
    id: r.id,
    slug: r.slug,
    version: r.version,
    name: r.name,
    description: r.description,
    markdown: r.markdown,
    status: r.status,
    findings: z.array(Finding).parse(JSON.parse(r.findings)),
    agentId: r.agent_id,
    runId: r.run_id,
    createdAt: r.created_at,
    decidedAt: r.decided_at,
    decidedBy: r.decided_by,
  };
};

/** Versioned skills: proposing a slug always inserts the next version as a draft; nothing is overwritten. */
export class SkillStore {
  constructor(private readonly db: Db) {}

  propose(input: {
    slug: string;
    name: string;
    description: string;
    markdown: string;
    findings: Finding[];
    agentId: string | null;
    runId: string | null;
  }): SkillRecord {
    const id = randomUUID();
    this.db.transaction(() => {
      const { v } = this.db
        .prepare('SELECT COALESCE(MAX(version), 0) AS v FROM skills WHERE slug = ?')
        .get(input.slug) as { v: number };
      this.db
        .prepare(
          'INSERT INTO skills (id, slug, version, name, description, markdown, status, findings, agent_id, run_id, created_at) ' +
            "VALUES (?, ?, ?, ?, ?, ?, 'draft', ?, ?, ?, ?)",
        )
        .run(
          id,
          input.slug,
          v + 1,
          input.name,
          input.description,
          input.markdown,
          JSON.stringify(input.findings),
          input.agentId,
          input.runId,
          new Date().toISOString(),
        );
    })();
    return this.get(id) as SkillRecord;
  }

  get(id: string): SkillRecord | null {
    const row = this.db.prepare('SELECT * FROM skills WHERE id = ?').get(id);
    return row ? toSkill(row) : null;
  }

  active(): SkillRecord[] {
    return this.db.prepare("SELECT * FROM skills WHERE status = 'active' ORDER BY slug").all().map(toSkill);
  }

  activeBySlug(slug: string): SkillRecord | null {
    const row = this.db.prepare("SELECT * FROM skills WHERE slug = ? AND status = 'active'").get(slug);
    return row ? toSkill(row) : null;
  }

  versions(slug: string): SkillRecord[] {
    return this.db.prepare('SELECT * FROM skills WHERE slug = ? ORDER BY version').all(slug).map(toSkill);
  }

  drafts(): SkillRecord[] {
    return this.db
      .prepare("SELECT * FROM skills WHERE status = 'draft' ORDER BY created_at, version")
      .all()
      .map(toSkill);
  }

  countDrafts(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM skills WHERE status = 'draft'").get() as { n: number }).n;
  }

  /** Makes a draft the active version of its slug; the previous active version becomes superseded. */
  activate(id: string, by: string): boolean {
    return this.db.transaction(() => {
      const skill = this.get(id);
      if (!skill || skill.status !== 'draft') return false;
      const now = new Date().toISOString();
      this.db.prepare("UPDATE skills SET status = 'superseded' WHERE slug = ? AND status = 'active'").run(skill.slug);
      this.db
        .prepare("UPDATE skills SET status = 'active', decided_at = ?, decided_by = ? WHERE id = ?")
        .run(now, by, id);
      return true;
    })();
  }

  reject(id: string, by: string): boolean {
    return (
      this.db
        .prepare(
          "UPDATE skills SET status = 'rejected', decided_at = ?, decided_by = ? WHERE id = ? AND status = 'draft'",
        )
        .run(new Date().toISOString(), by, id).changes === 1
    );
  }
}
