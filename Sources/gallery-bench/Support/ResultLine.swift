import Foundation

/// The outcome of one workload, printed as one JSON line:
/// `{"workload": "W1", "ops": N, "seconds": S, "opsPerSecond": R, "bytes": B, "peakRSSBytes": M}`,
/// followed by any extra fields of the workload (e.g. `"bytesPerItem"`).
struct ResultLine {
    /// The workload's name, e.g. `W1`.
    var workload: String
    /// The number of ops timed.
    var ops: Int
    /// The seconds the timed part took.
    var seconds: Double
    /// The size of the encoded op log where relevant, else nil (`null`).
    var bytes: Int?
    /// The process's peak resident set size (VmHWM) when the timed part ended; nil (`null`) when unknown.
    var peakRSSBytes: Int?
    /// Further numeric fields, printed after the standard ones in this order; nil prints `null`.
    var extra: [(name: String, value: Double?)] = []

    /// Ops per second of the timed part.
    var opsPerSecond: Double {
        seconds > 0 ? Double(ops) / seconds : 0
    }

    /// The JSON line, without a trailing newline.
    var json: String {
        var fields: [String] = [
            "\"workload\": \"\(workload)\"",
            "\"ops\": \(ops)",
            "\"seconds\": \(String(format: "%.6f", seconds))",
            "\"opsPerSecond\": \(Int(opsPerSecond.rounded()))",
            "\"bytes\": \(Self.number(bytes))",
            "\"peakRSSBytes\": \(Self.number(peakRSSBytes))",
        ]
        for (name, value) in extra {
            fields.append("\"\(name)\": \(value.map { String(format: "%.1f", $0) } ?? "null")")
        }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    private static func number(_ value: Int?) -> String {
        value.map(String.init) ?? "null"
    }
}
