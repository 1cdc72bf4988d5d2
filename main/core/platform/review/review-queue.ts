import type { DraftSkill, PendingMemory, ReviewCounts } from '../../../../shared/contract';
import { NexusError } from '../../../../shared/errors';
import type { MemoryScope } from '../../../../shared/platform-tools';
import type { AuditLog } from '../../audit';
import type { EventBus } from '../../events';
import { Names, type NameLookup } from '../names';
import type { Db } from '../../store';
import { MemoryStore, type MemoryRecord } from './memory-store';
import { scanSkill } from './skill-scanner';
import { SkillStore, type SkillRecord } from './skill-store';

export interface Decision {
  id: string;
  status: string;
}

/**
 * The human-in-the-loop gate for what agents learn: memories arrive pending and skills arrive as
 * scanned drafts; only a person's decision makes them visible to agents. Every decision is
 * audited and every change pushes `review.changed` with the new counts.
 */
export class ReviewQueue {
  readonly memories: MemoryStore;
  readonly skills: SkillStore;

  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly audit: AuditLog,
    private readonly lookup: NameLookup,
    private readonly allowedHosts?: readonly string[],
  ) {
    this.memories = new MemoryStore(db);
    this.skills = new SkillStore(db);
  }

  proposeMemory(input: {
    content: string;
    scope: MemoryScope;
    project: string | null;
    agentId: string;
    runId: string;
  }): MemoryRecord {
    const m = this.memories.propose(input);
    this.changed();
    return m;
  }

  proposeSkill(input: {
    slug: string;
    name: string;
    description: string;
    markdown: string;
    agentId: string;
    runId: string;
  }): SkillRecord {
    const findings = scanSkill(`${input.name}\n${input.description}\n${input.markdown}`, this.allowedHosts);
    const s = this.skills.propose({ ...input, findings });
    this.changed();
    return s;
  }

  counts(): ReviewCounts {
    return { pendingMemories: this.memories.countPending(), draftSkills: this.skills.countDrafts() };
  }

  list(): { memories: PendingMemory[]; skills: DraftSkill[]; counts: ReviewCounts } {
    const names = new Names(this.db, this.lookup);
    const provenance = (r: { agentId: string | null; runId: string | null; createdAt: string }) => ({
      ...names.actor(r.agentId, r.runId),
      runId: r.runId,
      proposedAt: r.createdAt,
    });
    return {
      memories: this.memories.pending().map((m) => ({
        id: m.id,
        content: m.content,
        scope: m.scope,
        project: m.project,
        projectName: names.workspaceName(m.project),
        provenance: provenance(m),
      })),
      skills: this.skills.drafts().map((s) => ({
        id: s.id,
        slug: s.slug,
        version: s.version,
        name: s.name,
        description: s.description,
        markdown: s.markdown,
        findings: s.findings,
        activeVersion: this.skills.activeBySlug(s.slug)?.version ?? null,
        provenance: provenance(s),
      })),
      counts: this.counts(),
    };
  }

  approveMemory(id: string, actor: string, transport: string, content?: string): Decision {
    const before = this.pendingMemory(id);
    this.memories.decide(id, 'active', actor, content);
    const edited = content !== undefined && content !== before.content;
    this.record(actor, transport, edited ? 'review.memory.editApprove' : 'review.memory.approve', {
      id,
      scope: before.scope,
    });
    this.changed();
    return { id, status: 'active' };
  }

  rejectMemory(id: string, actor: string, transport: string, reason?: string): Decision {
    this.pendingMemory(id);
    this.memories.decide(id, 'rejected', actor);
    this.record(actor, transport, 'review.memory.reject', { id, reason });
    this.changed();
    return { id, status: 'rejected' };
  }

  /** A flagged draft is approved only with an explicit override, whose reason goes to the audit log. */
  approveSkill(id: string, actor: string, transport: string, override?: { reason: string }): Decision {
    const skill = this.draftSkill(id);
    if (skill.findings.length > 0 && !override) {
      const rules = [...new Set(skill.findings.map((f) => f.rule))].join(', ');
      throw new NexusError(
        'conflict',
        `Skill "${skill.slug}" v${skill.version} was flagged by the scanner (${rules}); approving it needs an override with a reason.`,
      );
    }
    this.skills.activate(id, actor);
    this.record(
      actor,
      transport,
      override && skill.findings.length ? 'review.skill.approveOverride' : 'review.skill.approve',
      {
        id,
        slug: skill.slug,
        version: skill.version,
        ...(override ? { override: override.reason, findings: skill.findings.map((f) => f.rule) } : {}),
      },
    );
    this.changed();
    return { id, status: 'active' };
  }

  rejectSkill(id: string, actor: string, transport: string, reason?: string): Decision {
    const skill = this.draftSkill(id);
    this.skills.reject(id, actor);
    this.record(actor, transport, 'review.skill.reject', { id, slug: skill.slug, version: skill.version, reason });
    this.changed();
    return { id, status: 'rejected' };
  }

  private pendingMemory(id: string): MemoryRecord {
    const m = this.memories.get(id);
    if (!m) throw new NexusError('not_found', `No memory "${id}".`);
    if (m.status !== 'pending')
      throw new NexusError(
        'conflict',
        `Memory "${id}" was already ${m.status === 'active' ? 'approved' : 'rejected'}.`,
      );
    return m;
  }

  private draftSkill(id: string): SkillRecord {
    const s = this.skills.get(id);
    if (!s) throw new NexusError('not_found', `No skill draft "${id}".`);
    if (s.status !== 'draft')
      throw new NexusError('conflict', `Skill "${s.slug}" v${s.version} is ${s.status}, not a draft.`);
    return s;
  }

  private record(actor: string, transport: string, operation: string, detail: Record<string, unknown>): void {
    this.audit.record({ actor, transport, operation, outcome: 'ok', durationMs: 0, detail: JSON.stringify(detail) });
  }

  private changed(): void {
    this.events.emit('review.changed', this.counts());
  }
}
