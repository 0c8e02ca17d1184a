import Foundation
import RampartJOSE
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The identity provider's JWKS file behind a ``SessionTokenVerifier``, and the key set last read from it.
///
/// The file is read again when a token names a `kid` the keys in use lack (at most once per
/// ``SessionTokenVerifier/reloadInterval``), when its modification time, size or inode changed (looked at, with one
/// `stat`, at most once per interval), and on ``reload(trigger:)`` (SIGHUP).
///
/// Revocation fails closed. A well-formed JWKS with no key for the configured algorithms (`{"keys": []}`, or only
/// keys of other types or uses) *is* the identity provider's answer: it replaces the keys in use, so every session
/// token is refused (`sessionKeysEmpty`). A file that cannot be read or parsed (deleted, half-written, not JSON) keeps
/// the keys in use for at most ``maximumUnreadableSeconds`` after the first failed read, so a rotation that replaces
/// the file non-atomically does not log every user out (`sessionKeysKept`, once per version of the file); past that
/// bound the keys are dropped and every token is refused until the file reads again (`sessionKeysDropped`). Each
/// outcome is logged and counted in `/metrics` (`rampart_session_key_events_total`, `rampart_session_keys_in_use`).
///
/// Requests only hold `state` to copy the key set or claim a check; the reading and parsing happen outside it. One
/// reload runs at a time (`reloading`): a request that finds one running goes on with the keys in use instead of
/// waiting, and only SIGHUP, on its own dispatch queue, waits for it.
final class SessionKeyFile: Sendable {
    /// One version of the file, as `stat` (following symbolic links, so a Kubernetes ConfigMap's swapped target
    /// counts) sees it.
    struct Stamp: Hashable, Sendable, CustomStringConvertible {
        let modifiedSeconds: Int64
        let modifiedNanoseconds: Int64
        let size: Int64
        let inode: UInt64

        var description: String { "\(size) bytes modified at \(modifiedSeconds).\(modifiedNanoseconds)" }
    }

    /// Why a reload runs, which decides what is logged.
    enum Trigger: Sendable {
        /// A token named an unknown `kid`: logged when the keys changed or the failure is new.
        case unknownKeyID
        /// The file's stamp changed: logged as `unknownKeyID`.
        case fileChanged
        /// SIGHUP: the outcome is always logged, prefixed `SIGHUP:`.
        case signal
        /// ``SessionTokenVerifier/reloadKeySet()``: the outcome is always logged.
        case request
    }

    struct State: Sendable {
        /// The keys in use: the last usable version of the file.
        var keySet: JSONWebKeySet
        /// The version of the file last read, usable or not (nil: `stat` failed).
        var readStamp: Stamp?
        /// When a request last looked at the file's stamp.
        var lastStampCheck: Date?
        /// When an unknown kid last caused a read.
        var lastMissReload: Date?
        /// The failure last logged (the version and the reason), so that one bad version is logged once.
        var loggedFailure: String?
        /// When the file first failed to read since it last read well; nil while it reads well.
        var failingSince: Date?
    }

    /// How long an unreadable or unparseable file keeps the keys last read from it in use (5 minutes): long enough
    /// for a deployment to finish rewriting it, short enough that deleting the file revokes the keys.
    static let maximumUnreadableSeconds: TimeInterval = 300

    /// The file's path (`subject.jwt.jwks`).
    let path: String
    /// Reads the file's bytes; nil for a verifier built from a key set, which never reloads.
    let readFile: (@Sendable (String) throws -> [UInt8])?
    /// Parses the bytes and checks that the set serves the configured algorithms.
    let keySetOf: @Sendable ([UInt8]) throws -> JSONWebKeySet
    let log: ServiceLog
    let metrics: ServiceMetrics?
    let clock: @Sendable () -> Date
    let state: Mutex<State>
    let reloading = Mutex(())

