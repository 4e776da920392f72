// Thrown by validateData for render data (or render options) the service cannot use.
// Kept free of HTTP: the error handler maps it to 422 VALIDATION_ERROR with `details` as given.

import type { ValidationDetails } from '../../errors.js';

export class DataValidationError extends Error {
  readonly code = 'VALIDATION_ERROR' as const;

  constructor(
    /** `field`: the data key as sent (or "data", "options.locale", "options.timezone"); all strings. */
    readonly details: ValidationDetails,
    message: string,
  ) {
    super(message);
    this.name = 'DataValidationError';
  }
}
