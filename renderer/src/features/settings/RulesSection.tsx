import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { RULE_PATTERN_HELP, type Rule, type RuleAction, type RuleTool } from '../../../../shared/contract/rules';
import { useApi } from '../../api/context';
import { useOpQuery } from '../../api/use-op-query';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { SettingsSection } from './SettingsSection';

const TOOLS: RuleTool[] = ['shell', 'read', 'edit', 'fetch', 'mcp', 'other', 'any'];

/**
 * Approval rules (docs/permissions.md): the operator's rules and the grants made from permission cards, each
 * revocable; the shipped defaults on request. Deny wins over ask, ask over allow.
 */
export function RulesSection() {
  const [defaults, setDefaults] = useState(false);
  const list = useOpQuery('rules.list', { every: true });
  const rules = (list.data?.rules ?? []).filter((r) => defaults || r.scope !== 'default');
  return (
    <SettingsSection id="rules" title="Approval rules">
      <p className="muted">
        Rules decide agents&apos; permission requests before they reach you. Deny wins over ask, ask over allow, and a
        call no rule decides is asked. The shipped defaults always ask for git push, history rewrites, deletes outside
        the worktree, credential reads, publishing and the hardline commands.
      </p>
      <ErrorBanner error={list.error} />
      <label>
        <input type="checkbox" checked={defaults} onChange={(e) => setDefaults(e.target.checked)} /> Show the shipped
        defaults
      </label>
      {rules.length === 0 && list.data ? <p className="muted">No rules of yours yet.</p> : null}
      {rules.length > 0 ? (
        <ul className="list" aria-label="Approval rules">
          {rules.map((r) => (
            <RuleItem key={r.id} rule={r} />
          ))}
        </ul>
      ) : null}
      <AddRuleForm />
    </SettingsSection>
  );
}

function RuleItem({ rule }: { rule: Rule }) {
  const api = useApi();
  const revoke = useMutation({ mutationFn: () => api['rules.remove']({ id: rule.id }) });
  return (
    <li data-testid="rule-item">
      <span className={`chip rule-${rule.action}`}>{rule.action}</span> <strong>{rule.tool}</strong>{' '}
      <code>{rule.pattern}</code> <span className="muted">{rule.scope === 'default' ? 'shipped' : rule.scope}</span>
      {rule.note ? <span className="muted"> — {rule.note}</span> : null}
      {rule.expiresAt ? <span className="muted"> · until {new Date(rule.expiresAt).toLocaleString()}</span> : null}
      {rule.decided ? <span className="muted"> · decided {rule.decided}</span> : null}
      {rule.scope === 'default' ? null : (
        <button type="button" disabled={revoke.isPending} onClick={() => revoke.mutate()}>
          Revoke
        </button>
      )}
      <ErrorBanner error={revoke.error} />
    </li>
  );
}

function AddRuleForm() {
  const api = useApi();
  const [action, setAction] = useState<RuleAction>('allow');
  const [tool, setTool] = useState<RuleTool>('shell');
  const [pattern, setPattern] = useState('');
  const [workspace, setWorkspace] = useState('');
  const add = useMutation({
    mutationFn: () =>
      api['rules.set']({
        scope: workspace ? 'workspace' : 'global',
        ...(workspace ? { workspace } : {}),
        action,
        tool,
        pattern,
      }),
    onSuccess: () => setPattern(''),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <form className="rule-form" onSubmit={submit} aria-label="Add a rule">
      <select aria-label="Action" value={action} onChange={(e) => setAction(e.target.value as RuleAction)}>
        <option value="allow">allow</option>
        <option value="ask">ask</option>
        <option value="deny">deny</option>
      </select>
      <select aria-label="Tool" value={tool} onChange={(e) => setTool(e.target.value as RuleTool)}>
        {TOOLS.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
      </select>
      <input
        aria-label="Pattern"
        title={RULE_PATTERN_HELP}
        value={pattern}
        onChange={(e) => setPattern(e.target.value)}
      />
      <input
        aria-label="Workspace (empty: every workspace)"
        placeholder="workspace (empty: all)"
        value={workspace}
        onChange={(e) => setWorkspace(e.target.value)}
      />
      <button type="submit" className="primary" disabled={!pattern.trim() || add.isPending}>
        Add rule
      </button>
      <ErrorBanner error={add.error} />
    </form>
  );
}
