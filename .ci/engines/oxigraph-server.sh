# The Oxigraph server (`oxigraph serve`) from the `oxigraph` package on PyPI: test/engines/oxigraph-server-engine.ts
# finds it on PATH (or at $LODESTONE_OXIGRAPH).
if ! command -v oxigraph >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check 'oxigraph==0.5.*'
  hash -r
  if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
fi
oxigraph --version
