// A client that closes its connection while its request waits for admission (admission.ts) is not a
// server fault: the error handler answers 499 (what the access log and the metrics then record) and logs
// it at info, where an unknown error is a 500 INTERNAL_ERROR logged at error level.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ClientGoneError } from '../../src/http/admission.js';
import { registerErrorHandler } from '../../src/http/error-handler.js';

async function answer(err: Error) {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream } });
  registerErrorHandler(app);
  app.get('/x', async () => {
    throw err;
  });
  const res = await app.inject({ method: 'GET', url: '/x' });
  await app.close();
  return {
    status: res.statusCode,
    logged: lines.filter((l) => l.msg !== 'incoming request' && l.msg !== 'request completed'),
  };
}

describe('a client gone while waiting for its turn', () => {
  it('is answered 499 and logged at info, not as an unexpected error', async () => {
    const gone = await answer(new ClientGoneError());
    expect(gone.status).toBe(499);
    expect(gone.logged.map((l) => [l.level, l.msg])).toEqual([
      [30, 'client left while its request waited for its turn'],
    ]);
    // what it was before: any other error
    const other = await answer(new Error('client closed the connection while waiting'));
    expect(other.status).toBe(500);
    expect(other.logged.map((l) => [l.level, l.msg])).toEqual([[50, 'unexpected error']]);
  });
});
