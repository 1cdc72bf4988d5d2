import type { SecretSummary } from '../../../../shared/contract';

/** Picks which vault secret an agent kind signs in with; "none" means that kind's sessions cannot start. */
export function CredentialPicker(props: {
  id: string;
  label: string;
  /** The option for no credential, saying what it means. */
  none: string;
  value: string | null | undefined;
  disabled: boolean;
  secrets: SecretSummary[];
  /** What kind of credential a secret is, as the operator knows it ("API key"). */
  describe: (secret: SecretSummary) => string;
  onChange: (secretId: string | null) => void;
}) {
  return (
    <div className="form-grid">
      <label htmlFor={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.value ?? ''}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.value || null)}
      >
        <option value="">{props.none}</option>
        {props.secrets.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name} ({props.describe(s)}
            {s.last4 ? ` ••••${s.last4}` : ''})
          </option>
        ))}
      </select>
    </div>
  );
}
