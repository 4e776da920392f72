export { createClient, type ClientOptions, type FormcastClient } from './client.js';
export type {
  Downloadable,
  PdfInput,
  RenderListQuery,
  TemplateListQuery,
  TemplateVersionListQuery,
  UploadOptions,
  WriteOptions,
} from './client.js';
export { FormcastError, parseRetryAfter } from './errors.js';
export { paginate, pages, type PageCursor } from './paginate.js';
export { retryingFetch, type RetryOptions } from './retry.js';
export type * from './types.js';
export type { components, operations, paths } from './generated/schema.js';
