/** The text of a message to a session's agent: the first one of a new session, or one sent to a running session. */
export function MessageText(props: {
  value: string;
  onValue(v: string): void;
  name: string;
  rows: number;
  placeholder: string;
  disabled?: boolean;
}) {
  return (
    <textarea
      value={props.value}
      onChange={(e) => props.onValue(e.target.value)}
      name={props.name}
      rows={props.rows}
      placeholder={props.placeholder}
      disabled={props.disabled}
    />
  );
}
