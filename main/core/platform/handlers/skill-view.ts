import { NexusError } from '../../../../shared/errors';
import { toolHandler } from './tool-handler';

/** skill.view: the full markdown of the active version of one skill (never a draft). */
export const skillView = toolHandler({
  name: 'skill.view',
  handle(args, { deps }) {
    const s = deps.review.skills.activeBySlug(args.slug);
    if (!s)
      throw new NexusError('not_found', `No approved skill "${args.slug}". Use skill.list to see the approved ones.`);
    return { slug: s.slug, name: s.name, description: s.description, version: s.version, markdown: s.markdown };
  },
});
