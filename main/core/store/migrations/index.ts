import { migration001 } from './001_foundation';
import { migration002 } from './002_vault';
import { migration003 } from './003_platform_tools';
import { migration004 } from './004_workspaces';
import { migration005 } from './005_sessions';
import { migration006 } from './006_tokens';
import { migration007 } from './007_session_runs';
import { migration008 } from './008_agent';
import { migration009 } from './009_fleet';
import { migration010 } from './010_platform_agents';
import { migration020 } from './020_remote';
import { migration021 } from './021_engines';
import { migration023 } from './023_agent_kinds';
import { migration024 } from './024_phone';
import { migration025 } from './025_core_secrets';
import { migration026 } from './026_agent_kinds_open';
import { migration027 } from './027_tracker';
import { migration028 } from './028_review_talks_back';
import { migration029 } from './029_approval_rules';
import { migration031 } from './031_acp_sessions';
import { migration030 } from './030_model_gateway';
import { migration032 } from './032_repo_recipe';
import { migration033 } from './033_model_prices';
import { migration034 } from './034_usage_limits';
import { migration035 } from './035_egress';
import { migration036 } from './036_delegations';
import { migration037 } from './037_egress_credentials';
import { migration038 } from './038_ledger_indexes';
import type { Migration } from './types';

/**
 * Every migration, in order. Numbers are reserved per feature: 002 vault, 003 platform tools,
 * 004 workspaces, 005 sessions, 006 tokens; later ones take the next free number.
 */
export const migrations: readonly Migration[] = [
  migration001,
  migration002,
  migration003,
  migration004, // workspaces
  migration005, // sessions
  migration006, // tokens
  migration007, // session runs (platform tools for sessions)
  migration008, // agent credentials, per-workspace agent options
  migration009, // delegated credentials, now delegations (036): a workspace's sessions as MCP clients
  migration010, // platform agents: permissions, MCP servers, auto-start; sessions' tools reason
  migration020, // remote connectors: OAuth entries (hashed), pending approvals, grants, public origin
  migration021, // engines: remote Docker engines, a workspace's engine, SSH/TLS secret kinds
  migration023, // agent kinds: a session's agent (claude | codex), Codex's thread id, workspace defaults
  migration024, // the operator's phone: passkeys, one-time invites, signed-in sessions (hashed)
  migration025, // core's own secrets (delegated ones) sealed with the data key where the OS keychain does not answer
  migration026, // agent kinds as drivers: one default credential per kind, no kind CHECKs
  migration027, // the tracker: settings per workspace, a task's issue, the outbox, issues picked up
  migration028, // review that talks back: a session's checkpoints (one per turn) and comments on its diff lines
  migration029, // approval rules: the operator's allow / ask / deny rules and the grants from permission cards
  migration030, // the model gateway: sessions' gateway credentials (hashed), the usage ledger, token budgets
  migration031, // ACP sessions: core's link to each bridge, prompts waiting for a turn, the agent's updates; secrets' kind CHECK gone
  migration032, // the repo's recipe: devcontainer.json per workspace, session files, setup state, session ports
  migration033, // model prices: the operator's USD per million tokens per model (the usage estimate)
  migration034, // usage limits: a session's "limited until" (the provider's reset) and when the 429 came
  migration035, // egress by allow-list: a workspace confined to the internal network, its allow-list, refusals
  migration036, // delegations: fleet_credentials renamed (a workspace's delegation to Nexus's own MCP server)
  migration037, // egress on remote engines: a confined workspace's proxy credential (hashed)
  migration038, // the ledger's indexes by workspace and by day dropped (its reads use the daily sums)
];
