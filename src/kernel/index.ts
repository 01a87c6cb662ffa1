/** The kernel's public surface: plugins and the CLI import from here only. */
export {
  ConfigError,
  configFilePath,
  envOverrides,
  loadConfig,
  pluginConfig,
  type LoadConfigOptions,
} from './config/load.js'
export { UserError, type UserErrorOptions } from './errors.js'
export { warnMovedKeys } from './config/moved-keys.js'
export { validatePlugins } from './config/validate.js'
export { BACKENDS } from './config/plugin-selection.js'
export type { Config } from './config/schema.js'
export { columns, defineMigration, type MigrationDefinition } from './db/migration.js'
export { MIGRATIONS_TABLE, type MigrationStatus } from './db/migrator.js'
export { freeSlug, retryOnConflict } from './db/unique.js'
export { cascadingReference } from './db/relations.js'
export { afterCommit, transaction } from './db/transaction.js'
export { jsonColumn, transactionReader, type Reader, type Row } from './cache/reader.js'
export type { CacheOptions, ProcessCache } from './cache/process-cache.js'
export { unwatchTable, watchMigration, watchTable } from './cache/watch-table.js'
export { createDatabase } from './db/postgres-database.js'
export { databaseTarget, redactUrl, type EntityManager } from './db/orm.js'
export type { Emit, EventHandler, EventName, KernelEvents } from './events.js'
export { API_VERSION } from './http/app.js'
export {
  IMMUTABLE_CACHE,
  SCRIPT_TYPE,
  browserScript,
  browserScriptReply,
  scriptReply,
  type BrowserScript,
} from './http/browser-script.js'
export type { HttpContext } from './http/context.js'
export {
  HttpError,
  badRequest,
  forbidden,
  internalError,
  invalid,
  notFound,
  tooLarge,
  type FieldErrors,
} from './http/errors.js'
export type { Form, FormFile, FormValue } from './http/forms.js'
export type { LinkBuilder } from './http/links.js'
export type { Page } from './http/range.js'
export { byteHeaders, byteRange, validatorsOf } from './http/byte-range.js'
export { reply, type Reply } from './http/reply.js'
export { SafeHtml, errorPage, escapeHtml, html } from './http/page.js'
export type { Handler, RouteOptions, Router } from './http/router.js'
export { CONTROL_CHARACTERS } from './http/control-characters.js'
export { FieldReader } from './http/validate.js'
export { renderXml, xml, type TimestampDialect, type XmlNode } from './http/xml.js'
export { ensureKeyPair, ensureSecret, instancePaths, readSecret } from './instance.js'
export { Kernel, type Listening } from './kernel.js'
export { DependencyUnavailableError, EXIT_UNAVAILABLE } from './start-wait.js'
export { listenWhileStarting, type StartingServer } from './http/starting-server.js'
export { createLogger, type Logger } from './log.js'
export type { Counter, Histogram, PluginMetrics } from './metrics/metrics-registry.js'
export { clusterMetrics } from './metrics/metrics-cluster.js'
export { listenMetrics } from './metrics/metrics-server.js'
export {
  defineCommand,
  definePlugin,
  resolvePlugins,
  type CommandArg,
  type CommandContext,
  type CommandFlag,
  type CommandInput,
  type CommandOutput,
  type FlagValues,
  type PluginCommand,
  type PluginCatalog,
  type PluginContext,
  type PluginDefinition,
  type Seeder,
} from './plugin.js'
export type { CredentialsPort, DigestCredentials, Principal } from './ports/credentials.port.js'
export { SESSION_CSRF_HEADER, type SessionGrant, type SessionsPort } from './ports/sessions.port.js'
export { cookieValue } from './http/session-auth.js'
export { NONCE_COUNT_WINDOW, type NonceCounterPort } from './ports/nonce-counter.port.js'
export { RESUMABLE_UPLOAD_ID, type ResumableUploadsPort } from './ports/resumable-uploads.port.js'
export { checkResumableUploadId, finishedUpload, resumableUploadError } from './ports/resumable-uploads.checks.js'
export {
  StorageKeyError,
  StorageLimitError,
  StorageNotFoundError,
  type ByteRange,
  type StoragePort,
  type StoredStat,
  type WriteOptions,
} from './ports/storage.port.js'
export {
  checkByteRange,
  checkExpiry,
  checkStorageKey,
  checkStoragePrefix,
  emptyStream,
  isStorageKey,
} from './ports/storage.checks.js'
export { ByteCounter } from './ports/storage.limit.js'
export { serviceKey, type ServiceKey } from './plugin-services.js'
export { PollLoop } from './jobs/poll-loop.js'
export type { AcquireOptions, LockLease, LocksPort } from './ports/locks.port.js'
export { statePerProcess } from './state/shared-state.js'
export { LockWaiters } from './state/lock-waiters.js'
export {
  CANCELLABLE_STATES,
  JOB_STATES,
  RETRYABLE_STATES,
  PermanentJobError,
  type EnqueueOptions,
  type JobContext,
  type JobFilter,
  type JobHandler,
  type JobRecord,
  type JobState,
  type JobTransition,
  type JobTypeOptions,
} from './jobs/job.types.js'
export type { JobSignal, JobTaker, QueuePort } from './ports/queue.port.js'
export { Jobs, type JobsAdmin, type Reconciler } from './jobs/jobs.js'
export { MAX_PAYLOAD_BYTES } from './jobs/job-store.js'
export { jobConcurrency } from './jobs/job-registry.js'
export type {
  EncodeRequest,
  EncoderPort,
  LogoPlacement,
  LogoRequest,
  ProbeResult,
  ProbedStream,
  RenditionOutput,
} from './ports/encoder.port.js'
export type { Transcript, TranscriberPort, TranscriberStatus, TranscriptSegment } from './ports/transcriber.port.js'
export { signToken, tokensWith, type Tokens } from './signed-token.js'
export { INSTANCE_ADMIN_FLAG, isInstanceAdmin, requireFlag } from './authz/flags.js'
export { Authz, PLATFORM_ADMIN_FLAG } from './authz/authz.service.js'
export type { ObjectRef } from './authz/object-kinds.js'
export type { AccessGrantsPort } from './ports/access-grants.port.js'
