import { describe, expect, it } from 'vitest';
import { accessLevels, allows, eventNames, events, delegatedReaches, opNames, operations } from './contract';

describe('contract', () => {
  it('names every operation <area>.<verb> and gives it schemas, a class and a summary', () => {
    for (const name of opNames) {
      expect(name).toMatch(/^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/);
      const op = operations[name];
      expect(accessLevels).toContain(op.access);
      expect(op.summary.length).toBeGreaterThan(10);
      expect(typeof op.input.safeParse).toBe('function');
      expect(typeof op.output.safeParse).toBe('function');
    }
  });

  it('decides for every operation its fleet reach, whether a phone may call it and who audits it', () => {
    for (const name of opNames) {
      const op = operations[name];
      expect(delegatedReaches, name).toContain(op.delegated);
      expect(typeof op.phone, name).toBe('boolean');
      expect(['dispatcher', 'service'], name).toContain(op.audit);
    }
  });

  it('opens to a delegated credential only operations its class already allows, and to a phone only what is not set-up', () => {
    for (const name of opNames) {
      const op = operations[name];
      // A delegated credential is an MCP token: never operator class.
      if (op.delegated !== 'refused') expect(op.access, name).not.toBe('operator');
      if (op.phone) expect(name, name).not.toMatch(/^(vault|secrets|tokens|connect|engines|remote|phone|fleet)\./);
    }
  });

  it('rejects unknown input fields on app.info (strict inputs)', () => {
    expect(operations['app.info'].input.safeParse({ extra: 1 }).success).toBe(false);
  });

  it('orders credential classes so a lower one never reaches a higher one', () => {
    expect(allows('read', 'write')).toBe(false);
    expect(allows('write', 'vault')).toBe(false);
    expect(allows('vault', 'operator')).toBe(false);
    expect(allows('vault', 'write')).toBe(true);
    expect(allows('operator', 'vault')).toBe(true);
  });

  it('defines a schema for every event', () => {
    expect(eventNames).toContain('app.status');
    for (const name of eventNames) expect(typeof events[name].parse).toBe('function');
  });
});
