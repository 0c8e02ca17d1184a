#!/usr/bin/env bash
# Makes the Python venv the test tools run from (RAMPART_SCHEMATHESIS_VENV, default .build/schemathesis-venv):
# schemathesis (scripts/schemathesis.sh) and PyJWT + cryptography (the token interoperability tests). Meant to be
# sourced from the repository root, before `swift test`, so no test waits on PyPI while it holds a test thread.
venv="${RAMPART_SCHEMATHESIS_VENV:-.build/schemathesis-venv}"
schemathesis_version="4.32.5"
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$schemathesis_version"; then
    { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet "schemathesis==$schemathesis_version"; } ||
        echo "python-venv.sh: could not install schemathesis into $venv (python3-venv missing, PyPI unreachable?)" >&2
fi
if ! "$venv/bin/python" -c "import jwt, cryptography" 2>/dev/null; then
    { [ -x "$venv/bin/pip" ] && "$venv/bin/pip" install --quiet pyjwt cryptography; } ||
        echo "python-venv.sh: could not install pyjwt and cryptography (PyPI unreachable?)" >&2
fi
