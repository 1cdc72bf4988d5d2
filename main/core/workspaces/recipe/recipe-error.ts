import { NexusError } from '../../../../shared/errors';

/** Why a repository's devcontainer.json cannot be a workspace's recipe (docs/workspaces.md, "The repo's recipe"). */
export type RecipeRefusal =
  | 'bad_file'
  | 'unsupported'
  | 'features_unreachable'
  | 'image_missing'
  | 'build_failed'
  | 'no_glibc'
  | 'no_shell'
  | 'post_command_failed';

/**
 * A refused recipe: a `bad_request` (the repository asks what Nexus cannot do) or `unavailable` (a build,
 * a registry, a post-create command failed) with the reason in the operator's words and its kind for tests and UI.
 */
export class RecipeError extends NexusError {
  constructor(
    readonly refusal: RecipeRefusal,
    message: string,
  ) {
    super(
      refusal === 'build_failed' || refusal === 'features_unreachable' || refusal === 'post_command_failed'
        ? 'unavailable'
        : 'bad_request',
      message,
    );
  }
}
