import type { Principal } from '../../src/kernel/index.js'
import type { FileType, MetadataValue } from '../metadata/index.js'

/** `encoding_status` words in code order: the upload answer shows the code (API-DECISIONS: Files and encoding). */
export const ENCODING_STATUSES = ['pending', 'waiting', 'running', 'success', 'failed', 'finished'] as const
export type EncodingStatus = (typeof ENCODING_STATUSES)[number]

/** The code of an `encoding_status` word (pending 0 ... finished 5). */
export const encodingCode = (status: EncodingStatus): number => ENCODING_STATUSES.indexOf(status)

/** The retry a waiting file waits for. */
export interface EncodingRetry {
  /** The attempt it waits for, from 2 (or 1 again after a run a shutdown put back). */
  attempt: number
  maxAttempts: number
  nextTry: Date
}

/** A stored file as the answers and other plugins see it (no ORM objects). */
export interface FileView {
  id: number
  slug: string
  /** A harmless display name (see `safeFileName`), at most 255 characters. */
  name: string
  /** Bytes of the uploaded original. */
  size: number
  /** Bytes stored for the file, renditions included: what quotas count. */
  storedBytes: number
  /** Decided from the content, never from the name. */
  type: FileType
  /** Media type sniffed from the first bytes (`application/octet-stream` when unknown). */
  mimeType: string
  encodingStatus: EncodingStatus
  /** 0 to 100; `finished` shows 100. */
  encodingProgress: number
  /** Why encoding failed, when it did. */
  encodingError: string | null
  /** While `waiting` for a retry (after a failed or interrupted run): which attempt, of how many, and when. */
  encodingRetry: EncodingRetry | null
  /** Storage key of the original bytes. */
  storageKey: string
  /** Storage prefix of everything stored for the file (original, renditions), ending with `/`. */
  storagePrefix: string
  metadata: Record<string, MetadataValue>
  userId: number
  username: string
  platformId: number
  /** The containing directory; null for the user's root (`/files`). */
  directoryId: number | null
  directorySlug: string | null
  createdAt: Date
}

/**
 * What other plugins show of a file in its answers (`file.describe`): the media pipeline
 * gives the thumbnail, the subtitles plugin the subtitles.
 */
export interface FileMedia {
  /** Absolute URL of the thumbnail; '' while there is none. */
  thumbnail: string
  /** The file's subtitles: ISO 639-1 code and API URL. */
  subtitles: { language: string; href: string }[]
}

/** A directory as the answers see it. The user's root is not a row: it is `null` everywhere. */
export interface DirectoryView {
  id: number
  slug: string
  name: string
  userId: number
  /** The parent directory; null when it sits in the root. */
  parentId: number | null
  parentSlug: string | null
}

/** Who uploads: the authenticated user, or the user an upload token was issued to. */
export type Uploader = Pick<Principal, 'id' | 'username' | 'platformId'>
