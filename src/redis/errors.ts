/** Errors of the Redis-backed stores and tools, and of their connection settings. */

/** Why a store operation against its backend failed. */
export type ContextStoreFailure = 'unreachable' | 'timeout' | 'authentication' | 'command';

/** The backend (Redis) failed or did not answer in time. Nothing was half-written. */
export class ContextStoreError extends Error {
  override readonly name = 'ContextStoreError';
  constructor(
    message: string,
    readonly details: {
      failure: ContextStoreFailure;
      /** `host:port` of the backend, never with credentials. */
      address: string;
      operation: string;
      cause?: unknown;
    },
  ) {
    super(message, { cause: details.cause });
  }
}

/** A session key, turn or option given to the store is not acceptable; `field` names which. */
export class InvalidContextInputError extends Error {
  override readonly name = 'InvalidContextInputError';
  constructor(
    readonly field: string,
    readonly issues: string[],
  ) {
    super(`Invalid ${field}: ${issues.join('; ')}`);
  }
}
