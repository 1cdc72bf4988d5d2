import { describe, expect, it } from 'vitest';
import { mergeHandlers, type Handlers } from './handlers';

const info: Pick<Handlers, 'app.info'> = {
  'app.info': () => {
    throw new Error('not called');
  },
};

describe('merging the modules’ handler maps', () => {
  it('keeps every operation of every map', () => {
    const merged = mergeHandlers(info, { 'attention.get': () => Promise.reject(new Error('not called')) });
    expect(Object.keys(merged).sort()).toEqual(['app.info', 'attention.get']);
    expect(merged['app.info']).toBe(info['app.info']);
  });

  it('throws when two modules answer the same operation, instead of the later one winning silently', () => {
    const create: Pick<Handlers, 'workspaces.create'> = { 'workspaces.create': () => Promise.reject(new Error('a')) };
    const again: Pick<Handlers, 'workspaces.create'> = { 'workspaces.create': () => Promise.reject(new Error('b')) };
    expect(() => mergeHandlers(create, info, again)).toThrow(/Two handlers for operation "workspaces.create"/);
  });
});
