// Child process that drives the load with autocannon, so the load generator neither shares the server's
// event loop nor counts in its memory. Receives its job over IPC, answers with raw per-request
// latencies (autocannon's own summary has no p95) and the counts.
import autocannon from 'autocannon';

export interface LoadJob {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  seconds: number;
}

export interface LoadAnswer {
  latencies: number[];
  seconds: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<number, number>;
}

process.once('message', (job: LoadJob) => {
  const latencies: number[] = [];
  const statusCodes: Record<number, number> = {};
  const instance = autocannon(
    {
      url: job.url,
      method: 'POST',
      headers: job.headers,
      body: job.body,
      connections: job.connections,
      duration: job.seconds,
      timeout: 60,
      pipelining: 1,
    },
    (err, result) => {
      if (err) {
        process.send!({ error: err.message }, () => process.exit(1));
        return;
      }
      const answer: LoadAnswer = {
        latencies,
        seconds: result.duration,
        ok: result['2xx'],
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        statusCodes,
      };
      process.send!(answer, () => process.exit(0));
    },
  );
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
});