    /// Keys read from the file at `path`, whose stamp was `stamp` just before.
    init(
        path: String, keySet: JSONWebKeySet, stamp: Stamp?, log: ServiceLog, metrics: ServiceMetrics?,
        clock: @escaping @Sendable () -> Date,
        readFile: @escaping @Sendable (String) throws -> [UInt8],
        keySetOf: @escaping @Sendable ([UInt8]) throws -> JSONWebKeySet
    ) {
        self.path = path
        self.readFile = readFile
        self.keySetOf = keySetOf
        self.log = log
        self.metrics = metrics
        self.clock = clock
        state = Mutex(State(keySet: keySet, readStamp: stamp))
        metrics?.recordSessionKeys(event: "loaded", keysInUse: keySet.keys.count)
    }

    /// A fixed key set, never reloaded.
    init(fixed keySet: JSONWebKeySet, path: String) {
        self.path = path
        readFile = nil
        keySetOf = { _ in keySet }
        log = .disabled
        metrics = nil
        clock = { Date() }
        state = Mutex(State(keySet: keySet))
    }

    /// The keys in use.
    var keySet: JSONWebKeySet { state.withLock { $0.keySet } }

    /// The keys to verify with at `now`: the keys in use, first reloaded if the file's stamp changed (looked at once
    /// per interval).
    func current(now: Date) -> JSONWebKeySet {
        let (keySet, isCheckDue) = state.withLock { state in
            let due =
                readFile != nil
                && now.isReloadDue(every: SessionTokenVerifier.reloadInterval, since: state.lastStampCheck)
            if due { state.lastStampCheck = now }
            return (state.keySet, due)
        }
        guard isCheckDue else { return keySet }
        let stamp = Self.stamp(of: path)
        guard state.withLock({ $0.readStamp != stamp }) else { return dropIfUnreadableTooLong(now: now) ?? keySet }
        return reloading.withLockIfAvailable { _ in reloadNow(trigger: .fileChanged, now: now) }?.keySet ?? keySet
    }

    /// Drops the keys in use when the file has failed to read for ``maximumUnreadableSeconds``; returns the empty
    /// set then, nil otherwise.
    private func dropIfUnreadableTooLong(now: Date) -> JSONWebKeySet? {
        let dropped = state.withLock { state -> JSONWebKeySet? in
            guard let since = state.failingSince, now.timeIntervalSince(since) >= Self.maximumUnreadableSeconds,
                !state.keySet.keys.isEmpty
            else { return nil }
            defer { state.keySet = .empty }
            return state.keySet
        }
        guard let dropped else { return nil }
        log.write(
            level: "warning", event: "sessionKeysDropped",
            message: "the JWKS file \(path) (subject.jwt.jwks) has not been readable for "
                + "\(Int(Self.maximumUnreadableSeconds)) s, so the \(Self.describe(dropped)) read from it earlier no "
                + "longer verify session tokens; every token is refused until the file is fixed")
        metrics?.recordSessionKeys(event: "dropped", keysInUse: 0)
        return .empty
    }

    /// After a token named a `kid` the keys in use lack: the keys read again from the file, or nil when the last
    /// such read was less than an interval ago or another reload is running.
    func reloadForUnknownKeyID(now: Date) -> JSONWebKeySet? {
        let isDue = state.withLock { state in
            guard readFile != nil,
                now.isReloadDue(every: SessionTokenVerifier.reloadInterval, since: state.lastMissReload)
            else { return false }
            state.lastMissReload = now
            return true
        }
        guard isDue else { return nil }
        return reloading.withLockIfAvailable { _ in reloadNow(trigger: .unknownKeyID, now: now) }?.keySet
    }

    /// Reads the file now, after any reload that is running.
    ///
    /// - Parameter trigger: `.signal` or `.request`.
    /// - Returns: The keys loaded.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) when the file cannot be read or is not usable; the
    ///   keys in use stay.
    func reload(trigger: Trigger) throws -> JSONWebKeySet {
        guard readFile != nil else { return keySet }
        let outcome = reloading.withLock { _ in reloadNow(trigger: trigger, now: clock()) }
        if let failure = outcome.failure { throw failure }
        return outcome.keySet
    }

