// The oauth room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { activityHandler } from './activity-handler';
export { connectorHandlers } from './connector-handlers';
export { ConnectorService } from './connector-service';
export { PublicOriginStore } from './public-origin-store';
export {
  AUTHORIZATION_SERVER_METADATA_PATH,
  MCP_RESOURCE_PATH,
  OAUTH_PATHS,
  PROTECTED_RESOURCE_METADATA_PATH,
} from './public-urls';
