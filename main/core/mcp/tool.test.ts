import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { operations } from '../../../shared/contract';
import { inputFrom, mcpName } from './tool';
import { tools } from './tools';

/** Arguments only the MCP surface has (a tool that combines operations shapes its own). */
const mcpOnly: Record<string, string[]> = { get_nexus_info: ['detail', 'cursor', 'limit'] };
/** Contract fields a tool does not publish: the operator's or the UI's to set. */
const hidden: Record<string, string[]> = {
  create_workspace: ['delegation'],
  create_session: ['taskId'],
  // It reads today's usage only (usage.get naming neither a session nor a workspace).
  get_nexus_info: ['session', 'workspace'],
};

const fieldsOf = (op: string): Record<string, z.ZodType> =>
  (operations[op as keyof typeof operations].input as unknown as z.ZodObject).shape;

describe('MCP tool inputs', () => {
  it("take every argument from the contract input of the tool's operations (schema and description), unless MCP-only", () => {
    for (const tool of tools) {
      const derived = new Set<string>();
      const unpublished: string[] = [];
      for (const op of tool.ops) {
        for (const [field, schema] of Object.entries(fieldsOf(op))) {
          const published = tool.input[mcpName(field)];
          // A tool may make a field optional that only one of its operations needs (create_session's issue).
          if (published === schema || (published instanceof z.ZodOptional && published.unwrap() === schema))
            derived.add(mcpName(field));
          else if (!(mcpName(field) in tool.input) && !unpublished.includes(field)) unpublished.push(field);
        }
      }
      const own = Object.keys(tool.input).filter((name) => !derived.has(name));
      expect(own, tool.name).toEqual(mcpOnly[tool.name] ?? []);
      expect(unpublished, tool.name).toEqual(hidden[tool.name] ?? []);
    }
  });

  it('publishes snake_case names and hands the operation its camelCase input, leaving out what was not given', () => {
    const input = inputFrom('workspaces.create', { omit: ['delegation'] });
    expect(Object.keys(input.shape)).toEqual([
      'name',
      'repo_url',
      'secret_id',
      'image',
      'agent_secret_id',
      'bypass_permissions',
      'default_agent',
      'engine',
      'egress',
    ]);
    expect(input.toOp({ name: 'alpha', repo_url: '/r.git', secret_id: undefined, bypass_permissions: false })).toEqual({
      name: 'alpha',
      repoUrl: '/r.git',
      bypassPermissions: false,
    });
    expect(input.toOp({ name: 'alpha', repo_url: '/r.git', delegation: 'vault' })).not.toHaveProperty('delegation');
    expect(input.toOp({ name: 'alpha', repo_url: '/r.git', default_agent: 'codex' })).toMatchObject({
      defaultAgent: 'codex',
    });
    expect(Object.keys(inputFrom('sessions.diff', { pick: ['session', 'file'] }).shape)).toEqual(['session', 'file']);
  });
});
