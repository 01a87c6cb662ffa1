#!/usr/bin/env bash
# Checks the deployment files in deploy/ with whatever tools this machine has:
#   1. the systemd units, with systemd-analyze verify;
#   2. deploy/compose.yaml, with `docker compose config`, else as YAML with node and the yaml package;
#   3. the container image, built (and smoke-tested) only when a builder answers and the base image
#      can be had.
# A check whose tool is missing prints "skipped: <why>"; only a real problem fails (exit 1).
# CHECK_DEPLOY_BUILD=no skips the image build even where it could run (it takes minutes).
# test/docs/deploy.test.ts checks what the files say (commands, variables); this checks they parse.
set -euo pipefail
cd "$(dirname "$0")/.."

failures=0
fail() {
  printf '  FAIL: %s\n' "$*"
  failures=$((failures + 1))
}
skip() { printf '  skipped: %s\n' "$*"; }
section() { printf '\n== %s\n' "$*"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check_units() {
  section "systemd units (deploy/systemd)"
  if ! command -v systemd-analyze >/dev/null 2>&1; then
    skip "systemd-analyze is not installed"
    return
  fi
  # Verify copies: a unit naming a binary this machine lacks (no Node at /usr/bin/node, say) makes
  # verify fail for a reason that says nothing of the file, so such an executable is replaced by
  # /bin/true in the copy. The user need not exist: verify does not look it up.
  local unit copy exe
  local units=()
  for unit in deploy/systemd/*.service; do
    copy="$work/$(basename "$unit")"
    cp "$unit" "$copy"
    while read -r exe; do
      if [ ! -x "$exe" ]; then
        printf '  (%s: %s is not on this machine; verifying with /bin/true in its place)\n' "$(basename "$unit")" "$exe"
        sed -i -E "s#^(Exec[A-Za-z]*=[-+!@:]*)${exe}( |\$)#\\1/bin/true\\2#" "$copy"
      fi
    done < <(sed -n -E 's/^Exec[A-Za-z]*=[-+!@:]*([^ ]+).*/\1/p' "$unit" | sort -u)
    units+=("$copy")
  done
  # verify exits 0 on an unknown directive or a value it cannot parse (it only warns, "ignoring"),
  # so every line it prints about our files counts as a failure, whatever the exit code.
  local output status=0
  output=$(systemd-analyze verify --man=no "${units[@]}" 2>&1) || status=$?
  local ours
  ours=$(printf '%s\n' "$output" | grep -F -e "$work/" -e 'mediactl-' || true)
  if [ "$status" -ne 0 ] || [ -n "$ours" ]; then
    fail "systemd-analyze verify (exit $status):"
    printf '%s\n' "${ours:-$output}" | sed "s#$work/#deploy/systemd/#g; s/^/    /"
  else
    printf '  ok: %s\n' "$(cd deploy/systemd && echo *.service)"
  fi
  # The exposure score, for information: `--offline` exists from systemd 252 on.
  for unit in "${units[@]}"; do
    systemd-analyze security --offline=true --man=no "$unit" 2>/dev/null |
      sed -n -E 's/^→ Overall exposure level for ([^:]+): (.*)$/  exposure of \1: \2/p' || true
  done
}

check_compose() {
  section "compose file (deploy/compose.yaml)"
  # The required variables get dummy values: this checks the file, not a deploy/.env.
  local env=(POSTGRES_PASSWORD=check MEDIACTL_SECRET=check)
  if docker compose version >/dev/null 2>&1; then
    local output
    if output=$(env "${env[@]}" docker compose -f deploy/compose.yaml config --quiet 2>&1); then
      printf '  ok: docker compose config\n'
    else
      fail "docker compose config:"
      printf '%s\n' "$output" | sed 's/^/    /'
    fi
    return
  fi
  printf '  (no docker compose here: parsing it as YAML with node instead)\n'
  if ! node -e 'require.resolve("yaml")' >/dev/null 2>&1; then
    skip "node or the yaml package is missing (run npm ci)"
    return
  fi
  # Parse errors (bad indentation, duplicate keys, unknown anchors), then what a compose file needs:
  # the services, each with an image or a build, and what they refer to (services, volumes) defined.
  local output
  if output=$(node - deploy/compose.yaml 2>&1 <<'EOF'
const { readFileSync } = require('node:fs')
const { parseDocument } = require('yaml')
const file = process.argv[2]
const doc = parseDocument(readFileSync(file, 'utf8'), { merge: true, uniqueKeys: true })
const problems = doc.errors.map((e) => e.message)
const compose = problems.length ? {} : doc.toJS({ maxAliasCount: 100 })
const services = compose.services ?? {}
if (!problems.length && !Object.keys(services).length) problems.push('no services')
for (const [name, service] of Object.entries(services)) {
  if (!service.image && !service.build) problems.push(`service ${name}: neither image nor build`)
  const deps = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {})
  for (const dep of deps) if (!services[dep]) problems.push(`service ${name}: depends on unknown service ${dep}`)
  for (const volume of service.volumes ?? []) {
    const source = typeof volume === 'string' ? volume.split(':')[0] : volume.source
    const named = source && !source.startsWith('.') && !source.startsWith('/') && !source.startsWith('~')
    if (named && !(source in (compose.volumes ?? {}))) problems.push(`service ${name}: volume ${source} is not declared`)
  }
}
if (problems.length) {
  console.log(problems.join('\n'))
  process.exit(1)
}
console.log(`services: ${Object.keys(services).join(', ')}`)
EOF
  ); then
    printf '  ok: %s\n' "$output"
  else
    fail "deploy/compose.yaml:"
    printf '%s\n' "$output" | sed 's/^/    /'
  fi
}

