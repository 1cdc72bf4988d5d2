import type { AttentionLevel } from '../../../../shared/attention';
import { levelWords } from '../../../../shared/attention-words';
import type { SessionFilter } from './session-filter';

const LEVELS: AttentionLevel[] = ['needs_you', 'working', 'idle', 'offline'];

/** The list's filters: all, or one attention level (with its count, in the Overview's words); a name search. */
export function SessionFilters({
  filter,
  counts,
  total,
  onChange,
}: {
  filter: SessionFilter;
  counts: Record<AttentionLevel, number>;
  total: number;
  onChange(next: SessionFilter): void;
}) {
  const choice = (level: SessionFilter['level'], label: string, count: number) => (
    <button
      key={level}
      type="button"
      className="filter-chip"
      data-level={level}
      aria-pressed={filter.level === level}
      onClick={() => onChange({ ...filter, level })}
    >
      {label} <span className="filter-count">{count}</span>
    </button>
  );
  return (
    <div className="session-filters">
      <div role="group" aria-label="Show sessions" className="filter-chips">
        {choice('all', 'All', total)}
        {LEVELS.map((level) => choice(level, levelWords[level], counts[level]))}
      </div>
      <input
        type="search"
        className="session-search"
        aria-label="Search sessions by name"
        placeholder="Search by name"
        value={filter.query}
        onChange={(e) => onChange({ ...filter, query: e.target.value })}
      />
    </div>
  );
}
