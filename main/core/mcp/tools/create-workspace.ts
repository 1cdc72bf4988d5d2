import { z } from 'zod';
import { Workspace, WorkspaceName } from '../../../../shared/contract';
import { defineTool } from '../tool';

export const createWorkspace = defineTool({
  name: 'create_workspace',
  title: 'Create a workspace',
  description:
    'Create a workspace: a container from the worker image holding a clone of the repository. Returns at once with status "creating"; poll get_workspace until it is "running". Needs a vault-class token.',
  ops: ['workspaces.create'],
  input: {
    name: WorkspaceName,
    repo_url: z.string().min(1).max(2000).describe('Repository URL to clone (https, http or a local path)'),
    secret_id: z.string().min(1).optional().describe('Id of the vault secret holding the provider token for the clone'),
    image: z.string().min(1).max(300).optional().describe('Worker image; the built-in one by default'),
    agent_secret_id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe(
        "Vault secret (Anthropic API key or Claude OAuth token) the workspace's agent signs in with; the default from Settings → Agent when omitted",
      ),
    bypass_permissions: z
      .boolean()
      .optional()
      .describe('Run its sessions in bypassPermissions; inbox messages to them are then held, not delivered'),
  },
  output: Workspace,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (args, call) =>
    call('workspaces.create', {
      name: args.name,
      repoUrl: args.repo_url,
      ...(args.secret_id !== undefined ? { secretId: args.secret_id } : {}),
      ...(args.image !== undefined ? { image: args.image } : {}),
      ...(args.agent_secret_id !== undefined ? { agentSecretId: args.agent_secret_id } : {}),
      ...(args.bypass_permissions !== undefined ? { bypassPermissions: args.bypass_permissions } : {}),
    }),
  summarize: (w) => `Workspace ${w.name} (${w.id}) is ${w.status}.`,
});
