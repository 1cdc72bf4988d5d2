import type { TrackerKind } from '../../../shared/contract/tracker';
import { GitHubTracker } from './github';
import { RedmineTracker } from './redmine';
import type { Tracker } from './tracker-port';

/** One line per tracker: its kind, and how its adapter is made from the settings and the secret's value. */
export const trackerAdapters: Record<TrackerKind, (url: string, project: string, secret: string) => Tracker> = {
  redmine: (url, project, secret) => new RedmineTracker(url, project, secret),
  github: (url, project, secret) => new GitHubTracker(url, project, secret),
};
