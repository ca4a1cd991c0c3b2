#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine (Python 3.11, git, pip), then run
# ruff, mypy and both test tiers.
#   bash scripts/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'

# Headless Chromium for the console's end-to-end test (Debian's package; nothing is downloaded by tests).
# apt-get waits up to 5 minutes for another apt or dpkg that holds its lock (an unattended upgrade)
# instead of failing at once; on CI (CI=true) a browser that cannot be installed stops the run.
# >>> chromium (tests/cli/test_cli_defects.py runs this part alone)
apt_get() { apt-get -o DPkg::Lock::Timeout=300 -y -q "$@"; }
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  apt_log="$(mktemp)"
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    (apt_get install chromium >"$apt_log" 2>&1 || { apt_get update >>"$apt_log" 2>&1 && apt_get install chromium >>"$apt_log" 2>&1; }) \
      || { export K0MARU_NO_CHROMIUM="apt-get install chromium failed on this machine"; tail -n 5 "$apt_log" >&2; }
  else
    export K0MARU_NO_CHROMIUM="chromium is not installed and this user cannot apt-get install it"
  fi
  rm -f "$apt_log"
fi
if [ -n "${K0MARU_NO_CHROMIUM:-}" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "test.sh: NO BROWSER on CI: ${K0MARU_NO_CHROMIUM}; the console's browser test cannot run, so the run stops here" >&2
    exit 1
  fi
  echo "test.sh: NO BROWSER: ${K0MARU_NO_CHROMIUM}; the console's browser test is skipped here (on CI, CI=true, the run stops)" >&2
fi
# <<< chromium

# Claude Code from the npm registry, for the live check of the agent hook (tests/cli/test_agent_hook.py
# drives it offline with a stand-in model); where npm cannot install it, that test says so and skips.
CLAUDE_CODE_VERSION=2.1.332
if command -v npm >/dev/null 2>&1 && [ ! -x .cache/claude-code/node_modules/@anthropic-ai/claude-code-linux-x64/claude ]; then
  timeout 300 npm install -q --no-audit --no-fund --prefix .cache/claude-code \
    "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}" >/dev/null 2>&1 \
    || echo "test.sh: npm could not install Claude Code; its live hook check is skipped" >&2
fi

.venv/bin/ruff format --check k0maru tests scripts
.venv/bin/ruff check k0maru tests scripts
.venv/bin/mypy
# Both tiers, the fast in-process one first (pyproject's addopts select it), then the `slow` one that
# starts real processes; -rs lists every skipped test with its reason. `set -e` stops at the first failure.
# The fast tier runs under coverage (pyproject's [tool.coverage]): its total share of k0maru/ is printed.
mkdir -p .cache
.venv/bin/python -m coverage run -m pytest -q -rs "$@"
echo "test.sh: the fast tier covers $(.venv/bin/python -m coverage report --format=total)% of k0maru/'s statements"
.venv/bin/python -m pytest -q -rs -m slow "$@"
