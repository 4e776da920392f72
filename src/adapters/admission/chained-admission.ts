import type { EndTurn, RequestAdmission } from '../../ports/request-admission.js';

/**
 * Two admissions in turn (bootstrap.ts: the unpaid-work budget, then the main-process share): a request
 * held by the first takes no place in the second. Its turn ends in both.
 */
export class ChainedAdmission implements RequestAdmission {
  constructor(
    readonly first: RequestAdmission,
    readonly second: RequestAdmission,
  ) {}

  async admit(account: string, signal: AbortSignal): Promise<EndTurn> {
    const endFirst = await this.first.admit(account, signal);
    let endSecond: EndTurn;
    try {
      endSecond = await this.second.admit(account, signal);
    } catch (err) {
      endFirst();
      throw err;
    }
    return (unpaidWork) => {
      endSecond(unpaidWork);
      endFirst(unpaidWork);
    };
  }
}
