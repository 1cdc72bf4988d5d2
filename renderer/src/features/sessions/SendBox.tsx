import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/context';
import { ErrorBanner } from '../../shell/ErrorBanner';
import { MessageText } from './MessageText';

/** Sends a message through the session's inbox socket (never typed into its terminal). */
export function SendBox({ sessionId, disabled }: { sessionId: string; disabled: boolean }) {
  const api = useApi();
  const [text, setText] = useState('');
  const send = useMutation({
    mutationFn: () => api['sessions.sendMessage']({ session: sessionId, text }),
    onSuccess: () => setText(''),
  });
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    if (text) send.mutate();
  };
  return (
    <form className="send-box" onSubmit={submit} aria-label="Send a message">
      <MessageText
        value={text}
        onValue={setText}
        name="message"
        rows={2}
        placeholder="Message the agent"
        disabled={disabled}
      />
      <button type="submit" disabled={disabled || send.isPending || !text}>
        Send
      </button>
      {send.isSuccess ? (
        <span className="muted" data-testid="send-result">
          Delivered
        </span>
      ) : null}
      <ErrorBanner error={send.error} />
    </form>
  );
}
