import { useEffect, useState } from 'react';
import { PUSHED_STALE_MS } from '../../api/context';
import { useOpQuery } from '../../api/use-op-query';
import { FIRST_RUN_DONE_KEY, firstRunSteps, type FirstRunStep } from './first-run';

const remembered = (): boolean => {
  try {
    return window.localStorage.getItem(FIRST_RUN_DONE_KEY) === 'done';
  } catch {
    return false;
  }
};

const remember = (): void => {
  try {
    window.localStorage.setItem(FIRST_RUN_DONE_KEY, 'done');
  } catch {
    // Storage refused (a private window): the checklist then hides only while all four hold.
  }
};

/**
 * The first-run steps while some are still to do; null once all four were done (then for good, in
 * this browser) or while the state is loading. Every input is kept live by push events, so a step
 * ticks itself when the thing it asks for happens, on whatever page it was done.
 */
export function useFirstRun(enabled: boolean): FirstRunStep[] | null {
  const [gone, setGone] = useState(remembered);
  const active = enabled && !gone;
  const app = useOpQuery('app.info', {}, { enabled: active });
  const agent = useOpQuery('agent.get', {}, { enabled: active });
  const workspaces = useOpQuery('workspaces.list', {}, { enabled: active });
  const sessions = useOpQuery('sessions.list', {}, { enabled: active, staleTime: PUSHED_STALE_MS });
  const steps =
    active && app.data && agent.data && workspaces.data && sessions.data
      ? firstRunSteps({
          vault: app.data.vault.state,
          agentCredential: agent.data.kinds.some((k) => k.defaultCredentialId !== null),
          workspaces: workspaces.data.workspaces.length,
          runningSessions: sessions.data.sessions.filter((s) => s.status === 'running').length,
        })
      : null;
  const allDone = steps?.every((s) => s.done) ?? false;
  useEffect(() => {
    if (!allDone) return;
    remember();
    setGone(true);
  }, [allDone]);
  return steps && !allDone ? steps : null;
}
