import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3'
import type { S3Config } from './config.js'

/** Seconds to wait for a TCP connection to the service before the SDK retries. */
const CONNECT_TIMEOUT_MS = 10_000

/**
 * An S3 client for the configured service. `endpoint` overrides the client's own (for the
 * URLs clients fetch signed objects from).
 */
export function createS3Client(config: S3Config, endpoint = config.endpoint): S3Client {
  return new S3Client(s3ClientConfig(config, endpoint))
}

/** The settings of `createS3Client`, for libraries that make their own client (@tus/s3-store). */
export function s3ClientConfig(config: S3Config, endpoint = config.endpoint): S3ClientConfig {
  const agent = { keepAlive: true, maxSockets: config.max_sockets }
  return {
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
  }
}
