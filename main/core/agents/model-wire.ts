/** The provider wire formats the model gateway reads usage from (each agent kind's driver says which it speaks). */
export type ModelWire = 'anthropic-messages' | 'openai-responses' | 'google-generate' | 'openai-chat';
