internal import COpenSSL
internal import Foundation
import RampartCrypto
package import RampartX509
internal import Synchronization

/// Owns one parsed `X509` (released with `X509_free`) and the DER it was parsed from.
///
/// `@unchecked Sendable`: the object is never mutated after `init` except by OpenSSL's internal, lock-protected
/// extension cache, which `X509_verify_cert` fills on first use.
final class OpenSSLCertificate: @unchecked Sendable {
    let pointer: OpaquePointer
    let der: [UInt8]

    /// Parses `der` with `d2i_X509`, refusing trailing bytes.
    init?(der: [UInt8]) {
        // d2i_X509 returns an owned X509 (freed in deinit) and advances the cursor past what it consumed.
        let parsed: (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            let consumed = cursor.map { buffer.baseAddress?.distance(to: $0) ?? 0 } ?? 0
            return (certificate, consumed)
        }
        guard let pointer = parsed.0 else {
            ERR_clear_error()
            return nil
        }
        guard parsed.1 == der.count else {
            X509_free(pointer)
            return nil
        }
        self.pointer = pointer
        self.der = der
    }

    deinit { X509_free(pointer) }

    /// The DER of a certificate OpenSSL holds (for anchors loaded from the system bundle).
    static func encode(_ pointer: OpaquePointer) -> [UInt8] {
        // i2d_X509 with a NULL output returns the length; with a buffer it writes there and advances the cursor.
        let length = i2d_X509(pointer, nil)
        guard length > 0 else {
            ERR_clear_error()
            return []
        }
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_X509(pointer, &cursor)
        }
        return der
    }
}

/// Owns one parsed `X509_CRL` (released with `X509_CRL_free`).
///
/// `@unchecked Sendable`: never mutated after `init` except by OpenSSL's lock-protected extension cache.
final class OpenSSLRevocationList: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Parses `der` with `d2i_X509_CRL`, refusing trailing bytes.
    init?(der: [UInt8]) {
        // d2i_X509_CRL returns an owned X509_CRL (freed in deinit) and advances the cursor past what it consumed.
        let parsed: (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            let list = d2i_X509_CRL(nil, &cursor, buffer.count)
            let consumed = cursor.map { buffer.baseAddress?.distance(to: $0) ?? 0 } ?? 0
            return (list, consumed)
        }
        guard let pointer = parsed.0 else {
            ERR_clear_error()
            return nil
        }
        guard parsed.1 == der.count else {
            X509_CRL_free(pointer)
            return nil
        }
        self.pointer = pointer
    }

    /// Whether the list carries the cRLNumber extension, which RFC 5280 5.2.3 requires ("conforming CRL issuers
    /// MUST include the CRL number extension in all CRLs").
    var hasNumber: Bool { X509_CRL_get_ext_by_NID(pointer, NID_crl_number, -1) >= 0 }

    deinit { X509_CRL_free(pointer) }
}

/// Keeps parsed certificates by their DER so that an intermediate seen again is not decoded again (OpenSSL 3
/// decodes the public key of every parsed certificate through its provider machinery, which costs several ECDSA
/// verifications). Entries are evicted oldest first beyond the capacity.
///
/// Sharing an `X509` between evaluations is safe: OpenSSL only fills its extension cache, under the object's lock.
final class ParsedCertificateCache: Sendable {
    private struct Storage {
        var entries: [[UInt8]: OpenSSLCertificate] = [:]
        var order: [[UInt8]] = []
    }

    private let capacity: Int
    private let storage = Mutex(Storage())

    init(capacity: Int) { self.capacity = max(capacity, 1) }

    /// The parsed certificate for `der`, from the cache or freshly parsed (nil when OpenSSL cannot parse it).
    func certificate(for der: [UInt8]) -> OpenSSLCertificate? {
        if let found = storage.withLock({ $0.entries[der] }) { return found }
        guard let parsed = OpenSSLCertificate(der: der) else { return nil }
        storage.withLock { storage in
            guard storage.entries[der] == nil else { return }
            storage.entries[der] = parsed
            storage.order.append(der)
            if storage.order.count > capacity {
                storage.entries[storage.order.removeFirst()] = nil
            }
        }
        return parsed
    }

    func removeAll() { storage.withLock { $0 = Storage() } }
}

