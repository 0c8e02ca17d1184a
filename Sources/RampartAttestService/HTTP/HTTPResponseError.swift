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

    static func body(status: Int, code: String, message: String) -> HTTPResponse {
        JSONBody.response(status: status, ErrorBody(error: code, message: message))
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
