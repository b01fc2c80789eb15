import Foundation
import GalleryCrypto

/// A browser's session (http-api.md section 2): what the token link's cookie holds, so that a
/// sign-in lasts `lifetime` (30 days) and then ends, without the token itself in the cookie jar.
///
/// The value is `s1.EXPIRY.MAC`: EXPIRY the Unix time in seconds the session ends, MAC the hex
/// HMAC-SHA256 of `gallery-session-v1:EXPIRY` under the node's token. The node keeps no session
/// table: any session it made is valid until EXPIRY, across restarts, and replacing the token file
/// ends them all. The raw token is still taken as a cookie (`curl -b gallery_session=TOKEN`).
enum WebSession {
    /// How long a sign-in lasts: 30 days.
    static let lifetimeSeconds = 30 * 24 * 60 * 60

    /// What a cookie's value says.
    enum Verdict: Equatable {
        /// A session that has not ended, or the token itself.
        case valid
        /// A session this node made that ended at this time.
        case expired(Date)
        /// Anything else: a session of another token (replaced), a forged or damaged value.
        case invalid
    }

    /// A session made now for `token`, ending `lifetimeSeconds` later.
    static func make(token: String, now: Date) -> String {
        let expiry = Int(now.timeIntervalSince1970) + lifetimeSeconds
        return "s1.\(expiry).\(mac(expiry: expiry, token: token))"
    }

    /// What `value` is worth for `token` at `now`.
    static func check(_ value: String, token: String, now: Date) -> Verdict {
        if WebToken.constantTimeEquals(value, token) { return .valid }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "s1", parts[1].utf8.count <= 12, let expiry = Int(parts[1]), expiry > 0,
              WebToken.constantTimeEquals(String(parts[2]), mac(expiry: expiry, token: token))
        else { return .invalid }
        return Double(expiry) > now.timeIntervalSince1970 ? .valid : .expired(Date(timeIntervalSince1970: Double(expiry)))
    }

    /// The hex HMAC of the session ending at `expiry`.
    private static func mac(expiry: Int, token: String) -> String {
        SHA256.hex(HMACSHA256.authenticationCode(for: Array("gallery-session-v1:\(expiry)".utf8), key: Array(token.utf8)))
    }
}
