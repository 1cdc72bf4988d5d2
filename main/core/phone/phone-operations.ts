import { opNames, operations, type OpName } from '../../../shared/contract';

/**
 * The only operations a phone signed in on the public origin may call (POST /api/rpc/<op> on the
 * public Host), as each operation declares (`phone` in the contract); any other operation name is no
 * route there (404), decided on the matched operation name before anything is read.
 */
export const PHONE_OPERATIONS: ReadonlySet<OpName> = new Set(opNames.filter((op) => operations[op].phone));

export const isPhoneOperation = (op: string): op is OpName => PHONE_OPERATIONS.has(op as OpName);
