import { useOpQuery } from '../../api/use-op-query';

const size = (bytes: number): string =>
  bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(1)} GB`
    : bytes >= 1024 ** 2
      ? `${(bytes / 1024 ** 2).toFixed(1)} MB`
      : `${Math.round(bytes / 1024)} KB`;

/** A running workspace's disk use (its volume; the session worktrees in the title), measured on open or by hand. */
export function DiskUse({ workspaceId }: { workspaceId: string }) {
  const disk = useOpQuery('workspaces.disk', { workspace: workspaceId }, { retry: false, staleTime: 60_000 });
  if (!disk.data) return null;
  const worktrees = disk.data.worktrees.map((w) => `${w.name}: ${size(w.bytes)}`).join(', ');
  return (
    <button
      type="button"
      className="link muted"
      data-testid="workspace-disk"
      title={worktrees ? `Session worktrees — ${worktrees}` : 'No session worktrees'}
      onClick={() => void disk.refetch()}
    >
      {size(disk.data.bytes)} on disk
    </button>
  );
}
