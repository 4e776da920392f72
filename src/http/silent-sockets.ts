import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

// On close, Node's closeIdleConnections() ends keep-alive sockets between requests, but not a socket that
// has sent nothing yet (a browser's preconnect, a load balancer's TCP check, a stray client): server.close()
// then waits for headersTimeout (60 s) before SIGTERM can finish. Such sockets are ended here at close;
// a socket with a request in flight is left to finish its answer, then ended.
export function closeSilentSocketsOnClose(app: FastifyInstance): void {
  const sockets = new Set<Socket>();
  const busy = new WeakSet<Socket>();
  let closing = false;
  app.server.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.server.on('request', (req, res) => {
    const socket = req.socket;
    busy.add(socket);
    res.once('close', () => {
      busy.delete(socket);
      // an answer that was still going out when close() began: its socket is idle now, and close()
      // checked for idle sockets only once
      if (closing) socket.destroySoon();
    });
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of sockets) if (!busy.has(socket)) socket.destroy();
  });
}
