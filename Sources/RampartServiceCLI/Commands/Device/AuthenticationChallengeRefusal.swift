import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers a server's request for HTTP authentication (a 401 with `WWW-Authenticate`) by cancelling the request, and
/// remembers what was asked, so `rampart device` can say so.
///
/// Linux's URLSession waits forever on such a challenge when no delegate answers it, and also when the delegate
/// answers `.performDefaultHandling` (swift-corelibs-foundation's FoundationNetworking with Swift 6.3, against a 401
/// `WWW-Authenticate: Basic` answer); `.useCredential` with no credential traps. The device has no credential beyond
/// the `--header` values it sends with every request, so cancelling is the only answer. (FoundationNetworking has no
/// server-trust challenges: every challenge here is HTTP authentication.)
final class AuthenticationChallengeRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    private let refused = Mutex<String?>(nil)

    /// The authentication the server asked for, e.g. `HTTP Basic (realm "api")`, once a challenge was refused.
    var refusedChallenge: String? { refused.withLock { $0 } }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        let method =
            switch space.authenticationMethod {
            case NSURLAuthenticationMethodHTTPBasic: "HTTP Basic"
            case NSURLAuthenticationMethodHTTPDigest: "HTTP Digest"
            default: space.authenticationMethod
            }
        // The realm is the server's text: printed only as printable ASCII, and not at any length.
        let realm = space.realm.map { text in
            let printable = text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" }
            return " (realm \"\(String(String.UnicodeScalarView(printable.prefix(64))))\")"
        }
        refused.withLock { $0 = method + (realm ?? "") }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }
}
