import Foundation

/// Why driving the browser failed.
package enum BrowserError: Error, Sendable, LocalizedError {
    /// No Chromium binary was found; the text names the paths tried and how to install one.
    case notInstalled(String)
    /// Spawning Chromium failed: the system call and its error.
    case launchFailed(String)
    /// The DevTools pipe closed (Chromium exited or crashed).
    case disconnected
    /// Nothing arrived in time: what was awaited.
    case timeout(String)
    /// Chromium answered a command with an error: method, message.
    case protocolError(String, String)
    /// A page script threw: the exception text.
    case javaScript(String)
    /// No element matched a selector, or it has no box.
    case elementNotFound(String)
    /// A reply did not have the expected shape: what was expected.
    case unexpectedReply(String)

    /// A one-line human-readable description.
    package var errorDescription: String? {
        switch self {
        case .notInstalled(let text): return "Chromium is not installed: \(text)"
        case .launchFailed(let text): return "cannot start Chromium: \(text)"
        case .disconnected: return "the DevTools pipe to Chromium closed"
        case .timeout(let what): return "timed out waiting for \(what)"
        case .protocolError(let method, let message): return "\(method) failed: \(message)"
        case .javaScript(let text): return "page script threw: \(text)"
        case .elementNotFound(let selector): return "no visible element matches \(selector)"
        case .unexpectedReply(let what): return "unexpected DevTools reply: expected \(what)"
        }
    }
}
