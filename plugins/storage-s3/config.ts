import { z } from 'zod'

const MiB = 1024 * 1024

/** An endpoint: empty, or an http(s) URL. */
const endpoint = z.union([
  z.literal(''),
  z.string().regex(/^https?:\/\/[^/\s]+(\/\S*)?$/i, 'empty, or an http:// or https:// URL'),
])

/** Characters S3 documents as safe in object keys, in `/`-separated segments. */
const SAFE_PREFIX = /^(?:[A-Za-z0-9!_.*'()-]+\/)*$/

/** The `storage-s3` config slice. */
export const s3ConfigSchema = z
  .object({
    /**
     * URL of the S3-compatible service (`https://s3.example.org`, `http://127.0.0.1:9000`);
     * empty: Amazon S3 in `region`.
     */
    endpoint: endpoint.default(''),
    /** Bucket holding the objects; it must exist. */
    bucket: z
      .string({ required_error: 'required: the name of an existing bucket' })
      .min(3, 'a bucket name of 3 to 63 characters')
      .max(63, 'a bucket name of 3 to 63 characters'),
    /** Region of the bucket; most other services accept any, `us-east-1` by convention. */
    region: z.string().min(1).default('us-east-1'),
    /** Access key id; empty (with an empty secret): the AWS SDK's usual sources (AWS_* variables, ~/.aws, instance role). */
    access_key_id: z.string().default(''),
    /** Secret access key, set together with access_key_id. Prefer MEDIACTL_STORAGE_S3__SECRET_ACCESS_KEY to the file. */
    secret_access_key: z.string().default(''),
    /** Path-style URLs (`<endpoint>/<bucket>/<key>`) instead of `<bucket>.<endpoint>/<key>`; most self-hosted services need true. */
    force_path_style: z.boolean().default(false),
    /** Prepended to every key so several instances can share a bucket: empty, or segments ending with `/` (`mediactl/`). */
    prefix: z
      .string()
      .regex(SAFE_PREFIX, 'empty, or path segments ending with "/" (for example mediactl/)')
      .default(''),
    /** Bytes per part of a multipart upload (5 MiB to 5 GiB). An object has at most 10,000 parts. */
    part_size: z
      .number()
      .int()
      .min(5 * MiB)
      .max(5 * 1024 * MiB)
      .default(8 * MiB),
    /** Parts of one write sent at once. A write in flight holds a few times part_size × (queue_size + 1) in memory (about 50 MiB with the defaults). */
    queue_size: z.number().int().min(1).max(16).default(2),
    /** Most connections to the service at once; every read streaming to a client holds one while it lasts. */
    max_sockets: z.number().int().min(1).default(256),
    /** Whether to hand out presigned URLs; false: files are always served through the API. */
    signed_urls: z.boolean().default(true),
    /** The endpoint clients reach, when it differs from `endpoint` (a private address); used in signed URLs only. */
    public_endpoint: endpoint.default(''),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (Boolean(config.access_key_id) !== Boolean(config.secret_access_key)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [config.access_key_id ? 'secret_access_key' : 'access_key_id'],
        message: 'set access_key_id and secret_access_key together (or neither, to use the AWS SDK defaults)',
      })
    }
  })

/** The validated `storage-s3` settings. */
export type S3Config = z.infer<typeof s3ConfigSchema>