/// Owns an `X509_STORE` (released with `X509_STORE_free`) holding the trust anchors.
///
/// `@unchecked Sendable`: the store is configured in `init` and only read afterwards; OpenSSL locks the store for the
/// lazy lookups of the system directory.
final class OpenSSLTrustStore: @unchecked Sendable {
    let pointer: OpaquePointer
    let anchors: [OpenSSLCertificate]
    let anchorDER: [OpaquePointer: [UInt8]]

    init(anchors: [OpenSSLCertificate], includeSystemTrustStore: Bool) throws {
        // X509_STORE_new returns an owned store, freed in deinit.
        guard let pointer = X509_STORE_new() else {
            ERR_clear_error()
            throw X509Error.unsupported("OpenSSL could not allocate a certificate store")
        }
        self.pointer = pointer
        self.anchors = anchors
        var map: [OpaquePointer: [UInt8]] = [:]
        for anchor in anchors {
            // X509_STORE_add_cert takes its own reference; adding a duplicate is not an error in OpenSSL 3.
            guard X509_STORE_add_cert(pointer, anchor.pointer) == 1 else {
                ERR_clear_error()
                throw X509Error.invalidCertificate("OpenSSL refused a trust anchor")
            }
            map[anchor.pointer] = anchor.der
        }
        self.anchorDER = map
        if includeSystemTrustStore {
            guard X509_STORE_set_default_paths(pointer) == 1 else {
                ERR_clear_error()
                throw X509Error.unsupported(
                    "the system trust store could not be loaded (install ca-certificates, or pass anchors)")
            }
        }
    }

    deinit { X509_STORE_free(pointer) }
}

/// A refusal found by one evaluation, with the certificate concerned as DER.
package struct RawChainFailure: Sendable {
    /// The reason code.
    package var reason: ChainFailure.Reason
    /// OpenSSL's `X509_V_ERR_*`, or 0 for a Rampart-side refusal.
    package var openSSLCode: Int
    /// The index in the path (0 = leaf), or nil.
    package var index: Int?
    /// The certificate concerned.
    package var certificate: [UInt8]?
    /// OpenSSL's text, or Rampart's complete message when ``isFinalMessage``.
    package var text: String
    /// Whether the certificate concerned is the path's trust anchor.
    package var isAnchor = false
    /// Whether ``text`` is already the whole message (a Rampart-side policy refusal).
    package var isFinalMessage = false
    /// For a refused issuer: the index of the certificate it was presented to sign.
    package var issuedIndex: Int?
    /// The path OpenSSL had built when it refused it, leaf first.
    package var path: [[UInt8]] = []
    /// A detail OpenSSL's text lacks, e.g. the identifier of an unhandled critical extension.
    package var detail: String?

    package init(
        reason: ChainFailure.Reason, openSSLCode: Int = 0, index: Int?, certificate: [UInt8]?, text: String,
        isAnchor: Bool = false, isFinalMessage: Bool = false
    ) {
        self.reason = reason
        self.openSSLCode = openSSLCode
        self.index = index
        self.certificate = certificate
        self.text = text
        self.isAnchor = isAnchor
        self.isFinalMessage = isFinalMessage
    }
}

/// What one evaluation found, with certificates as DER (the public layer turns them into ``Certificate`` values).
package enum RawChainResult: Sendable {
    case trusted(path: [[UInt8]])
    case untrusted(RawChainFailure)

    static func untrusted(
        reason: ChainFailure.Reason, openSSLCode: Int, index: Int?, certificate: [UInt8]?, text: String
    ) -> RawChainResult {
        .untrusted(
            RawChainFailure(
                reason: reason, openSSLCode: openSSLCode, index: index, certificate: certificate, text: text))
    }
}

/// The per-evaluation state the custom verify function reaches through the store context's ex_data.
private final class VerificationState {
    let time: time_t
    let cache: SignatureCache?
    let knownDER: [OpaquePointer: [UInt8]]

    init(time: time_t, cache: SignatureCache?, knownDER: [OpaquePointer: [UInt8]]) {
        self.time = time
        self.cache = cache
        self.knownDER = knownDER
    }

    func der(_ pointer: OpaquePointer) -> [UInt8] { knownDER[pointer] ?? OpenSSLCertificate.encode(pointer) }
}

/// The ex_data slot of `X509_STORE_CTX` that carries ``VerificationState``.
private let stateIndex: Int32 = CRYPTO_get_ex_new_index(CRYPTO_EX_INDEX_X509_STORE_CTX, 0, nil, nil, nil, nil)

