import { useState, type FormEvent } from 'react';
import type { ModelPrice, TokenPrice } from '../../../../shared/contract/usage';
import { useApi } from '../../api/context';
import { opKey } from '../../api/query-keys';
import { useOpQuery } from '../../api/use-op-query';
import { useOperation } from '../../api/use-operation';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { SettingsSection } from './SettingsSection';
import './prices.css';

const KINDS = [
  ['input', 'Input'],
  ['output', 'Output'],
  ['cacheWrite', 'Cache write'],
  ['cacheRead', 'Cache read'],
] as const satisfies readonly (readonly [keyof TokenPrice, string])[];

/** What a price change makes stale: the table and every estimate. */
const STALE = [opKey('usage.prices'), opKey('usage.get'), opKey('usage.sessions')];

/**
 * The price table of the usage estimate (docs/gateway.md, "Prices"): USD per million tokens per model, the shipped
 * list prices with their page and date, the operator's own over them; and the ledger as a CSV download.
 */
export function PricesSection() {
  const prices = useOpQuery('usage.prices', {});
  return (
    <SettingsSection id="prices" title="Model prices">
      <p className="muted">
        Money shown for model use is an estimate: the tokens the gateway counted (exact) at these prices, in USD per
        million tokens. The shipped rows are the providers&apos; list prices as of the date shown; change any of them,
        or price a model the list does not know (a name ending in * is a prefix). A model without a price is counted in
        tokens and named as unpriced, never guessed.
      </p>
      <ErrorBanner error={prices.error} />
      {prices.data ? (
        <table className="prices-table" aria-label="Model prices">
          <thead>
            <tr>
              <th>Model</th>
              {KINDS.map(([, label]) => (
                <th key={label}>{label}</th>
              ))}
              <th>Source</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {prices.data.prices.map((p) => (
              <PriceRow key={p.model} price={p} />
            ))}
          </tbody>
        </table>
      ) : null}
      <SetPriceForm />
      <UsageCsvDownload />
    </SettingsSection>
  );
}

function PriceRow({ price }: { price: ModelPrice }) {
  const remove = useOperation('usage.setPrice', STALE);
  return (
    <tr data-testid="price-row" data-model={price.model}>
      <td>
        <code>{price.model}</code>
      </td>
      {KINDS.map(([kind]) => (
        <td key={kind}>${price[kind]}</td>
      ))}
      <td className="muted">
        {price.origin === 'operator' ? 'yours' : null}
        {price.origin === 'operator' && price.source ? ' (list: ' : null}
        {price.source ? (
          <a href={price.source} target="_blank" rel="noreferrer">
            list price as of {price.asOf}
          </a>
        ) : null}
        {price.origin === 'operator' && price.source ? ')' : null}
      </td>
      <td>
        {price.origin === 'operator' ? (
          <button
            type="button"
            disabled={remove.isPending}
            onClick={() => remove.mutate({ model: price.model, price: null })}
          >
            {price.listPrice ? 'Back to list price' : 'Remove'}
          </button>
        ) : null}
        <ErrorBanner error={remove.error} />
      </td>
    </tr>
  );
}

function SetPriceForm() {
  const [model, setModel] = useState('');
  const [values, setValues] = useState<Record<keyof TokenPrice, string>>({
    input: '',
    output: '',
    cacheWrite: '',
    cacheRead: '',
  });
  const set = useOperation('usage.setPrice', STALE, () => setModel(''));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const price = Object.fromEntries(KINDS.map(([k]) => [k, Number(values[k])])) as TokenPrice;
    set.mutate({ model: model.trim(), price });
  };
  return (
    <form className="price-form" onSubmit={submit} aria-label="Set a model's price">
      <input
        aria-label="Model"
        placeholder="model (e.g. claude-sonnet-4-5)"
        value={model}
        onChange={(e) => setModel(e.target.value)}
      />
      {KINDS.map(([kind, label]) => (
        <input
          key={kind}
          aria-label={`${label} USD per million tokens`}
          placeholder={`${label} $/M`}
          inputMode="decimal"
          value={values[kind]}
          onChange={(e) => setValues((v) => ({ ...v, [kind]: e.target.value }))}
        />
      ))}
      <button
        type="submit"
        className="primary"
        disabled={!model.trim() || KINDS.some(([k]) => values[k].trim() === '') || set.isPending}
      >
        Set price
      </button>
      <ErrorBanner error={set.error} />
    </form>
  );
}

/** The ledger as CSV (one row per session and day), saved by the browser. */
function UsageCsvDownload() {
  const api = useApi();
  const [error, setError] = useState<Error | null>(null);
  const download = async () => {
    setError(null);
    try {
      const { csv, filename } = await api['usage.export']({});
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = filename;
      a.click();
      URL.revokeObjectURL(url);
    } catch (e) {
      setError(e instanceof Error ? e : new Error(String(e)));
    }
  };
  return (
    <p>
      <button type="button" onClick={() => void download()}>
        Download usage CSV
      </button>{' '}
      <span className="muted">one row per session and day: tokens, requests, estimated USD</span>
      <ErrorBanner error={error} />
    </p>
  );
}
