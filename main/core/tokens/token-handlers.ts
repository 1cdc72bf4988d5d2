import type { Handlers } from '../handlers';
import type { TokenService } from './tokens';

export function tokenHandlers(tokens: TokenService): Pick<Handlers, 'tokens.create' | 'tokens.list' | 'tokens.revoke'> {
  return {
    'tokens.create': (input) => tokens.create(input.name, input.class, input.expiresInDays),
    'tokens.list': () => ({ tokens: tokens.list() }),
    'tokens.revoke': (input) => tokens.revoke(input.id),
  };
}
