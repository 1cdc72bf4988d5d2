import { SessionTerminals } from '../../main/core/sessions/terminal';
import type { WorkspaceRuntime } from '../../main/core/workspaces/runtime';
import { startHost, type Host } from '../../main/host/server';
import type { SessionRig } from './session-rig';
import { tempDir } from './temp-dir';
import { uiCookie } from './terminal-client';

/** A host whose /api/terminal serves the rig's sessions (the rig's own host serves core's), and the UI cookie for it. */
export async function terminalHost(
  rig: SessionRig,
  runtime: Pick<WorkspaceRuntime, 'exec' | 'attach'> = rig.runtime,
): Promise<{ host: Host; cookie: string; close(): Promise<void> }> {
  const dir = tempDir('nexus-terminal-host-');
  const core = rig.host.core;
  const terminals = new SessionTerminals({
    liveWindow: (id) => rig.service.liveWindow(id),
    runtime,
    config: rig.config,
    redactor: core.redactor,
    log: core.log,
  });
  const host = await startHost(core, { port: 0, rendererDir: dir.path, terminals });
  return {
    host,
    cookie: await uiCookie(host.url, host.token),
    close: async () => {
      await host.close();
      dir.remove();
    },
  };
}