/// The OpenSSL engine behind ``ChainVerifier``: `X509_STORE` + `X509_verify_cert`, configured like iOS's SSL policy.
struct OpenSSLChainEngine: Sendable {
    let store: OpenSSLTrustStore
    let cache: SignatureCache?
    let parsed: ParsedCertificateCache?

    init(
        anchorDER: [[UInt8]],
        includeSystemTrustStore: Bool,
        signatureCacheCapacity: Int,
        certificateCacheCapacity: Int
    ) throws {
        var anchors: [OpenSSLCertificate] = []
        for der in anchorDER {
            guard let anchor = OpenSSLCertificate(der: der) else {
                throw X509Error.invalidCertificate("a trust anchor is not a DER certificate OpenSSL can parse")
            }
            anchors.append(anchor)
        }
        store = try OpenSSLTrustStore(anchors: anchors, includeSystemTrustStore: includeSystemTrustStore)
        cache = signatureCacheCapacity > 0 ? SignatureCache(capacity: signatureCacheCapacity) : nil
        parsed = certificateCacheCapacity > 0 ? ParsedCertificateCache(capacity: certificateCacheCapacity) : nil
    }

    var cacheStatistics: (hits: Int, misses: Int)? { cache?.statistics }

    /// Whether `der` is one of the anchors the verifier was given (not one of the system bundle's).
    func isExplicitAnchor(_ der: [UInt8]) -> Bool { store.anchors.contains { $0.der == der } }

    func clearCache() {
        cache?.removeAll()
        parsed?.removeAll()
    }

    private func parse(_ der: [UInt8]) -> OpenSSLCertificate? {
        parsed.map { $0.certificate(for: der) } ?? OpenSSLCertificate(der: der)
    }

    /// The most candidate paths one evaluation verifies (DoS bound: each costs a full `X509_verify_cert`, and a
    /// mesh of cross-signed intermediates can describe exponentially many paths).
    static let maximumCandidatePaths = 8
    /// The most issuer look-ups while enumerating candidate paths (DoS bound: a pool of same-named certificates
    /// makes the search tree wide before any path reaches an anchor).
    static let maximumPathBuildingSteps = 256

    /// A path Rampart built: the leaf, intermediates, and last the trust anchor.
    struct CandidatePath {
        var certificates: [OpenSSLCertificate]
        var anchor: OpenSSLCertificate? { certificates.last }
        var intermediates: ArraySlice<OpenSSLCertificate> { certificates.dropFirst().dropLast() }
    }

    /// Whether `issuer` could have issued `subject`: the names match, the key identifiers do not contradict each
    /// other and the issuer's key fits the signature algorithm. A keyUsage without keyCertSign does not exclude a
    /// candidate here, so that the refusal can name it.
    private static func couldIssue(_ issuer: OpenSSLCertificate, _ subject: OpenSSLCertificate) -> Bool {
        let code = X509_check_issued(issuer.pointer, subject.pointer)
        return code == X509_V_OK || code == X509_V_ERR_KEYUSAGE_NO_CERTSIGN
    }

    /// Every path from `leaf` to an explicit anchor through `pool`, depth first, anchors tried before
    /// intermediates; a certificate appears at most once in a path (this breaks cross-signing cycles).
    func candidatePaths(leaf: OpenSSLCertificate, pool: [OpenSSLCertificate]) -> [CandidatePath] {
        let anchorDER = Set(store.anchors.map(\.der))
        let intermediates = pool.filter { !anchorDER.contains($0.der) }
        var paths: [CandidatePath] = []
        var steps = 0
        func extend(_ path: [OpenSSLCertificate]) {
            guard let current = path.last, paths.count < Self.maximumCandidatePaths,
                steps < Self.maximumPathBuildingSteps
            else { return }
            steps += 1
            for anchor in store.anchors where Self.couldIssue(anchor, current) {
                guard !path.contains(where: { $0.der == anchor.der }) else { continue }
                if paths.count < Self.maximumCandidatePaths {
                    paths.append(CandidatePath(certificates: path + [anchor]))
                }
            }
            guard path.count <= ChainVerifier.maximumIntermediateCount else { return }
            for issuer in intermediates where Self.couldIssue(issuer, current) {
                guard !path.contains(where: { $0.der == issuer.der }) else { continue }
                extend(path + [issuer])
            }
        }
        if !anchorDER.contains(leaf.der) { extend([leaf]) }
        return paths
    }

