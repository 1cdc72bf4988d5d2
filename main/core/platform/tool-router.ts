import { NexusError } from '../../../shared/errors';
import { CATALOG_REQUEST, offeredTools, toolChecks, type Catalog } from '../../../shared/platform-gating';
import { isToolName, platformTools, ToolRequest, type ToolName, type ToolReply } from '../../../shared/platform-tools';
import type { AuditLog } from '../audit';
import { toWireError } from '../dispatch';
import type { Logger } from '../log';
import type { Redactor } from '../redact';
import { describeIssues } from '../validation-message';
import { toolHandlers } from './handlers';
import type { ToolContext, ToolDeps, ToolHandler } from './handlers/tool-handler';
import type { CallerLookup } from './caller-lookup';
import type { Agent } from './store/agents';
import type { Run } from './store/runs';

/**
 * Executes one platform-tool call for a run. The caller is the run named by the NATS subject the
 * request arrived on (the server only lets that run's user publish there); nothing in the payload
 * can change who is calling. Each call sees the stored run and agent as the database holds them
 * (caller-lookup.ts reads them again whenever anything was committed).
 */
export class ToolRouter {
  constructor(
    private readonly callers: CallerLookup,
    private readonly deps: ToolDeps,
    private readonly redactor: Redactor,
    private readonly audit: AuditLog,
    private readonly log: Logger,
  ) {}

  async invoke(runId: string, payload: unknown): Promise<ToolReply> {
    let tool = 'unknown';
    try {
      const req = ToolRequest.safeParse(payload);
      if (!req.success) throw new NexusError('bad_request', 'A tool request is { "tool": "<name>", "args": { ... } }.');
      tool = req.data.tool;
      const { run, agent } = this.callers.get(runId);
      if (!run || run.status !== 'running')
        throw new NexusError('forbidden', 'This run is not running; platform tools are refused.');
      if (!agent) throw new NexusError('forbidden', 'The agent of this run no longer exists.');
      if (tool === CATALOG_REQUEST) return { result: this.catalog(agent, run) };
      if (!isToolName(tool)) throw new NexusError('not_found', `Unknown platform tool "${tool.slice(0, 100)}".`);
      if (agent.tools.length > 0 && !agent.tools.includes(tool)) {
        throw new NexusError('forbidden', `Tool "${tool}" is not in the allow-list of agent "${agent.name}".`);
      }
      const permission = toolChecks[tool].permission;
      if (permission && !agent.permissions.includes(permission))
        throw new NexusError('forbidden', `Agent "${agent.name}" lacks the "${permission}" permission for ${tool}.`);
      const result = await this.execute(tool, req.data.args ?? {}, { agent, run, deps: this.deps });
      return { result: this.redactor.value(result) };
    } catch (e) {
      const error = toWireError(e, `tool:${tool}`, { redactor: this.redactor, log: this.log });
      if (error.code === 'forbidden') {
        this.audit.record({
          actor: `run:${runId}`,
          transport: 'nats',
          operation: `tool:${tool.slice(0, 100)}`,
          outcome: error.code,
          durationMs: 0,
        });
      }
      return { error };
    }
  }

  /** The tools this run is offered: check (availability + permission) passes and the allow-list has it. */
  catalog(agent: Agent, run: Pick<Run, 'taskId'>): Catalog {
    const hasTask = run.taskId !== null && this.deps.tasks.get(run.taskId) !== null;
    return { tools: offeredTools({ tools: agent.tools, permissions: agent.permissions, hasTask }) };
  }

  private async execute<K extends ToolName>(name: K, rawArgs: unknown, ctx: ToolContext): Promise<unknown> {
    const def = platformTools[name];
    const args = def.args.safeParse(rawArgs);
    if (!args.success) {
      throw new NexusError('bad_request', `Invalid arguments for ${name}: ${describeIssues(args.error, 'arguments')}`);
    }
    const handler = toolHandlers[name] as ToolHandler<K>;
    return def.result.parse(await handler.handle(args.data as never, ctx));
  }
}
