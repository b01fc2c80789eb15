import Foundation

/// Milliseconds since 1970 as people read them in membership messages and listings.
package enum Timestamp {
    /// `2026-11-27T05:03:53Z`.
    package static func text(_ milliseconds: UInt64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1_000))
    }

    /// Now, in milliseconds since 1970.
    package static var now: UInt64 { UInt64(max(0, Date().timeIntervalSince1970 * 1_000)) }
}