    /// Builds and verifies a path from `leaf` through `intermediates` to an anchor at `time`.
    ///
    /// Rampart enumerates the candidate paths itself (OpenSSL 3.0 does not backtrack when the first issuer it
    /// picks fails) and has OpenSSL verify each one with only that path's certificates; the first path that OpenSSL
    /// and `policy` both accept wins. When no path reaches an explicit anchor (the system store, or no issuer at
    /// all), OpenSSL builds the path from the whole store, which also names what is missing.
    func evaluate(
        leaf leafDER: [UInt8],
        intermediates intermediateDER: [[UInt8]],
        at time: Date,
        purpose: ChainVerifier.Purpose,
        maximumDepth: Int,
        revocationLists revocationDER: [[UInt8]] = [],
        policy: ([[UInt8]]) -> RawChainFailure?
    ) -> RawChainResult {
        var lists: [OpenSSLRevocationList] = []
        for (index, der) in revocationDER.enumerated() {
            guard let list = OpenSSLRevocationList(der: der) else {
                return .untrusted(
                    RawChainFailure(
                        reason: .other, index: nil, certificate: nil,
                        text: "revocation list \(index) is not a DER CertificateList (RFC 5280 5.1): pass CRLs as "
                            + "DER or PEM X509 CRL", isFinalMessage: true))
            }
            guard list.hasNumber else {
                return .untrusted(
                    RawChainFailure(
                        reason: .other, index: nil, certificate: nil,
                        text: "revocation list \(index) has no cRLNumber extension, which RFC 5280 5.2.3 requires of "
                            + "every CRL: the CA must issue a conforming CRL", isFinalMessage: true))
            }
            lists.append(list)
        }
        guard let leaf = parse(leafDER) else {
            return .untrusted(
                reason: .malformedCertificate, openSSLCode: 0, index: 0, certificate: nil,
                text: "OpenSSL could not parse the leaf certificate")
        }
        var intermediates: [OpenSSLCertificate] = []
        for der in intermediateDER {
            guard let certificate = parse(der) else {
                return .untrusted(
                    reason: .malformedCertificate, openSSLCode: 0, index: nil, certificate: nil,
                    text: "OpenSSL could not parse an intermediate certificate")
            }
            intermediates.append(certificate)
        }
        var firstFailure: RawChainFailure?
        for candidate in candidatePaths(leaf: leaf, pool: intermediates) {
            let result = verify(
                leaf: leaf, untrusted: Array(candidate.intermediates), anchor: candidate.anchor, at: time,
                purpose: purpose, maximumDepth: maximumDepth, revocationLists: lists)
            switch result {
            case .trusted(let path):
                guard let refusal = policy(path) else { return result }
                if firstFailure == nil { firstFailure = refusal }
            case .untrusted(var failure):
                if firstFailure == nil {
                    explainRefusedIssuer(&failure, path: candidate)
                    firstFailure = failure
                }
            }
        }
        if let firstFailure { return .untrusted(firstFailure) }
        let result = verify(
            leaf: leaf, untrusted: intermediates, anchor: nil, at: time, purpose: purpose,
            maximumDepth: maximumDepth, revocationLists: lists)
        if case .trusted(let path) = result, let refusal = policy(path) { return .untrusted(refusal) }
        return result
    }

    /// OpenSSL reports an issuer it refused (keyUsage without keyCertSign) as a missing one; name the presented
    /// issuer and why it was refused instead.
    private func explainRefusedIssuer(_ failure: inout RawChainFailure, path: CandidatePath) {
        let missing: Set<Int32> = [
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE,
        ]
        guard missing.contains(Int32(failure.openSSLCode)), let index = failure.index,
            index + 1 < path.certificates.count
        else { return }
        let subject = path.certificates[index]
        let issuer = path.certificates[index + 1]
        let code = X509_check_issued(issuer.pointer, subject.pointer)
        guard code != X509_V_OK else { return }
        failure.reason = Self.reason(for: code, depth: index + 1)
        failure.openSSLCode = Int(code)
        failure.index = index + 1
        failure.certificate = issuer.der
        failure.text = String(cString: X509_verify_cert_error_string(Int(code)))
        failure.isAnchor = index + 2 == path.certificates.count
        failure.issuedIndex = index
    }

