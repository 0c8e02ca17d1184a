import Foundation
import RampartHTTP

/// The one place errors and refusals become HTTP: a status code and the body `{"error":"<code>","message":"…"}`.
///
/// Only the server layer maps to HTTP. Bodies carry the stable code and the error's `reason`/`message`, which never
/// hold request bytes; store details stay in the logs.
enum HTTPResponseError {
    /// The status for a thrown error.
    static func status(for code: AttestServiceError.Code) -> Int {
        switch code {
        case .invalidJSON, .missingField, .invalidField, .invalidBase64, .malformedRequest, .invalidTarget: 400
        case .endpointRemoved: 410
        case .headersTooLarge: 431
        case .requestTimeout: 408
        case .invalidSession, .invalidToken, .tokenExpired: 401
        case .crossOriginRequest: 403
        case .unsupportedMediaType: 415
        case .bodyTooLarge: 413
        case .lengthRequired: 411
        case .notFound, .keyNotFound: 404
        case .methodNotAllowed: 405
        case .rateLimited: 429
        case .storeFailure: 503
        default: 500
        }
    }

    /// The status for a refusal.
    static func status(for reason: Refusal.Reason) -> Int {
        switch reason {
        case .unknownKey, .invalidAssertion, .assertionRequired, .subjectRequired, .malformedSignature,
            .digestMismatch, .invalidSignature, .wrongPlatform:
            401
        case .keyBlocked, .wrongSubject, .wrongEnvironment, .invalidAttestation: 403
        case .challengeUsed, .challengeExpired, .challengeMismatch, .keyExists, .counterReplay: 409
        default: 403
        }
    }

    /// The typed code of anything a handler or middleware throws: the service's error code, the code a
    /// ``RouteRefusal`` carries, or `internalError` for any other error (a programming error).
    static func code(for error: any Error) -> ErrorCode {
        switch error {
        case let error as AttestServiceError: .service(error.code)
        case let refusal as RouteRefusal: refusal.code
        default: .internalError
        }
    }

    /// The response for anything a handler or middleware throws: its code's status, the JSON body, `Rampart-Error`
    /// and the headers the status needs (`Retry-After`, `Allow`, `WWW-Authenticate`).
    static func response(for error: any Error) -> HTTPResponse {
        switch error {
        case let error as AttestServiceError: response(for: error)
        case let refusal as RouteRefusal:
            body(status: refusal.code.status, code: refusal.code.description, message: refusal.message).adding(
                refusal.headers)
        default: internalError()
        }
    }

    /// The response for a thrown error.
    static func response(for error: AttestServiceError) -> HTTPResponse {
        var response = body(status: status(for: error.code), code: error.code.description, message: error.reason)
        if error.code == .storeFailure { response.headers["Retry-After"] = "1" }
        if error.code == .rateLimited { response.headers["Retry-After"] = String(error.retryAfterSeconds) }
        return response
    }

    /// The response for a refusal.
    static func response(for refusal: Refusal) -> HTTPResponse {
        body(status: status(for: refusal.reason), code: refusal.reason.description, message: refusal.message)
    }

    /// The response for an error that is not the service's own (a programming error): a generic 500.
    static func internalError() -> HTTPResponse {
        body(status: 500, code: "internalError", message: "the service failed unexpectedly; the failure was logged")
    }

    /// `{"error":"<code>","message":"…"}` with `status`; a 4xx or 5xx also carries `Rampart-Error: <code>`, so
    /// the header and the body name one code.
    static func body(status: Int, code: String, message: String) -> HTTPResponse {
        var response = JSONBody.response(status: status, ErrorBody(error: code, message: message))
        if status >= 400 { response.headers["Rampart-Error"] = code }
        return response
    }

    struct ErrorBody: Encodable, JSONObjectWritable {
        let error: String
        let message: String

        func write(to object: inout JSONObjectWriter) {
            object.string("error", error)
            object.string("message", message)
        }
    }
}

/// The code of an error answer, typed from the handler that refuses to the body and `Rampart-Error` that name it.
enum ErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// A thrown ``AttestServiceError``.
    case service(AttestServiceError.Code)
    /// A ``Refusal``.
    case refusal(Refusal.Reason)
    /// An internal-listener route without the operator token.
    case unauthorized
    /// The demo's balance is lower than the points asked for.
    case insufficientPoints
    /// An error that is not the service's own: a bug, logged as one.
    case internalError

    /// Every code an answer can carry (the OpenAPI document lists exactly these): the service's codes but the two
    /// that only start-up raises, the refusals, and the router's own.
    static var answerable: [ErrorCode] {
        AttestServiceError.Code.allCases.filter { $0 != .invalidConfiguration && $0 != .serverFailure }.map {
            .service($0)
        } + Refusal.Reason.allCases.map { .refusal($0) } + [.insufficientPoints, .unauthorized, .internalError]
    }

    /// The code's HTTP status.
    var status: Int {
        switch self {
        case .service(let code): HTTPResponseError.status(for: code)
        case .refusal(let reason): HTTPResponseError.status(for: reason)
        case .unauthorized: 401
        case .insufficientPoints: 409
        case .internalError: 500
        }
    }

    /// The stable name, as the body's `error` and `Rampart-Error` spell it.
    var description: String {
        switch self {
        case .service(let code): code.description
        case .refusal(let reason): reason.description
        case .unauthorized: "unauthorized"
        case .insufficientPoints: "insufficientPoints"
        case .internalError: "internalError"
        }
    }
}

/// A refusal the router raises itself (a 405, the operator check, the demo's balance), thrown like an error so that
/// the error-mapping middleware answers it in the one shape every error has.
struct RouteRefusal: Error {
    let code: ErrorCode
    /// What failed and what to do.
    let message: String
    /// Headers the status requires, e.g. `Allow` for a 405.
    let headers: [String: String]

    init(_ code: ErrorCode, _ message: String, headers: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.headers = headers
    }
}

extension HTTPResponse {
    fileprivate func adding(_ headers: [String: String]) -> HTTPResponse {
        var response = self
        response.headers.merge(headers) { $1 }
        return response
    }
}
