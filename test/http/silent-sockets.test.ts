// A socket that connected and sent nothing (a browser's preconnect, a load balancer's TCP check) must not
// hold the server's close(): Node's closeIdleConnections() leaves it, and close() then waited for
// headersTimeout (60 s). The server ends it at close; a request in flight still gets its whole answer.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { api, startServer } from '../helpers/server.js';

/** Resolves with what happened first: the socket closed by the other end, or `ms` passed. */
const closedWithin = (socket: net.Socket, ms: number) =>
  new Promise<'closed' | 'still open'>((resolve) => {
    const timer = setTimeout(() => resolve('still open'), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve('closed');
    });
  });

describe('closing the server with silent sockets open', () => {
  it('ends a socket that sent nothing, and one that sent half its headers, at close', async () => {
    const s = await startServer('sqlite');
    expect((await api(s, s.a).get('/v1/templates')).status).toBe(200);
    const { port } = new URL(s.url);
    const connect = async () => {
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      socket.on('error', () => {});
      return socket;
    };
    const silent = await connect();
    const half = await connect();
    half.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    const closing = s.close();
    // far below the 60 s headersTimeout that held close() before: not a timing bound, a verdict
    expect(await closedWithin(silent, 20_000)).toBe('closed');
    expect(await closedWithin(half, 20_000)).toBe('closed');
    await closing;
  });
});