    /// One `X509_verify_cert`: with `anchor`, over exactly the given certificates (the anchor is the only trusted
    /// one, and it need not be self-signed); without, over the whole store.
    private func verify(
        leaf: OpenSSLCertificate,
        untrusted intermediates: [OpenSSLCertificate],
        anchor: OpenSSLCertificate?,
        at time: Date,
        purpose: ChainVerifier.Purpose,
        maximumDepth: Int,
        revocationLists: [OpenSSLRevocationList]
    ) -> RawChainResult {
        // X509_STORE_CTX_new returns an owned context, freed below; it holds references only while initialised.
        guard let context = X509_STORE_CTX_new() else {
            return .untrusted(reason: .other, openSSLCode: 0, index: nil, certificate: nil, text: "out of memory")
        }
        defer { X509_STORE_CTX_free(context) }
        // The untrusted and trusted stacks do not own their elements (freed with sk_X509_free, not pop_free): the
        // OpenSSLCertificate objects keep them alive for the whole evaluation.
        guard let untrusted = COpenSSL_sk_X509_new_null(), let trusted = COpenSSL_sk_X509_new_null() else {
            return .untrusted(reason: .other, openSSLCode: 0, index: nil, certificate: nil, text: "out of memory")
        }
        defer {
            COpenSSL_sk_X509_free(untrusted)
            COpenSSL_sk_X509_free(trusted)
        }
        for certificate in intermediates where COpenSSL_sk_X509_push(untrusted, certificate.pointer) <= 0 {
            return .untrusted(reason: .other, openSSLCode: 0, index: nil, certificate: nil, text: "out of memory")
        }
        if let anchor, COpenSSL_sk_X509_push(trusted, anchor.pointer) <= 0 {
            return .untrusted(reason: .other, openSSLCode: 0, index: nil, certificate: nil, text: "out of memory")
        }
        guard X509_STORE_CTX_init(context, store.pointer, leaf.pointer, untrusted) == 1 else {
            ERR_clear_error()
            return .untrusted(
                reason: .other, openSSLCode: 0, index: nil, certificate: nil,
                text: "OpenSSL could not start the evaluation")
        }
        // X509_STORE_CTX_set0_trusted_stack borrows the stack (freed above, after the context): issuers are then
        // looked up in it instead of the store.
        if anchor != nil { X509_STORE_CTX_set0_trusted_stack(context, trusted) }
        // The CRL stack does not own its elements either; X509_STORE_CTX_set0_crls borrows it.
        guard let crls = COpenSSL_sk_X509_CRL_new_null() else {
            return .untrusted(reason: .other, openSSLCode: 0, index: nil, certificate: nil, text: "out of memory")
        }
        defer { COpenSSL_sk_X509_CRL_free(crls) }
        for list in revocationLists where COpenSSL_sk_X509_CRL_push(crls, list.pointer) <= 0 {
            return .untrusted(reason: .other, openSSLCode: 0, index: nil, certificate: nil, text: "out of memory")
        }
        if !revocationLists.isEmpty { X509_STORE_CTX_set0_crls(context, crls) }
        X509_STORE_CTX_set_verify_cb(context, anchorTolerantCallback)
        let seconds = time.timeIntervalSince1970.rounded(.down)
        let checkTime = time_t(exactly: seconds) ?? (seconds < 0 ? time_t.min : time_t.max)
        // X509_STORE_CTX_get0_param returns the context's own parameters (not owned by the caller).
        guard let parameters = X509_STORE_CTX_get0_param(context) else {
            return .untrusted(reason: .other, openSSLCode: 0, index: nil, certificate: nil, text: "no parameters")
        }
        X509_VERIFY_PARAM_set_time(parameters, checkTime)
        // Strict RFC 5280 checks; a trust anchor need not be self-signed (RFC 5280 6.1: the trust anchor is an
        // input, not a certificate the path must end in), so an intermediate given as an anchor ends the path.
        _ = X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_X509_STRICT | X509_V_FLAG_PARTIAL_CHAIN))
        // With revocation lists, the leaf's issuer must have published one, and the leaf must not be on it.
        if !revocationLists.isEmpty { _ = X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_CRL_CHECK)) }
        X509_VERIFY_PARAM_set_depth(parameters, Int32(clamping: maximumDepth))
        // Security level 2 (112 bits): RSA and DSA keys of at least 2048 bits, ECC of 224, no SHA-1 signatures,
        // which is what iOS 13 and later require of TLS certificates.
        X509_VERIFY_PARAM_set_auth_level(parameters, 2)
        if let hostname = purpose.hostname {
            _ = X509_VERIFY_PARAM_set_purpose(parameters, X509_PURPOSE_SSL_SERVER)
            // SAN only, like iOS: never fall back to the subject CN; no partial-label wildcards such as `w*.x.com`.
            X509_VERIFY_PARAM_set_hostflags(
                parameters, UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
            let accepted: Int32
            if ChainVerifier.Purpose.isIPAddress(hostname) {
                accepted = X509_VERIFY_PARAM_set1_ip_asc(parameters, hostname)
            } else {
                accepted = X509_VERIFY_PARAM_set1_host(parameters, hostname, hostname.utf8.count)
            }
            guard accepted == 1 else {
                ERR_clear_error()
                return .untrusted(
                    reason: .invalidHostname, openSSLCode: 0, index: nil, certificate: nil,
                    text: "OpenSSL refused the host name")
            }
        }
        var known = store.anchorDER
        known[leaf.pointer] = leaf.der
        for certificate in intermediates { known[certificate.pointer] = certificate.der }
        // The verify function below replaces OpenSSL's internal one always: it reads notAfter as inclusive
        // (RFC 5280 4.1.2.5), which OpenSSL's X509_cmp_time does not, and consults the signature cache if any.
        let state = VerificationState(time: checkTime, cache: cache, knownDER: known)
        guard X509_STORE_CTX_set_ex_data(context, stateIndex, Unmanaged.passUnretained(state).toOpaque()) == 1 else {
            ERR_clear_error()
            return .untrusted(reason: .other, openSSLCode: 0, index: nil, certificate: nil, text: "ex_data")
        }
        X509_STORE_CTX_set_verify(context, cachedSignatureVerify)
        let status = withExtendedLifetime((state, leaf, intermediates, anchor, revocationLists)) {
            X509_verify_cert(context)
        }
        ERR_clear_error()
        if status == 1 {
            // X509_STORE_CTX_get0_chain returns a stack owned by the context; its elements are read here only.
            guard let chain = X509_STORE_CTX_get0_chain(context) else {
                return .untrusted(reason: .other, openSSLCode: 0, index: nil, certificate: nil, text: "no chain")
            }
            var path: [[UInt8]] = []
            for index in 0..<COpenSSL_sk_X509_num(chain) {
                guard let element = COpenSSL_sk_X509_value(chain, index) else { continue }
                path.append(
                    known[element] ?? anchor.flatMap { $0.pointer == element ? $0.der : nil }
                        ?? OpenSSLCertificate.encode(element))
            }
            return .trusted(path: path)
        }
        let code = X509_STORE_CTX_get_error(context)
        let depth = Int(X509_STORE_CTX_get_error_depth(context))
        // X509_STORE_CTX_get_current_cert returns a pointer owned by the context.
        let current = X509_STORE_CTX_get_current_cert(context).map { known[$0] ?? OpenSSLCertificate.encode($0) }
        let text = String(cString: X509_verify_cert_error_string(Int(code)))
        var failure = RawChainFailure(
            reason: Self.reason(for: code, depth: depth), openSSLCode: Int(code), index: depth, certificate: current,
            text: text)
        // The certificates above the untrusted ones in the built chain came from the trust anchors.
        failure.isAnchor = depth > 0 && Int(X509_STORE_CTX_get_num_untrusted(context)) <= depth
        // X509_STORE_CTX_get0_chain returns a stack owned by the context; its elements are read here only.
        if let chain = X509_STORE_CTX_get0_chain(context) {
            for index in 0..<COpenSSL_sk_X509_num(chain) {
                guard let element = COpenSSL_sk_X509_value(chain, index) else { continue }
                failure.path.append(known[element] ?? OpenSSLCertificate.encode(element))
            }
        }
        if code == X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION, let concerned = X509_STORE_CTX_get_current_cert(context) {
            failure.detail = Self.unhandledCriticalExtension(concerned)
        }
        return .untrusted(failure)
    }

    /// The dotted identifier of the first critical extension of `certificate` that OpenSSL does not support.
    static func unhandledCriticalExtension(_ certificate: OpaquePointer) -> String? {
        for index in 0..<X509_get_ext_count(certificate) {
            // X509_get_ext returns a pointer into the certificate (not owned); so does X509_EXTENSION_get_object.
            guard let item = X509_get_ext(certificate, index), X509_EXTENSION_get_critical(item) == 1,
                X509_supported_extension(item) == 0, let object = X509_EXTENSION_get_object(item)
            else { continue }
            var buffer = [CChar](repeating: 0, count: 128)
            let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
            guard length > 0, Int(length) < buffer.count else { return nil }
            return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }

    /// Maps OpenSSL's `X509_V_ERR_*` to a reason code.
    static func reason(for code: Int32, depth: Int) -> ChainFailure.Reason {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: return .expired
        case X509_V_ERR_CERT_REVOKED: return .revoked
        case X509_V_ERR_CERT_NOT_YET_VALID: return .notYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: return .hostnameMismatch
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT: return .selfSigned
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_CERT_UNTRUSTED, X509_V_ERR_CERT_REJECTED:
            return .untrustedRoot
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            // The leaf's issuer is unknown: the server left out its intermediate. Higher up, the chain stops at a
            // CA whose issuer is not a trust anchor.
            return depth == 0 ? .missingIntermediate : .untrustedRoot
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT: return .missingIntermediate
        case X509_V_ERR_INVALID_CA, X509_V_ERR_INVALID_NON_CA: return .notACA
        case X509_V_ERR_KEYUSAGE_NO_CERTSIGN: return .keyUsage
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE,
            X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY, X509_V_ERR_SIGNATURE_ALGORITHM_MISMATCH:
            return .badSignature
        case X509_V_ERR_INVALID_PURPOSE: return .wrongPurpose
        case X509_V_ERR_PATH_LENGTH_EXCEEDED: return .pathLengthExceeded
        case X509_V_ERR_CERT_CHAIN_TOO_LONG: return .chainTooLong
        case X509_V_ERR_PERMITTED_VIOLATION, X509_V_ERR_EXCLUDED_VIOLATION, X509_V_ERR_SUBTREE_MINMAX,
            X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE, X509_V_ERR_UNSUPPORTED_CONSTRAINT_SYNTAX,
            X509_V_ERR_UNSUPPORTED_NAME_SYNTAX:
            return .nameConstraints
        case X509_V_ERR_EE_KEY_TOO_SMALL, X509_V_ERR_CA_KEY_TOO_SMALL: return .weakKey
        case X509_V_ERR_CA_MD_TOO_WEAK: return .weakSignatureAlgorithm
        case X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION: return .unhandledCriticalExtension
        case X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD, X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD,
            X509_V_ERR_INVALID_EXTENSION, X509_V_ERR_SIGNATURE_ALGORITHM_INCONSISTENCY,
            X509_V_ERR_PATHLEN_INVALID_FOR_NON_CA...X509_V_ERR_EC_KEY_EXPLICIT_PARAMS:
            return .malformedCertificate
        default: return .other
        }
    }
}

