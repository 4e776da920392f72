/**
 * Ends a request's turn (call it once, when the answer is out or the client has gone). `unpaidWork`: units
 * of work the request caused that no quota paid for (a refusal, a preview; http/admission.ts decides).
 */
export type EndTurn = (unpaidWork?: number) => void;

/**
 * Admission of an account's API requests into the server's main process (its one event loop), before the
 * body is read: where one account's cheap or failing requests could otherwise crowd out another's (issue 27).
 */
export interface RequestAdmission {
  /**
   * Resolves when a request of `account` may go on, with the function that ends its turn. Rejects with
   * AdmissionTimeoutError or UnpaidWorkLimitError when it waited too long, and with `signal`'s reason when
   * the caller gave up first.
   */
  admit(account: string, signal: AbortSignal): Promise<EndTurn>;
}

/** A request waited longer than the admission allows: the service is saturated (503, Retry-After). */
export class AdmissionTimeoutError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('request not admitted in time');
    this.name = 'AdmissionTimeoutError';
  }
}

/** The account has used its budget of unpaid work (refusals, previews) and waited too long (429, Retry-After). */
export class UnpaidWorkLimitError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('budget of refused and preview requests used up');
    this.name = 'UnpaidWorkLimitError';
  }
}

const done: EndTurn = () => {};

/** Admission off (MAIN_SHARE_SLOTS=0 and UNPAID_WORK_PER_MINUTE=0): every request goes on at once. */
export const openAdmission: RequestAdmission = { admit: async () => done };
