import { toolHandler } from './tool-handler';

/** skill.list: active skills, summaries only (progressive disclosure). */
export const skillList = toolHandler({
  name: 'skill.list',
  handle(_args, { deps }) {
    return {
      skills: deps.review.skills
        .active()
        .map((s) => ({ slug: s.slug, name: s.name, description: s.description, version: s.version })),
    };
  },
});
