# Sourced by .ci/run: installs Apache Jena Fuseki 5.6.0 (TDB2) and Java 17 for test/engine-fuseki.test.ts
# and the index tests on Fuseki. The jar goes to /opt/lodestone-engines/fuseki (override with
# LODESTONE_FUSEKI_JAR, which test/engines/fuseki-engine.ts reads); skipped when already there.
# Jena's jar comes from Maven Central, checked against the SHA-256 pinned here.
fuseki_version=5.6.0
fuseki_sha256=d28c1eaf703122ee628895a460c20fa4aa60a892f435d403ea8c036f241da1f8
export LODESTONE_FUSEKI_JAR="${LODESTONE_FUSEKI_JAR:-/opt/lodestone-engines/fuseki/jena-fuseki-server-${fuseki_version}.jar}"
if ! command -v java >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless curl ca-certificates >/dev/null
fi
if ! echo "${fuseki_sha256}  ${LODESTONE_FUSEKI_JAR}" | sha256sum --check --status 2>/dev/null; then
  mkdir -p "$(dirname "${LODESTONE_FUSEKI_JAR}")"
  curl -fsSL --retry 3 -o "${LODESTONE_FUSEKI_JAR}.part" \
    "https://repo1.maven.org/maven2/org/apache/jena/jena-fuseki-server/${fuseki_version}/jena-fuseki-server-${fuseki_version}.jar"
  echo "${fuseki_sha256}  ${LODESTONE_FUSEKI_JAR}.part" | sha256sum --check --status
  mv "${LODESTONE_FUSEKI_JAR}.part" "${LODESTONE_FUSEKI_JAR}"
fi
java -version 2>&1 | head -1 | sed 's/^/fuseki: /'
echo "fuseki: ${LODESTONE_FUSEKI_JAR}"
