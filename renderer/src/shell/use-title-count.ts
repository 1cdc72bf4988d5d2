import { useEffect } from 'react';
import { windowTitle } from '../../../shared/attention-words';
import { useAttention } from '../features/overview/use-attention';

/** The page title carries the needs-you count: "(2) Nexus". */
export function useTitleCount(): void {
  const count = useAttention().data?.counts.needs_you ?? 0;
  useEffect(() => {
    document.title = windowTitle(count);
  }, [count]);
}
