import { useEffect, useId, useRef, type ReactNode } from 'react';
import './dialog.css';

/**
 * The one modal of the app, on the native `<dialog>` opened with `showModal()`: the platform puts it
 * in the top layer, makes the rest of the page inert (focus stays inside) and closes it on Escape.
 * Mounted = open. Escape (or any native close) calls `onClose` — unless `busy`, while an answer is
 * awaited — and on unmount focus goes back to the element that opened it. The title gets a unique
 * id (`useId`) that labels the dialog. An element marked `data-autofocus` gets the first focus,
 * otherwise the platform's rule applies (the first focusable element).
 */
export function Dialog({
  title,
  onClose,
  busy,
  className,
  children,
}: {
  title: ReactNode;
  onClose: () => void;
  busy?: boolean;
  className?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const latest = useRef({ onClose, busy });
  latest.current = { onClose, busy };
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const cancel = (e: Event): void => {
      if (latest.current.busy) e.preventDefault();
    };
    const closed = (): void => latest.current.onClose();
    dialog.addEventListener('cancel', cancel);
    dialog.addEventListener('close', closed);
    if (!dialog.open) dialog.showModal();
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      dialog.removeEventListener('cancel', cancel);
      dialog.removeEventListener('close', closed);
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={titleId} className={className ? `modal ${className}` : 'modal'}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
