import type { Handlers } from '../handlers';
import type { SessionShip } from './ship-service';

type ShipOps = 'sessions.changes' | 'sessions.diff' | 'sessions.push';

/** Ship operations (a session's changes, its diff, its push), each a thin call into SessionShip. */
export function shipHandlers(ship: SessionShip): Pick<Handlers, ShipOps> {
  return {
    'sessions.changes': (input) => ship.summary(input.session),
    'sessions.diff': ({ session, ...page }) => ship.diff(session, page),
    'sessions.push': (input) => ship.push(input.session),
  };
}
