import { useEngines } from './use-engines';

/** The engine a new workspace goes on: automatic (the reachable one with the fewest running sessions) or one named. */
export function EngineField({ value, onChange }: { value: string; onChange(engine: string): void }) {
  const engines = useEngines();
  const list = engines.data?.engines ?? [];
  if (list.length < 2) return null;
  return (
    <label className="field">
      Engine
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid="workspace-engine">
        <option value="">Automatic (the reachable engine with the fewest running sessions)</option>
        {list.map((e) => (
          <option key={e.id} value={e.id} disabled={e.state !== 'reachable'}>
            {e.name} — {e.state === 'reachable' ? `${e.runningWorkspaces} running` : e.state.replace(/_/g, ' ')}
          </option>
        ))}
      </select>
      <small>The workspace and its volume live on this engine for good.</small>
    </label>
  );
}

/** The engine a workspace lives on, shown beside it when there is more than one engine. */
export function EngineTag({ engine }: { engine: string }) {
  const engines = useEngines();
  const list = engines.data?.engines ?? [];
  if (list.length < 2 && engine === 'local') return null;
  const name = engine === 'local' ? 'local' : (list.find((e) => e.id === engine)?.name ?? engine.slice(0, 8));
  return (
    <span className="chip chip-muted" data-testid="workspace-engine-tag" title="Docker engine">
      on {name}
    </span>
  );
}
