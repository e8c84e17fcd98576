#!/usr/bin/env bash
# Installs what Skynet Metric Studio needs into .venv at the repo root.
#   scripts/setup.sh          the app's packages, and bubblewrap for full isolation
#   scripts/setup.sh --dev    also the test tools and Debian's Chromium for the browser tests
# System packages are installed where this user may (root, or passwordless sudo);
# elsewhere it says what to install and carries on: the app then runs with reduced isolation.
set -euo pipefail
cd "$(dirname "$0")/.."

dev=0
[[ "${1:-}" == "--dev" ]] && dev=1

want=()
command -v bwrap >/dev/null 2>&1 || want+=(bubblewrap)
if [[ $dev == 1 ]] && [[ ! -x /usr/bin/chromium ]]; then want+=(chromium); fi
# A CJK font, so that the browser tests' screenshots of the Chinese pages show characters, not boxes.
if [[ $dev == 1 ]] && ! fc-list 2>/dev/null | grep -qi "wenquanyi\|noto sans cjk"; then want+=(fonts-wqy-microhei); fi
if [[ $(id -u) == 0 ]]; then apt_get=(apt-get)
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then apt_get=(sudo apt-get)
else apt_get=()
fi
command -v apt-get >/dev/null 2>&1 || apt_get=()
if (( ${#want[@]} )); then
  if (( ${#apt_get[@]} )); then
    echo "setup: installing ${want[*]} with apt-get"
    "${apt_get[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq "${want[@]}" >/dev/null
  else
    echo "setup: cannot install ${want[*]} here (needs root and apt-get); install them yourself." >&2
    echo "setup: without bubblewrap, metric code runs with reduced isolation (shown in the app and CLI)." >&2
  fi
fi
# Chromium's old headless shell (the same Blink, without the browser's window machinery): the browser tests take it
# where it is installed, for about an eighth less CPU than the whole browser (docs/testing.md), and the whole browser
# where it is not, so a failed install here only warns.
if [[ $dev == 1 ]] && [[ ! -x /usr/lib/chromium/chromium-headless-shell ]] && (( ${#apt_get[@]} )); then
  echo "setup: installing chromium-headless-shell with apt-get"
  if ! { (( ${#want[@]} )) || "${apt_get[@]}" update -qq; } ||
    ! DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq chromium-headless-shell >/dev/null; then
    echo "setup: chromium-headless-shell did not install; the browser tests use /usr/bin/chromium" >&2
  fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
if [[ $dev == 1 ]]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
else
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
fi
# The project itself, editable and without touching the pinned packages, so that benchmarks and scripts
# import skynet_core from any folder.
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps -e .
# The compiled translation catalogs (skynet_core/locale/*/LC_MESSAGES/skynet.mo) from the .po parts.
.venv/bin/python scripts/i18n.py compile >/dev/null
