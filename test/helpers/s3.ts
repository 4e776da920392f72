import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from '@20minutes/s3rver';
import { fixS3rverSigV4 } from '../contract/s3rver-fixes.js';

/** A real S3-protocol server on 127.0.0.1 (s3rver, in-process), with one bucket; never a mock. */
export async function startS3(
  bucket = 'formcast-test',
): Promise<{ env: Record<string, string>; stop(): Promise<void> }> {
  fixS3rverSigV4();
  const dir = mkdtempSync(path.join(tmpdir(), 'formcast-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  // s3rver's built-in account; the service reads credentials through the standard AWS chain
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  return {
    env: { S3_BUCKET: bucket, S3_ENDPOINT: `http://127.0.0.1:${port}`, S3_REGION: 'us-east-1' },
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