/// The verify callback: OpenSSL's default (stop at the first error), except that a trust anchor without keyUsage is
/// accepted. X509_STRICT refuses CA certificates without keyUsage; for the anchor itself that is not a path
/// validation rule (RFC 5280 6.1.1 (d): the anchor is an input, and 6.3.3 (f) checks a CRL issuer's keyUsage only
/// "if a key usage extension is present").
private let anchorTolerantCallback: @convention(c) (Int32, OpaquePointer?) -> Int32 = { ok, context in
    guard ok == 0, let context else { return ok }
    guard X509_STORE_CTX_get_error(context) == X509_V_ERR_CA_CERT_MISSING_KEY_USAGE,
        let chain = X509_STORE_CTX_get0_chain(context)
    else { return 0 }
    let depth = X509_STORE_CTX_get_error_depth(context)
    let isAnchor = depth == COpenSSL_sk_X509_num(chain) - 1 && depth >= X509_STORE_CTX_get_num_untrusted(context)
    return isAnchor ? 1 : 0
}

/// Reports a failure the way OpenSSL's `CB_FAIL_IF` does: record it on the context and ask the verify callback
/// whether to go on (the default callback says no).
private func reportFailure(
    _ context: OpaquePointer, _ certificate: OpaquePointer?, _ depth: Int32, _ code: Int32
)
    -> Bool
{
    X509_STORE_CTX_set_error(context, code)
    X509_STORE_CTX_set_error_depth(context, depth)
    X509_STORE_CTX_set_current_cert(context, certificate)
    guard let callback = X509_STORE_CTX_get_verify_cb(context) else { return false }
    return callback(0, context) != 0
}

