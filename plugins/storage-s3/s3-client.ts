import { S3Client } from '@aws-sdk/client-s3'
import type { S3Config } from './config.js'

/** Seconds to wait for a TCP connection to the service before the SDK retries. */
const CONNECT_TIMEOUT_MS = 10_000

/**
 * An S3 client for the configured service. `endpoint` overrides the client's own (for the
 * URLs clients fetch signed objects from).
 */
export function createS3Client(config: S3Config, endpoint = config.endpoint): S3Client {
  const agent = { keepAlive: true, maxSockets: config.max_sockets }
  return new S3Client({
    endpoint: endpoint || undefined,
    region: config.region,
    forcePathStyle: config.force_path_style,
    credentials: config.access_key_id
      ? { accessKeyId: config.access_key_id, secretAccessKey: config.secret_access_key }
      : undefined,
    // Newer SDKs add CRC checksums (aws-chunked trailers) to every upload, which many
    // S3-compatible services refuse: compute and check them only where the API requires it.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    // No socket timeout: a read streaming to a slow client may rightly pause for long.
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, httpAgent: agent, httpsAgent: agent },
  })
}
