import type { BoardTask } from '../../../../shared/contract/platform';
import { EmptyState, Page } from '../../shell/Page';
import { IssueStart } from './IssueStart';
import { TaskCard } from './TaskCard';
import './board.css';
import { useBoard } from './use-board';
import { ErrorBanner } from '../../shell/ErrorBanner';

const columns: { status: BoardTask['status']; label: string }[] = [
  { status: 'ready_for_agent', label: 'Ready for an agent' },
  { status: 'in_progress', label: 'In progress' },
  { status: 'planned', label: 'Planned' },
  { status: 'done', label: 'Done' },
  { status: 'cancelled', label: 'Cancelled' },
];

/** The board: tasks by status with the agents' comments, live. */
export function BoardPage() {
  const board = useBoard();
  const tasks = board.data?.tasks ?? [];
  return (
    <Page title="Board">
      <IssueStart />
      {board.isPending ? <p>Loading…</p> : null}
      <ErrorBanner error={board.error} />
      {board.data && tasks.length === 0 ? (
        <EmptyState title="No tasks yet">
          <p>Each session runs on a task; the tasks agents split off or delegate show up here too.</p>
        </EmptyState>
      ) : null}
      {columns.map(({ status, label }) => {
        const here = tasks.filter((t) => t.status === status);
        if (here.length === 0) return null;
        return (
          <section key={status} aria-labelledby={`board-${status}`}>
            <h2 id={`board-${status}`}>
              {label} ({here.length})
            </h2>
            <ul className="list">
              {here.map((t) => (
                <TaskCard key={t.id} task={t} />
              ))}
            </ul>
          </section>
        );
      })}
    </Page>
  );
}
