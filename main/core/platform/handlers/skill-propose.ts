import { toolHandler } from './tool-handler';

/** skill.propose: a scanned draft; an existing slug gets its next version, the active one stays. */
export const skillPropose = toolHandler({
  name: 'skill.propose',
  handle(args, { agent, run, deps }) {
    const s = deps.review.proposeSkill({ ...args, agentId: agent.id, runId: run.id });
    return {
      id: s.id,
      slug: s.slug,
      version: s.version,
      status: 'draft' as const,
      findings: s.findings.map((f) => ({ rule: f.rule, message: f.message })),
    };
  },
});