# The first builder whose daemon (or storage) answers: docker, podman, buildah.
find_builder() {
  local tool
  for tool in docker podman buildah; do
    command -v "$tool" >/dev/null 2>&1 || continue
    case $tool in
      docker | podman) "$tool" info >/dev/null 2>&1 && { echo "$tool"; return; } ;;
      buildah) buildah info >/dev/null 2>&1 && { echo "$tool"; return; } ;;
    esac
  done
}

check_image() {
  section "container image (deploy/container/Dockerfile)"
  if [ "${CHECK_DEPLOY_BUILD:-yes}" = no ]; then
    skip "CHECK_DEPLOY_BUILD=no"
    return
  fi
  local builder
  builder=$(find_builder)
  if [ -z "$builder" ]; then
    local tried=()
    for tool in docker podman buildah; do command -v "$tool" >/dev/null 2>&1 && tried+=("$tool"); done
    if [ ${#tried[@]} -eq 0 ]; then
      skip "no image builder (docker, podman or buildah) is installed"
    else
      skip "no builder answers: ${tried[*]} installed, but '<tool> info' fails (no daemon running?)"
    fi
    return
  fi
  local base
  base=$(sed -n -E 's/^ARG NODE_IMAGE=(.+)$/\1/p' deploy/container/Dockerfile)
  # The base image must be here already or pullable: without registry access, skip rather than fail.
  if ! "$builder" image inspect "$base" >/dev/null 2>&1 &&
    ! timeout 300 "$builder" pull "$base" >/dev/null 2>&1; then
    skip "the base image $base is not present and cannot be pulled with $builder (no registry access?)"
    return
  fi
  local tag=mediactl:check-deploy
  local build=("$builder" build)
  [ "$builder" = buildah ] && build=(buildah bud)
  printf '  building with %s (minutes)...\n' "$builder"
  if ! "${build[@]}" -f deploy/container/Dockerfile -t "$tag" . >"$work/build.log" 2>&1; then
    fail "the image does not build ($builder); the end of the log:"
    tail -n 30 "$work/build.log" | sed 's/^/    /'
    return
  fi
  if [ "$builder" = buildah ]; then
    printf '  ok: built %s (buildah runs no container: no smoke test)\n' "$tag"
    return
  fi
  # A smoke test: the CLI starts as the image's user, and the distribution's ffmpeg runs.
  local version user
  if ! version=$("$builder" run --rm "$tag" --version 2>&1) ||
    ! "$builder" run --rm --entrypoint ffmpeg "$tag" -version >/dev/null 2>&1; then
    fail "the image builds but does not run: $version"
    return
  fi
  user=$("$builder" run --rm --entrypoint id "$tag" -un 2>&1 || true)
  [ "$user" = mediactl ] || fail "the image runs as '$user', not as mediactl"
  printf '  ok: built %s: %s, running as %s\n' "$tag" "$version" "$user"
}

check_units
check_compose
check_image

echo
if [ "$failures" -gt 0 ]; then
  echo "check-deploy: $failures check(s) failed"
  exit 1
fi
echo "check-deploy: ok"
