#!/usr/bin/env python3
"""Instructions per protected request of a `rampart serve` that ran under callgrind (scripts/bench-instructions.sh).

Reads one callgrind profile through `callgrind_annotate` and `swift demangle`, and prints, divided by the number of
protected requests the service authorized:

- the P-256 verifications (`verifyECDSAWithReusedContext`);
- everything else the request path ran: the threads the service starts (the HTTP loop, the log writer) and the
  Dispatch workers (tasks, the store's writer), less key registrations (the load registers its keys first).

Instruction counts do not move with the host's speed, so two builds compare by them when wall-clock runs on a shared
machine differ by more than the change.
"""

import re
import subprocess
import sys


def annotate(profile, *options):
    listing = subprocess.run(
        ["callgrind_annotate", *options, profile], check=True, capture_output=True, text=True
    ).stdout
    return subprocess.run(
        ["swift", "demangle", "--simplified"], input=listing, check=True, capture_output=True, text=True
    ).stdout


def inclusive(listing, name):
    """The inclusive instructions of the first function whose demangled name holds `name`."""
    for line in listing.splitlines():
        match = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$", line)
        if match and name in match.group(2):
            return int(match.group(1).replace(",", ""))
    sys.exit(f"bench-instructions: no '{name}' in the profile; the service's functions were renamed?")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench-instructions.py CALLGRIND_PROFILE")
    profile = sys.argv[1]
    calls = re.search(
        r"AttestationService\.authorize\(_:\) \(([\d,]+)x\)", annotate(profile, "--tree=calling")
    )
    if not calls:
        sys.exit("bench-instructions: the profile holds no authorized request")
    requests = int(calls.group(1).replace(",", ""))
    listing = annotate(profile, "--inclusive=yes")
    verify = inclusive(listing, "verifyECDSAWithReusedContext<A, B>(_:digest:signature:message:) [")
    threads = inclusive(listing, "NSThreadStart(_:) [")
    workers = inclusive(listing, "_dispatch_worker_thread [")
    registrations = inclusive(listing, "ServiceRouter.attestation(_:_:) [")
    print(f"protected requests:                      {requests}")
    print(f"instructions per request, P-256 verify:  {verify // requests:,}")
    print(f"instructions per request, everything else: {(threads + workers - registrations - verify) // requests:,}")


if __name__ == "__main__":
    main()
