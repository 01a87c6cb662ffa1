import { type KeyObject, constants, createPrivateKey, privateDecrypt, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { HttpError, type HttpContext, type Router, instancePaths, reply } from '../../src/kernel/index.js'
import { hashPassword, verifyPassword } from '../../src/shared/password.js'
import { userQueries } from './user.queries.js'
import { currentProfile, requireHeld, visibleUser } from './identity.lookup.js'
import { redirectionXml } from './user.xml.js'
import type { IdentityDeps } from './identity.deps.js'

/** The installation's RSA key pair (made by `mediactl init` in `<data_dir>/keys/`). */
export interface InstallationKeys {
  privateKey: KeyObject
  /** The public key, PEM (SPKI), as served. */
  publicPem: string
}

const loaded = new Map<string, InstallationKeys>()

/**
 * The key pair of the installation whose data dir is `dataDir`, read and parsed once (per
 * data dir: tests run several installations in one process). Throws a clear error naming the
 * files and the fix when they are missing or unreadable.
 */
export function loadInstallationKeys(dataDir: string): InstallationKeys {
  const cached = loaded.get(dataDir)
  if (cached) return cached
  const paths = instancePaths(dataDir)
  let keys: InstallationKeys
  try {
    keys = {
      privateKey: createPrivateKey(readFileSync(paths.privateKey)),
      publicPem: readFileSync(paths.publicKey, 'utf8'),
    }
  } catch (error) {
    throw new Error(
      `the installation's RSA key pair (${paths.privateKey}, ${paths.publicKey}) cannot be read: ${(error as Error).message}; run "mediactl init" to create it`,
    )
  }
  loaded.set(dataDir, keys)
  return keys
}

/**
 * The key pair for a request. Loaded on first use rather than at boot, so that commands
 * that boot the kernel without serving (doctor, migrate, the route table for the docs)
 * work on an instance not initialized yet; a server without keys answers 503, not 500,
 * and logs the fix.
 */
function keysFor(c: HttpContext, dataDir: string): InstallationKeys {
  try {
    return loadInstallationKeys(dataDir)
  } catch (error) {
    c.log.error({ err: error }, 'password checks unavailable')
    throw new HttpError(
      503,
      'Password checks are not set up on this installation: its operator must run "mediactl init".',
    )
  }
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/
/** Largest cipher accepted: one block of a 8192-bit key. */
const MAX_CIPHER_BYTES = 1024

/**
 * The password inside a hex cipher made with the installation's public key, RSA-OAEP with
 * SHA-1 (node's and OpenSSL's default) or SHA-256; undefined when it is not hex or does not
 * decrypt with either.
 */
export function decryptCipher(key: KeyObject, hex: string): string | undefined {
  if (!HEX.test(hex) || hex.length > MAX_CIPHER_BYTES * 2) return undefined
  const data = Buffer.from(hex, 'hex')
  for (const oaepHash of ['sha1', 'sha256']) {
    try {
      return privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash }, data).toString('utf8')
    } catch {
      // Wrong padding hash (or garbage): try the next one.
    }
  }
  return undefined
}

/** `cipher` from the request header of that name, else from the query string. */
function cipherOf(c: HttpContext): string | undefined {
  const header = c.req.headers.cipher
  const value = (Array.isArray(header) ? header[0] : header) ?? c.query().cipher
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

// Users without a password are checked against this, so they cost the same time as the others.
let decoy: Promise<string> | undefined

const WRONG = 'Wrong password, or the user is inactive.'
const unauthorized = (message: string): HttpError => new HttpError(401, message)

/**
 * `GET /authentication/public_key` (the PEM, public) and `GET /user/<username>/authenticate`
 * (the password check: 302 to the user when the password in `cipher` is right and the user
 * active, 401 otherwise). The 401s carry no Digest challenge: the caller's own credentials
 * were accepted, the answer is about the password checked.
 */
export function authenticationRoutes(r: Router, deps: IdentityDeps): void {
  const { dataDir } = deps
  r.get('/authentication/public_key', (c) => reply.raw(200, keysFor(c, dataDir).publicPem, 'application/x-pem-file'), {
    public: true,
    produces: 'application/x-pem-file',
    permission: 'anyone, without authentication (it is a public key)',
  })

  r.get(
    '/user/:username/authenticate',
    async (c) => {
      const user = await visibleUser(c, 'user.view', { self: true })
      // Checking someone's password is acting on them: not on anyone more powerful than oneself.
      if (user.id !== c.principal.id) {
        requireHeld(c, (await currentProfile(c, user)).permissions, `The profile of "${user.username}"`)
      }
      const { privateKey } = keysFor(c, dataDir)
      const cipher = cipherOf(c)
      if (cipher === undefined) {
        throw unauthorized(
          'Send the password encrypted with the public key (GET /authentication/public_key), in hex, as cipher.',
        )
      }
      const password = decryptCipher(privateKey, cipher)
      if (password === undefined) {
        throw unauthorized(
          "The cipher does not decrypt with the installation's key: encrypt with RSA-OAEP (SHA-1 or SHA-256) and send it in hex.",
        )
      }
      const secret = await userQueries.secret(c.reader, user.username)
      const hash = secret?.passwordHash ?? null
      decoy ??= hashPassword(randomBytes(16).toString('hex'))
      const right = await verifyPassword(password, hash ?? (await decoy))
      if (!right || hash === null || !secret?.isActive) throw unauthorized(WRONG)
      const url = c.links.url('user', user.username)
      return reply.xml(302, redirectionXml(url), { Location: url })
    },
    {
      permission:
        "the user themselves, or profile user.view on the user's platform and every profile flag the user holds",
    },
  )
}
