import type { AppStatus } from '../../../../shared/contract';

/**
 * The first run, from an empty screen to a running session: four steps, each ticked from what is
 * true in Nexus (never from a click), each linking to the form that does it.
 */
export interface FirstRunState {
  vault: AppStatus['vault']['state'];
  /** The agent's default credential (Claude's or Codex's) is chosen. */
  agentCredential: boolean;
  workspaces: number;
  runningSessions: number;
}

export interface FirstRunStep {
  id: 'vault' | 'credential' | 'workspace' | 'session';
  title: string;
  /** What to do there, in one sentence. */
  how: string;
  href: string;
  done: boolean;
}

export function firstRunSteps(state: FirstRunState): FirstRunStep[] {
  return [
    {
      id: 'vault',
      title: 'Set up the vault',
      how: 'It keeps your secrets encrypted; Settings → Vault sets it up.',
      href: '#/settings/vault',
      // A locked vault has been set up: unlocking it is a Needs-you item, not a first step.
      done: state.vault !== 'uninitialized',
    },
    {
      id: 'credential',
      title: 'Add an agent credential',
      how: 'Add an Anthropic API key (or a Claude OAuth token) under Settings → Secrets, then choose it under Settings → Agent.',
      href: '#/settings/agent',
      done: state.agentCredential,
    },
    {
      id: 'workspace',
      title: 'Create a workspace',
      how: 'A workspace is a container with your repository cloned in it: Workspaces → New workspace.',
      href: '#/workspaces',
      done: state.workspaces > 0,
    },
    {
      id: 'session',
      title: 'Start a session',
      how: 'A session is an agent at work in a workspace, with its first message: Sessions → New session.',
      href: '#/sessions',
      done: state.runningSessions > 0,
    },
  ];
}

/** Where the browser remembers that the first run is done, so the checklist stays gone afterwards. */
export const FIRST_RUN_DONE_KEY = 'nexus.firstRun.done';
