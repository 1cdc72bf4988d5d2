/** Errors from core keep their code so the UI can react to `vault_locked`, `docker_unavailable`, ... */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const toApiError = (e: unknown): ApiError =>
  e instanceof ApiError
    ? e
    : typeof e === 'object' && e !== null && 'code' in e && 'message' in e
      ? new ApiError(String((e as { code: unknown }).code), String((e as { message: unknown }).message))
      : new ApiError('internal', e instanceof Error ? e.message : String(e));
