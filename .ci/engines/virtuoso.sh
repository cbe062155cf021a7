#!/usr/bin/env bash
# Virtuoso Open Source 7 for the virtuoso engine's tests (test/engines/virtuoso-engine.ts), from
# Debian: only the binaries (virtuoso-t, isql-vt), not the packaged service and its database.
# The tests start /usr/bin/virtuoso-t themselves, or LODESTONE_VIRTUOSO when set. Sourced by .ci/run.
if [ -z "${LODESTONE_VIRTUOSO:-}" ] && ! [ -x /usr/bin/virtuoso-t ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends virtuoso-opensource-7-bin >/dev/null
fi
# virtuoso-t --help exits 1: its version is the second line it prints
virtuoso_help=$("${LODESTONE_VIRTUOSO:-/usr/bin/virtuoso-t}" --help 2>&1 || true)
echo "${virtuoso_help}" | sed -n 2p | sed 's/^/virtuoso-t /'
