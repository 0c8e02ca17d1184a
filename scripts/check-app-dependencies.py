#!/usr/bin/env python3
"""Fails when an app-side product reaches a system library or a server-side module on an Apple platform.

Reads `swift package dump-package` (JSON on stdin, or runs it) and walks each app-side target's dependencies as
SwiftPM resolves them for iOS, macOS, tvOS, watchOS and visionOS: a dependency with a platform condition counts only
on the platforms it names. Issue #11: "swift package dump-package shows no system-library target reachable from
RampartPinning, RampartAttestClient, RampartSeal or RampartApple on iOS or macOS".
"""
import json
import subprocess
import sys

APP_SIDE = ["RampartASN1", "RampartCrypto", "RampartX509", "RampartPinning", "RampartRequestSigning",
            "RampartSecretStore", "RampartSeal", "RampartAttestClient", "RampartApple", "RampartPointsCore",
            "RampartPointsApp"]
SERVER_SIDE = {"RampartChainVerification", "RampartTLS", "RampartAppAttest", "RampartKeyAttestation",
               "RampartAttestSimulation",
               "RampartAttestService", "RampartVault", "RampartSQLite", "RampartAppleSimulation", "RampartCLI",
               "RampartCryptoKitBackend", "RampartAudit", "RampartServiceCLI"}
PLATFORMS = ["ios", "macos", "tvos", "watchos", "visionos"]


def main() -> int:
    text = "" if sys.stdin.isatty() else sys.stdin.read()
    if not text.strip():
        text = subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout
    package = json.loads(text)
    targets = {t["name"]: t for t in package["targets"]}
    system = {name for name, t in targets.items() if t["type"] in ("system", "system-target")}

    def dependencies(target, platform):
        for dependency in target.get("dependencies", []):
            ((_, value),) = dependency.items()
            name = value[0]
            condition = value[-1] if isinstance(value[-1], dict) else None
            names = (condition or {}).get("platformNames") or []
            if names and platform not in names:
                continue
            yield name

    failures = []
    for platform in PLATFORMS:
        for root in APP_SIDE:
            seen, stack = set(), [root]
            while stack:
                name = stack.pop()
                if name in seen or name not in targets:
                    continue
                seen.add(name)
                stack.extend(dependencies(targets[name], platform))
            bad = sorted(seen & (system | SERVER_SIDE))
            if bad:
                failures.append(f"{root} on {platform} reaches {', '.join(bad)}")
    # The app-side modules support iOS 15 and macOS 12: nothing that needs a newer OS (Synchronization's Mutex and
    # Atomic, String(validating:as:) need iOS 18 and macOS 15; use RampartCrypto's Locked and String(strictUTF8:)).
    import os
    import re
    newer = re.compile(r"^\s*(internal |public |package )?import Synchronization\b|String\(validating:")
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")
    for module in APP_SIDE:
        directory = os.path.join(root, module)
        for folder, _, files in os.walk(directory):
            for name in files:
                if not name.endswith(".swift") or name.endswith("_openssl.swift"):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as source:
                    for number, line in enumerate(source, 1):
                        if newer.search(line) and not line.lstrip().startswith("//"):
                            print(f"check-app-dependencies: {os.path.relpath(path, root)}:{number} uses an API newer "
                                  "than iOS 15 and macOS 12 (Synchronization or String(validating:as:)); use "
                                  "RampartCrypto's Locked or String(strictUTF8:)", file=sys.stderr)
                            failures.append("newer API")
    for failure in (f for f in failures if f != "newer API"):
        print(f"check-app-dependencies: {failure}; condition the dependency with .when(platforms: [.linux]) "
              "or move the code to a server-side module", file=sys.stderr)
    if not failures:
        print(f"check-app-dependencies: {len(APP_SIDE)} app-side modules reach no system library or server module "
              f"on {', '.join(PLATFORMS)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
