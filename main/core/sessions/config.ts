import { z } from 'zod';

/** How sessions launch the agent inside a workspace. Every field has a default. */
export const SessionsConfig = z
  .object({
    /**
     * The default agent kind's command in place of its own CLI (unset: the kind's pinned CLI); tests point it at the
     * agent fixture, which brings its own binary and credential.
     */
    agentCommand: z.array(z.string().min(1)).min(1).optional(),
    /** Extra flags placed before the prompt (e.g. `--add-dir=/data`); checked by buildLaunchCommand. */
    agentArgs: z.array(z.string()).default([]),
    /**
     * A prompting mode for every session (inbox messages are delivered, not held). Unset: `auto`, or
     * `default` behind NEXUS_AGENT_BASE_URL (see agent/permission-mode.ts). bypassPermissions is a
     * per-workspace choice, never this setting.
     */
    permissionMode: z.enum(['auto', 'default', 'acceptEdits', 'plan', 'dontAsk']).optional(),
    /** `--mcp-config` file inside the container (the nexus-mcp bridge), when there is one. */
    mcpConfig: z.string().optional(),
    /** The platform-tools MCP bridge inside the container; each session's own --mcp-config runs it. */
    nexusMcpCommand: z.string().min(1).default('/opt/nexus/bin/nexus-mcp'),
    /** NEXUS_MCP_ENABLED=0 turns nexus-mcp off: sessions then run without platform tools (and say so). */
    nexusMcpEnabled: z.boolean().default(true),
    /**
     * One resident nexus-mcp per workspace container serving its Claude Code sessions over HTTP on
     * 127.0.0.1:<residentMcpPort> (launch/resident-mcp.ts); NEXUS_MCP_RESIDENT=0: a stdio nexus-mcp per session.
     */
    residentMcp: z.boolean().default(true),
    residentMcpPort: z.number().int().min(1024).max(65535).default(47_632),
    /** Name each session for Remote Control as "<workspace> · <name>". */
    remoteControl: z.boolean().default(true),
    /** The workspace's clone inside the container (the workspace volume). */
    repoDir: z.string().default('/workspace'),
    /** Session worktrees: on the workspace volume (survives restarts), excluded from the clone's status. */
    worktreesDir: z.string().default('/workspace/.nexus-worktrees'),
    /** The tmux session holding one window per agent session. */
    tmuxSession: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('nexus'),
    /**
     * Per-session files (launch script, inbox address) and the worker tools (hook command, inbox
     * helper, hook credentials). Under /tmp because the worker user (uid 1000) may write there and
     * nowhere else outside its home and the volume; cleared on restart, and rewritten by converge.
     */
    stateDir: z.string().default('/tmp/nexus-sessions'),
    toolsDir: z.string().default('/tmp/nexus-tools'),
    /** The workspace's hook relay listens on 127.0.0.1:<port> inside its container (sessions/hooks/hook-relay.ts). */
    hookRelayPort: z.number().int().min(1024).max(65535).default(47_631),
    /**
     * How long a send_message waits for the agent's inbox to take the message before reporting a timeout. Measured:
     * Claude Code 2.1.332 on a machine at load 30-50 took over 10 s to read and close the connection of a message it
     * then held; 30 s leaves room for a loaded machine and still answers a dead inbox in reasonable time.
     */
    sendTimeoutMs: z.number().int().positive().default(30_000),
    /** How long a PermissionRequest waits for the operator before the dialog stays in the terminal. */
    permissionWaitMs: z.number().int().positive().max(3_600_000).default(120_000),
  })
  .strict();
export type SessionsConfig = z.infer<typeof SessionsConfig>;
export type SessionsConfigInput = z.input<typeof SessionsConfig>;
