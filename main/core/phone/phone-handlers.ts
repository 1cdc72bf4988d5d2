import type { Handlers } from '../handlers';
import type { PhoneService } from './phone-service';

type PhoneOps = 'phone.status' | 'phone.setEnabled' | 'phone.invite' | 'phone.devices' | 'phone.revoke';

export function phoneHandlers(phone: PhoneService): Pick<Handlers, PhoneOps> {
  return {
    'phone.status': () => phone.status(),
    'phone.setEnabled': (input) => phone.setEnabled(input.enabled),
    'phone.invite': (input) => phone.invite(input.name),
    'phone.devices': () => ({ devices: phone.devices() }),
    'phone.revoke': (input) => phone.revoke(input.id),
  };
}
