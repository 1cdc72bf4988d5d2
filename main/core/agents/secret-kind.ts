import type { SecretKind } from '../../../shared/contract';

/**
 * A vault secret kind that signs an agent kind in, as its driver declares it: the kind (a well-formed
 * AgentCredentialKind, which the vault takes because a driver declares it) and what people call it ("Anthropic API
 * key"). Kinds sharing a key type declare it alike (the registry refuses two labels for one secret kind).
 */
export interface AgentSecretKind {
  readonly kind: SecretKind;
  readonly label: string;
}
