/**
 * Tells this instance's job runner that new jobs may be due (an async render or a batch was accepted). A no-op
 * until a runner listens: the runner connects in the composition root (bootstrap.ts).
 */
export interface JobSignal {
  wake(): void;
  /** the runner connects here (bootstrap) */
  listen?(fn: () => void): void;
}
