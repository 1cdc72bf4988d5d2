/** The part of oidc-provider 9 (a plain-JS package) that Nexus uses, typed narrowly. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface ProviderGrant {
    addResourceScope(resource: string, scope: string): void;
    addOIDCScope(scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }
  export interface ProviderAccessToken {
    jti: string;
    clientId: string;
    grantId: string;
    aud?: string | string[];
    scope?: string;
    expiresIn?: number;
  }
  export interface ProviderInteraction {
    uid: string;
    params: Record<string, unknown>;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    exp: number;
  }
  export interface ProviderClient {
    clientId: string;
    clientName?: string;
    clientSecret?: string;
    redirectUris: string[];
    /** The library's extension point for secrets not stored as given (its issue #631). */
    compareClientSecret(actual: string): boolean | Promise<boolean>;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<ProviderInteraction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      opts?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    Grant: (new (init: { accountId: string; clientId: string }) => ProviderGrant) & {
      find(id: string): Promise<ProviderGrant | undefined>;
    };
    AccessToken: { find(value: string): Promise<ProviderAccessToken | undefined> };
    Client: { find(id: string): Promise<ProviderClient | undefined>; prototype: ProviderClient };
  }
  export const errors: {
    InvalidTarget: new (description?: string) => Error;
    InvalidRedirectUri: new (description?: string) => Error;
    InvalidClientMetadata: new (description?: string) => Error;
  };
  export default Provider;
}
