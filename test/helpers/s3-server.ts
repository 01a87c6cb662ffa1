import { type ChildProcess, fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The S3 endpoint tests use when MEDIACTL_TEST_S3_ENDPOINT and its companions are set. */
export const TEST_S3 = process.env.MEDIACTL_TEST_S3_ENDPOINT
  ? {
      endpoint: process.env.MEDIACTL_TEST_S3_ENDPOINT,
      bucket: process.env.MEDIACTL_TEST_S3_BUCKET ?? '',
      region: process.env.MEDIACTL_TEST_S3_REGION || 'us-east-1',
      access_key_id: process.env.MEDIACTL_TEST_S3_ACCESS_KEY_ID ?? '',
      secret_access_key: process.env.MEDIACTL_TEST_S3_SECRET_ACCESS_KEY ?? '',
      // Path style unless told otherwise: what self-hosted services need.
      force_path_style: process.env.MEDIACTL_TEST_S3_FORCE_PATH_STYLE !== 'false',
    }
  : undefined

/** A local S3-compatible server (s3rver) with one bucket, on a free port of 127.0.0.1. */
export interface LocalS3 {
  /** storage-s3 settings that reach it (s3rver's fixed credentials, path style). */
  config: {
    endpoint: string
    bucket: string
    access_key_id: string
    secret_access_key: string
    force_path_style: boolean
  }
  stop(): Promise<void>
}

/**
 * Starts s3rver in a child process, serving a fresh temporary folder. `multipart` adds the
 * ListParts and AbortMultipartUpload calls s3rver lacks (tus uploads need them).
 */
export async function startLocalS3(bucket = 'mediactl-test', options: { multipart?: boolean } = {}): Promise<LocalS3> {
  const dir = mkdtempSync(join(tmpdir(), 'mediactl-s3rver-'))
  const script = fileURLToPath(new URL('./s3rver-process.mjs', import.meta.url))
  const args = [dir, bucket, ...(options.multipart ? ['multipart'] : [])]
  const child: ChildProcess = fork(script, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port))
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`s3rver exited with code ${code} before listening`)))
  })
  return {
    config: {
      endpoint: `http://127.0.0.1:${port}`,
      bucket,
      access_key_id: 'S3RVER',
      secret_access_key: 'S3RVER',
      force_path_style: true,
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.disconnect()
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