    /// One reload; the caller holds `reloading`, so reloads never interleave and the key set installed is the one
    /// read last.
    private func reloadNow(trigger: Trigger, now: Date) -> (keySet: JSONWebKeySet, failure: AttestServiceError?) {
        let stamp = Self.stamp(of: path)
        let previous = keySet
        let result: Result<JSONWebKeySet, AttestServiceError>
        do {
            guard let readFile else { return (previous, nil) }
            result = .success(try keySetOf(readFile(path)))
        } catch let error as AttestServiceError {
            result = .failure(error)
        } catch {
            result = .failure(
                .invalidConfiguration("could not read the JWKS file \(path) (subject.jwt.jwks): \(error)"))
        }
        let prefix = trigger == .signal ? "SIGHUP: " : ""
        let always = trigger == .signal || trigger == .request
        switch result {
        case .success(let keySet):
            state.withLock { state in
                state.keySet = keySet
                state.readStamp = stamp
                state.loggedFailure = nil
                state.failingSince = nil
            }
            let changed = keySet.jsonEncoded != previous.jsonEncoded
            if keySet.keys.isEmpty {
                if changed || always {
                    log.write(
                        level: "warning", event: "sessionKeysEmpty",
                        message: prefix + "the JWKS file \(path) (subject.jwt.jwks) holds no key for the configured "
                            + "algorithms, so every session token is refused until it does (the \(Self.describe(previous)) "
                            + "in use before no longer verify)")
                    metrics?.recordSessionKeys(event: "emptied", keysInUse: 0)
                }
                return (keySet, nil)
            }
            if changed { metrics?.recordSessionKeys(event: "reloaded", keysInUse: keySet.keys.count) }
            if changed || always {
                log.write(
                    event: "sessionKeysReloaded",
                    message: prefix + "read \(Self.describe(keySet)) from the JWKS file \(path) (subject.jwt.jwks)"
                        + (changed ? "; they are in use now" : "; unchanged"))
            }
            return (keySet, nil)
        case .failure(let error):
            let failure = "\(stamp.map(\.description) ?? "unreadable"): \(error.reason)"
            let isNew = state.withLock { state in
                state.readStamp = stamp
                if state.failingSince == nil { state.failingSince = now }
                defer { state.loggedFailure = failure }
                return state.loggedFailure != failure
            }
            if let dropped = dropIfUnreadableTooLong(now: now) { return (dropped, error) }
            if isNew || always {
                log.write(
                    level: "warning", event: "sessionKeysKept",
                    message: prefix + "kept the \(Self.describe(previous)) in use for at most "
                        + "\(Int(Self.maximumUnreadableSeconds)) s after the first failed read, until the file is "
                        + "fixed: " + error.reason)
                metrics?.recordSessionKeys(event: "kept", keysInUse: previous.keys.count)
            }
            return (keySet, error)
        }
    }

    /// `2 keys (kid "a", "b")`, for the log (kids from the operator's file, never from a token).
    static func describe(_ keySet: JSONWebKeySet) -> String {
        let count = keySet.keys.count
        let kids = keySet.keys.compactMap(\.keyID).map { "\"\($0)\"" }
        return "\(count) key\(count == 1 ? "" : "s")"
            + (kids.isEmpty ? "" : " (kid " + kids.joined(separator: ", ") + ")")
    }

    /// The file's stamp, or nil when `stat` fails (the file is gone or unreachable).
    static func stamp(of path: String) -> Stamp? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = status.st_mtimespec
        #else
        let modified = status.st_mtim
        #endif
        return Stamp(
            modifiedSeconds: Int64(modified.tv_sec), modifiedNanoseconds: Int64(modified.tv_nsec),
            size: Int64(status.st_size), inode: UInt64(status.st_ino))
    }
}
