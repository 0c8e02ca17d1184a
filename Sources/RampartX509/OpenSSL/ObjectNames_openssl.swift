import RampartASN1

#if canImport(COpenSSL)
internal import COpenSSL
import Synchronization

/// OpenSSL's short names for object identifiers (`CN`, `O`, `emailAddress`, …), so that names print exactly as the
/// `openssl` command line prints them.
package enum OpenSSLObjectNames {
    /// Names already looked up. Only identifiers OpenSSL knows are stored, so the cache is bounded by its table.
    private static let cache = Mutex<[ASN1ObjectIdentifier: String]>([:])

    /// The short name OpenSSL gives `identifier`, or nil when OpenSSL does not know it.
    package static func shortName(for identifier: ASN1ObjectIdentifier) -> String? {
        if let known = cache.withLock({ $0[identifier] }) { return known }
        // OBJ_txt2nid parses the dotted form (we pass digits and dots only) into a temporary object it frees itself;
        // OBJ_nid2sn returns a pointer into OpenSSL's static table, which must not be freed.
        let nid = OBJ_txt2nid(identifier.dottedString)
        guard nid != NID_undef, let name = OBJ_nid2sn(nid) else { return nil }
        let shortName = String(cString: name)
        cache.withLock { $0[identifier] = shortName }
        return shortName
    }
}
#endif
