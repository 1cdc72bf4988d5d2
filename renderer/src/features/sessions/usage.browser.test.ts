import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../../shared/contract/sessions';
import type { ModelPrice, SessionUsage } from '../../../../shared/contract/usage';
import { RendererPages } from '../../../../test/helpers/renderer-page';

// Model use where the operator looks: the real renderer in Chromium against the contract stand-in
// (test/helpers/renderer-page.ts): the session list's rows, the session page, the Overview (desktop and phone) and
// Settings' price table, each with money called an estimate.
const at = '2026-12-05T21:00:00.000Z';
const session = (id: string, name: string): Session => ({
  id,
  workspaceId: 'w1',
  workspaceName: 'api',
  name,
  branch: `nexus/${name}`,
  agent: 'claude',
  status: 'running',
  reason: null,
  agentState: 'idle',
  agentStateAt: at,
  agentMessage: null,
  taskId: null,
  toolsReason: null,
  createdAt: at,
  updatedAt: at,
});
const totals = (input: number, output: number) => ({
  requests: 3,
  input,
  output,
  cacheWrite: 0,
  cacheRead: 0,
  total: input + output,
});
const spent: SessionUsage = {
  sessionId: 's1',
  totals: totals(1_000_000, 20_000),
  estimate: { usd: 3.3, unpricedModels: [], unpricedTokens: 0 },
};
const unpriced: SessionUsage = {
  sessionId: 's2',
  totals: totals(500, 20),
  estimate: { usd: 0, unpricedModels: ['house-model-7'], unpricedTokens: 520 },
};
const today = {
  totals: totals(1_000_500, 20_020),
  estimate: { usd: 3.3, unpricedModels: ['house-model-7'], unpricedTokens: 520 },
  budgets: [],
};
const listPrice: ModelPrice = {
  model: 'claude-sonnet-4-5',
  input: 3,
  output: 15,
  cacheWrite: 3.75,
  cacheRead: 0.3,
  origin: 'list',
  source: 'https://docs.anthropic.com/en/docs/about-claude/pricing',
  asOf: '2025-11',
  listPrice: null,
};

let pages: RendererPages;
beforeAll(async () => {
  pages = await RendererPages.launch();
});
afterAll(async () => {
  await pages?.close();
});

const answers = {
  'sessions.list': { sessions: [session('s1', 'spender'), session('s2', 'local'), session('s3', 'fresh')] },
  'usage.sessions': { sessions: [spent, unpriced] },
  'attention.get': {
    counts: { needs_you: 0, working: 0, idle: 3, offline: 0 },
    needsYou: [],
    sessions: [],
    review: { memories: 0, skills: 0 },
  },
  'usage.get': (input: unknown) =>
    (input as { session?: string }).session === 's1' ? { ...spent, budgets: [] } : today,
};

describe('model use and its estimate', () => {
  it('shows each session row’s tokens and ≈$, and the session page’s estimate', async () => {
    const p = await pages.open('#/sessions/s1', { answers });
    const row = (name: string) => p.page.locator(`.session-row[data-session="${name}"]`);
    await expect.poll(() => row('spender').getByTestId('session-usage').textContent()).toBe(' · 1.0M tok · ≈$3.30');
    expect(await row('local').getByTestId('session-usage').textContent()).toBe(' · 520 tok · ≈$0.00+?');
    expect(await row('local').getByTestId('session-usage').getAttribute('title')).toContain(
      'no price for house-model-7: 520 tokens not in it',
    );
    expect(await row('fresh').getByTestId('session-usage').count()).toBe(0);
    await expect
      .poll(() => p.page.locator('[data-testid="usage-facts"][aria-label="Model use"]').textContent())
      .toContain('1,020,000 tokens (1,000,000 in, 20,000 out) in 3 model requests, ≈ $3.30 (estimate)');
    await p.page.screenshot({ path: 'test-results/usage-sessions.png' });
    p.done();
  }, 60_000);

  it('shows today’s estimate on the Overview, on the desktop and on the phone', async () => {
    for (const phone of [false, true]) {
      const p = await pages.open('#/overview', { phone, answers });
      await expect
        .poll(() => p.page.getByTestId('usage-estimate').textContent(), { timeout: 20_000 })
        .toBe('≈ $3.30 (estimate; no price for house-model-7: 520 tokens not in it)');
      p.done();
    }
  }, 60_000);

  it('lists the prices with their source and date in Settings, and sets one', async () => {
    const p = await pages.open('#/settings', {
      answers: {
        'usage.prices': { prices: [listPrice] },
        'usage.setPrice': (input) => {
          const { model, price } = input as { model: string; price: Omit<ModelPrice, 'model'> };
          return {
            prices: [listPrice, { model, ...price, origin: 'operator', source: null, asOf: null, listPrice: null }],
          };
        },
      },
    });
    const row = p.page.locator('[data-testid="price-row"][data-model="claude-sonnet-4-5"]');
    await expect.poll(() => row.textContent()).toContain('$3$15$3.75$0.3list price as of 2025-11');
    const form = p.page.getByRole('form', { name: "Set a model's price" });
    await form.getByLabel('Model').fill('house-model*');
    const typed: [string, string][] = [
      ['Input', '0.5'],
      ['Output', '1'],
      ['Cache write', '0.5'],
      ['Cache read', '0.05'],
    ];
    for (const [label, value] of typed) await form.getByLabel(`${label} USD per million tokens`).fill(value);
    await form.getByRole('button', { name: 'Set price' }).click();
    await expect
      .poll(() => p.callsOf('usage.setPrice').map((c) => c.input))
      .toEqual([{ model: 'house-model*', price: { input: 0.5, output: 1, cacheWrite: 0.5, cacheRead: 0.05 } }]);
    await p.page.getByTestId('settings-prices').screenshot({ path: 'test-results/usage-prices.png' });
    p.done();
  }, 60_000);
});
