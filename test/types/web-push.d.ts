// The two functions of web-push 3.6.7 Nexus uses (it ships no types).
declare module 'web-push' {
  export interface PushSubscription {
    endpoint: string;
    keys: { p256dh: string; auth: string };
  }
  export interface RequestDetails {
    method: string;
    headers: Record<string, string>;
    body: Buffer | null;
    endpoint: string;
  }
  export function generateVAPIDKeys(): { publicKey: string; privateKey: string };
  export function generateRequestDetails(
    subscription: PushSubscription,
    payload: string | Buffer,
    options: {
      vapidDetails: { subject: string; publicKey: string; privateKey: string };
      TTL?: number;
      contentEncoding?: 'aes128gcm';
      urgency?: 'very-low' | 'low' | 'normal' | 'high';
      topic?: string;
    },
  ): RequestDetails;
  const webPush: { generateVAPIDKeys: typeof generateVAPIDKeys; generateRequestDetails: typeof generateRequestDetails };
  export default webPush;
}
