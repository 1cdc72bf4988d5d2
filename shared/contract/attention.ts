import { z } from 'zod';
import { FleetAttention } from '../attention';
import { operation } from './define';

export const attentionOperations = {
  'attention.get': operation({
    summary:
      'The fleet attention roll-up: what needs the operator (oldest first), what works, what idles, what is offline, and review-queue counts.',
    access: 'read',
    input: z.object({}).strict(),
    output: FleetAttention,
  }),
};

export const attentionEvents = {
  'attention.changed': FleetAttention,
};
