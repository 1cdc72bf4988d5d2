// The workspaces room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { QuotaConfig } from './config';
export type { Recipe } from './recipe/devcontainer';
export type { RecipeStore } from './recipe/recipe-store';
export { checkSecretHost, credentialHost } from './repo-url';
export type { WorkspaceInfo, WorkspaceRuntime, WorkspaceTarget } from './runtime';
export { gitUsername, type SecretSource } from './secret-source';
export type { WorkspaceEvents } from './workspace-events';
export { type WorkspaceDelegationStep, workspaceHandlers } from './workspace-handlers';
export type { WorkspaceService } from './workspace-service';
export { publicWorkspace, WorkspaceStore } from './workspace-store';
export { createWorkspaces, vaultSecretSource, type WorkspaceOptions, type Workspaces } from './workspaces';
