import { describe, expect, it } from 'vitest';
import { operations } from '../../../shared/contract';
import { fieldErrors } from './schema-form';

const session = operations['sessions.create'].input;
const workspace = operations['workspaces.create'].input;

describe('fieldErrors', () => {
  it('refuses a session name git cannot use as a branch, with the rule the contract states', () => {
    expect(fieldErrors(session, { workspace: 'w', name: 'a..b' })).toEqual({ name: 'not a valid branch name' });
    expect(fieldErrors(session, { workspace: 'w', name: 'fix.lock' })).toEqual({ name: 'not a valid branch name' });
  });

  it('names the character rule for a session name with capitals', () => {
    expect(fieldErrors(session, { workspace: 'w', name: 'Fix-Auth' }).name).toMatch(/lowercase letters/);
  });

  it('says a field the contract needs is required when it is left empty', () => {
    expect(fieldErrors(workspace, { name: 'ok', repoUrl: '' })).toEqual({ repoUrl: 'required' });
    expect(fieldErrors(session, { workspace: 'w', name: '' })).toEqual({ name: 'required' });
  });

  it('refuses a workspace name ending with a dash and accepts a valid form', () => {
    expect(fieldErrors(workspace, { name: 'my-', repoUrl: 'https://x/y.git' }).name).toMatch(/not starting or ending/);
    expect(fieldErrors(workspace, { name: 'my-project', repoUrl: '/srv/repo' })).toEqual({});
  });
});
