import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from './config/schema.js'

/** Files an initialized instance keeps in its data dir. */
export function instancePaths(dataDir: string): { secret: string; privateKey: string; publicKey: string } {
  return {
    secret: join(dataDir, 'secret'),
    privateKey: join(dataDir, 'keys', 'private.pem'),
    publicKey: join(dataDir, 'keys', 'public.pem'),
  }
}

/** The server secret: `auth.secret` when set, else the data dir's `secret` file, else undefined. */
export function readSecret(config: Config): string | undefined {
  if (config.auth.secret) return config.auth.secret
  const file = instancePaths(config.data_dir).secret
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined
}

/** Creates the secret file (mode 0600) when missing; true when it was created. */
export function ensureSecret(dataDir: string): boolean {
  const file = instancePaths(dataDir).secret
  if (existsSync(file)) return false
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(file, randomBytes(32).toString('base64url') + '\n', { mode: 0o600 })
  return true
}

/** Creates the installation's RSA key pair (password checks) when missing; true when created. */
export function ensureKeyPair(dataDir: string): boolean {
  const paths = instancePaths(dataDir)
  if (existsSync(paths.privateKey) && existsSync(paths.publicKey)) return false
  mkdirSync(join(dataDir, 'keys'), { recursive: true })
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
  writeFileSync(paths.privateKey, privateKey, { mode: 0o600 })
  writeFileSync(paths.publicKey, publicKey, { mode: 0o644 })
  return true
}
