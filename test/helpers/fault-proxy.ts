import net from 'node:net';

export type ProxyMode = 'pass' | 'blackhole' | 'refuse';

/**
 * A TCP proxy on loopback in front of a real server, whose way through can fail as networks do:
 * `blackhole` accepts connections and swallows every byte both ways (a store that never answers, also on
 * connections already open), `refuse` resets new connections and cuts open ones, `pass` forwards.
 */
export async function startFaultProxy(targetPort: number, targetHost = '127.0.0.1') {
  let mode: ProxyMode = 'pass';
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (mode === 'refuse') return void client.resetAndDestroy();
    const upstream = net.connect(targetPort, targetHost);
    track(upstream);
    client.on('data', (d) => mode === 'pass' && upstream.write(d));
    upstream.on('data', (d) => mode === 'pass' && client.write(d));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => mode !== 'blackhole' && client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setMode(next: ProxyMode) {
      mode = next;
      if (next === 'refuse') for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
