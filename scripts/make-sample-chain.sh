#!/usr/bin/env bash
# Regenerates Examples/sample-chain.pem: a three-certificate chain made here with the openssl CLI (no private key is
# kept): root "Rampart Sample Root CA" (P-384) -> intermediate (P-384) -> leaf for sample.rampart.example (P-256),
# from the day it is run: the CAs for ten years, the leaf for 825 days, the longest iOS accepts for a server
# certificate (Apple's "Requirements for trusted certificates in iOS 13 and macOS 10.15"), so the default `apple`
# policy of verify-chain, pinset and check trusts it. The docs' examples evaluate it at the current time: regenerate
# it (and refresh the pins that derive from it) before the leaf expires. The committed file is what
# `bash scripts/serve.sh` and the README pin.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ca_days=3650
leaf_days=825

cat > "$work/ext.cnf" <<'CNF'
[root]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[intermediate]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign, digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:sample.rampart.example, DNS:*.sample.rampart.example
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
CNF

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes -keyout "$work/root.key" -sha384 \
    -subj "/C=GB/O=Rampart Sample/CN=Rampart Sample Root CA" -days "$ca_days" \
    -extensions root -config <(printf '[req]\ndistinguished_name=dn\n[dn]\n'; cat "$work/ext.cnf") \
    -out "$work/root.pem" 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes -keyout "$work/intermediate.key" \
    -subj "/C=GB/O=Rampart Sample/CN=Rampart Sample Intermediate CA" -out "$work/intermediate.csr" 2>/dev/null
openssl x509 -req -in "$work/intermediate.csr" -CA "$work/root.pem" -CAkey "$work/root.key" -CAcreateserial \
    -sha384 -days "$ca_days" -extfile "$work/ext.cnf" -extensions intermediate -out "$work/intermediate.pem" 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/leaf.key" \
    -subj "/CN=sample.rampart.example" -out "$work/leaf.csr" 2>/dev/null
openssl x509 -req -in "$work/leaf.csr" -CA "$work/intermediate.pem" -CAkey "$work/intermediate.key" \
    -CAcreateserial -sha384 -days "$leaf_days" -extfile "$work/ext.cnf" -extensions leaf -out "$work/leaf.pem" 2>/dev/null

openssl verify -x509_strict -CAfile "$work/root.pem" -untrusted "$work/intermediate.pem" "$work/leaf.pem" >/dev/null
cat "$work/leaf.pem" "$work/intermediate.pem" "$work/root.pem" > Examples/sample-chain.pem
echo "wrote Examples/sample-chain.pem" >&2
