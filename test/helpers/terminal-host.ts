import { SessionTerminals } from '../../main/core/terminal/terminal';
import type { WorkspaceRuntime } from '../../main/core/workspaces/runtime';
import { startHost, type Host } from '../../main/host/server';
import type { SessionRig } from './session-rig';
import { tempDir } from './temp-dir';
import { uiCookie } from './terminal-client';

/** The rig's sessions' terminals (core's own serve core's sessions). */
export function rigTerminals(
  rig: SessionRig,
  runtime: Pick<WorkspaceRuntime, 'exec' | 'attach'> = rig.runtime,
): SessionTerminals {
  const core = rig.host.core;
  return new SessionTerminals({
    liveWindow: (id) => rig.service.liveWindow(id),
    runtime,
    config: rig.config,
    redactor: core.redactor,
    log: core.log,
  });
}

/** A host whose /api/terminal serves the rig's sessions (the rig's own host serves core's), and the UI cookie for it. */
export async function terminalHost(
  rig: SessionRig,
  runtime?: Pick<WorkspaceRuntime, 'exec' | 'attach'>,
): Promise<{ host: Host; cookie: string; close(): Promise<void> }> {
  const dir = tempDir('nexus-terminal-host-');
  const host = await startHost(rig.host.core, {
    port: 0,
    rendererDir: dir.path,
    terminals: rigTerminals(rig, runtime),
  });
  return {
    host,
    cookie: await uiCookie(host.url, host.token),
    close: async () => {
      await host.close();
      dir.remove();
    },
  };
}
