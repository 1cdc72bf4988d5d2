// The oauth room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { activityHandler } from './activity-handler';
export { remoteHandlers } from './remote-handlers';
export { RemoteService } from './remote-service';
export { RemoteSettings } from './remote-settings';
export {
  AUTHORIZATION_SERVER_METADATA_PATH,
  MCP_RESOURCE_PATH,
  OAUTH_PATHS,
  PROTECTED_RESOURCE_METADATA_PATH,
} from './remote-urls';
