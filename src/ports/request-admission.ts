/**
 * Admission of an account's API requests into the server's main process (its one event loop), before the
 * body is read: where one account's cheap requests could otherwise crowd out another's (issue 27).
 */
export interface RequestAdmission {
  /**
   * Resolves when a request of `account` may go on, with the function that ends its turn (call it once,
   * when the answer is out or the client has gone). Rejects with AdmissionTimeoutError when it waited
   * too long, and with `signal`'s reason when the caller gave up first.
   */
  admit(account: string, signal: AbortSignal): Promise<() => void>;
}

/** A request waited longer than the admission allows: the service is saturated (503, Retry-After). */
export class AdmissionTimeoutError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('request not admitted in time');
    this.name = 'AdmissionTimeoutError';
  }
}

const done = () => {};

/** Admission off (MAIN_SHARE_SLOTS=0): every request goes on at once. */
export const openAdmission: RequestAdmission = { admit: async () => done };
