import { AgentDrivers, type AgentDriver } from '../../main/core/agents';
import type { AgentKindConfig, AgentLaunchConfig } from '../../main/core/agents/driver';
import { SessionsConfig } from '../../main/core/sessions/config';

/**
 * The registry's drivers as a core builds them, for tests that build parts of core by hand: the sessions config's
 * launch settings (default: the shipped ones), each kind's settings (`kinds`), no data dir of Nexus's own.
 */
export function testDrivers(
  launch: AgentLaunchConfig = SessionsConfig.parse({}),
  kinds: Record<string, AgentKindConfig> = {},
): AgentDrivers {
  return new AgentDrivers({ dataDir: '/nonexistent/nexus-test-data', launch, kinds });
}

/** The default kind's driver (what a session gets when nothing names a kind). */
export const defaultDriver = (launch?: AgentLaunchConfig): AgentDriver => testDrivers(launch).default;
