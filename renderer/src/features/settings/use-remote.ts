import { useQuery } from '@tanstack/react-query';
import type { OpName, OpOutput } from '../../../../shared/contract';
import { useApi } from '../../api/context';
import { useOperation } from '../../api/use-operation';

export const remoteStatusKey = ['remote.status'] as const;
export const remotePendingKey = ['remote.pending'] as const;
export const remoteGrantsKey = ['remote.grants'] as const;

/** How often the waiting connectors are asked for while this section is open (the phone is waiting). */
const PENDING_POLL_MS = 2000;

export function useRemoteStatus() {
  const api = useApi();
  return useQuery({ queryKey: remoteStatusKey, queryFn: () => api['remote.status']({}) });
}

export function useRemotePending(enabled: boolean) {
  const api = useApi();
  return useQuery({
    queryKey: remotePendingKey,
    queryFn: () => api['remote.pending']({}),
    enabled,
    refetchInterval: PENDING_POLL_MS,
  });
}

export function useRemoteGrants() {
  const api = useApi();
  return useQuery({ queryKey: remoteGrantsKey, queryFn: () => api['remote.grants']({}) });
}

/** A mutation on a remote operation that refreshes status, waiting connectors and grants afterwards. */
export const useRemoteOp = <K extends OpName>(name: K, onSuccess?: (result: OpOutput<K>) => void) =>
  useOperation(name, [remoteStatusKey, remotePendingKey, remoteGrantsKey], onSuccess);
