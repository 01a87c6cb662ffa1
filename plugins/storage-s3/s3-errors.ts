/** What the AWS SDK attaches to an error that came from the service. */
interface ServiceError extends Error {
  $metadata?: { httpStatusCode?: number }
}

function statusOf(error: unknown): number | undefined {
  return (error as ServiceError | undefined)?.$metadata?.httpStatusCode
}

/** The object is absent (GetObject answers NoSuchKey, HeadObject a bare 404). A missing bucket is not this. */
export function isNotFound(error: unknown): boolean {
  const name = (error as Error | undefined)?.name
  return name === 'NoSuchKey' || name === 'NotFound' || (statusOf(error) === 404 && name !== 'NoSuchBucket')
}

/** The range starts at or after the end of the object (416). */
export function isInvalidRange(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'InvalidRange' || statusOf(error) === 416
}

/**
 * An error that names what failed: the SDK's own say "Access Denied" or "The specified
 * bucket does not exist" without the key or bucket. The original is its `cause`.
 */
export function serviceError(action: string, key: string, bucket: string, error: unknown): Error {
  const name = error instanceof Error ? error.name : 'Error'
  const message = error instanceof Error ? error.message : String(error)
  const status = statusOf(error)
  return new Error(
    `storage-s3 could not ${action} "${key}" in bucket "${bucket}": ${name}${status ? ` (HTTP ${status})` : ''}: ${message}`,
    { cause: error },
  )
}