/// `X509_STORE_CTX_set_verify` replacement for OpenSSL's `internal_verify` (crypto/x509/x509_vfy.c, 3.0) that
/// consults the ``SignatureCache`` before each `X509_verify` and treats notAfter as inclusive.
///
/// OpenSSL documents this hook as "responsible for verifying chain signatures and expiration times"; the rest of
/// `X509_verify_cert` (path building, extensions, purpose, host name, trust) is unchanged. It walks the built chain
/// from the anchor down, exactly as `internal_verify` does: the self-signed anchor's own signature is not checked
/// (it adds no security), every other certificate's signature is checked with its issuer's key after the issuer's
/// keyUsage (`X509_check_issued`), and every certificate's validity is compared with the injected time.
private let cachedSignatureVerify: @convention(c) (OpaquePointer?) -> Int32 = { context in
    guard let context,
        let raw = X509_STORE_CTX_get_ex_data(context, stateIndex),
        let chain = X509_STORE_CTX_get0_chain(context)
    else { return 0 }
    let state = Unmanaged<VerificationState>.fromOpaque(raw).takeUnretainedValue()
    var depth = COpenSSL_sk_X509_num(chain) - 1
    guard depth >= 0, var issuer = COpenSSL_sk_X509_value(chain, depth) else { return 0 }
    var subject: OpaquePointer
    let checkIssued = X509_STORE_CTX_get_check_issued(context)
    if let checkIssued, checkIssued(context, issuer, issuer) != 0 {
        subject = issuer
    } else {
        guard depth > 0 else {
            return reportFailure(context, issuer, 0, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE) ? 1 : 0
        }
        depth -= 1
        X509_STORE_CTX_set_error_depth(context, depth)
        guard let next = COpenSSL_sk_X509_value(chain, depth) else { return 0 }
        subject = next
    }
    while depth >= 0 {
        if subject != issuer {
            let issuerDepth = depth + 1
            let allowed = X509_check_issued(issuer, subject)
            if allowed != X509_V_OK, !reportFailure(context, issuer, issuerDepth, allowed) { return 0 }
            if let key = X509_get0_pubkey(issuer) {
                let issuerDER = state.der(issuer)
                let subjectDER = state.der(subject)
                if state.cache?.contains(issuer: issuerDER, subject: subjectDER) != true {
                    if X509_verify(subject, key) > 0 {
                        state.cache?.insert(issuer: issuerDER, subject: subjectDER)
                    } else if !reportFailure(context, subject, depth, X509_V_ERR_CERT_SIGNATURE_FAILURE) {
                        return 0
                    }
                }
            } else if !reportFailure(context, issuer, issuerDepth, X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY) {
                return 0
            }
        }
        var now = state.time
        let notBefore = X509_cmp_time(X509_get0_notBefore(subject), &now)
        if notBefore == 0, !reportFailure(context, subject, depth, X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD) {
            return 0
        }
        if notBefore > 0, !reportFailure(context, subject, depth, X509_V_ERR_CERT_NOT_YET_VALID) { return 0 }
        // X509_cmp_time answers -1 for a time "earlier than, or equal to" the one compared with; notAfter is
        // inclusive (RFC 5280 4.1.2.5: "the certificate validity period includes the notAfter time"), so a
        // certificate has expired only when notAfter is at or before one second earlier (times are whole seconds).
        var lastValidSecond = now == time_t.min ? now : now - 1
        let notAfter = X509_cmp_time(X509_get0_notAfter(subject), &lastValidSecond)
        if notAfter == 0, !reportFailure(context, subject, depth, X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD) {
            return 0
        }
        if notAfter < 0, !reportFailure(context, subject, depth, X509_V_ERR_CERT_HAS_EXPIRED) { return 0 }
        X509_STORE_CTX_set_current_cert(context, subject)
        X509_STORE_CTX_set_error_depth(context, depth)
        if let callback = X509_STORE_CTX_get_verify_cb(context), callback(1, context) == 0 { return 0 }
        depth -= 1
        if depth >= 0 {
            issuer = subject
            guard let next = COpenSSL_sk_X509_value(chain, depth) else { return 0 }
            subject = next
        }
    }
    return 1
}
