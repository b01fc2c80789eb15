import Foundation

/// Why a transport operation failed.
package enum TransportError: Error, Hashable, Sendable, LocalizedError {
    /// The text or host is not a usable endpoint.
    case invalidEndpoint(String)
    /// Resolving a host failed: host, reason.
    case resolve(String, String)
    /// Every address of an endpoint refused, timed out or failed: endpoint, reasons.
    case connect(String, String)
    /// No address of an endpoint could be bound and listened on: endpoint, reasons.
    case bind(String, String)
    /// The listener or connection was closed locally.
    case closed
    /// A system call failed; the message names the call and includes `strerror`.
    case io(String)
    /// The process (or the system) has no descriptor left for a new connection (`EMFILE`,
    /// `ENFILE`), or no memory for one: the message names the call and includes `strerror`.
    case descriptorsExhausted(String)

    /// A one-line human-readable description.
    package var errorDescription: String? {
        switch self {
        case .invalidEndpoint(let text):
            return "invalid endpoint \"\(text)\" (expected HOST:PORT or [IPv6]:PORT)"
        case .resolve(let host, let reason):
            return "cannot resolve \(host): \(reason)"
        case .connect(let endpoint, let reason):
            return "cannot connect to \(endpoint): \(reason)"
        case .bind(let endpoint, let reason):
            return "cannot listen on \(endpoint): \(reason)"
        case .closed:
            return "the socket was closed"
        case .io(let message), .descriptorsExhausted(let message):
            return message
        }
    }
}
