/** The config file `mediactl init` writes when none exists: the keys an operator changes first. */
export function configTemplate(dataDir: string): string {
  return `# mediactl configuration. Every key: docs/configuration.md.
# Values here override config/default.yaml; MEDIACTL_* environment variables override both.

# Where the database (SQLite), keys, secret and stored files live.
data_dir: ${JSON.stringify(dataDir)}

# Public base URL of the API, used in every href (set it behind a reverse proxy).
# base_url: https://media.example.org

# http:
#   host: 0.0.0.0
#   port: 8080

# PostgreSQL for production (empty: SQLite in data_dir):
# database:
#   url: postgres://mediactl:secret@127.0.0.1:5432/mediactl
`
}
