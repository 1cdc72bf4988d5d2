// The phone room's public face: what the rest of Nexus may use of it (docs/architecture.md, "Rooms and faces").
export { createPhoneFront, type PhoneFront } from './phone-front';
export { phoneHandlers } from './phone-handlers';
export { PhoneService } from './phone-service';
