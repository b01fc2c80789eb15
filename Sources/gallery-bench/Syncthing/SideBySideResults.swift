import Foundation

/// The samples of a side-by-side run, by figure and system, each printed as a JSON line when
/// taken; at the end, the medians, their ratio (ours / Syncthing's) and the target per
/// figure.
final class SideBySideResults {
    /// One figure: its key (e.g. `import.small.seconds`), and its samples per system.
    private var samples: [String: [SideBySideSystem: [Double]]] = [:]
    private var order: [String] = []

    /// Records one sample and prints it:
    /// `{"figure": F, "system": S, "repetition": R, "value": V}`.
    func record(_ figure: String, _ system: SideBySideSystem, repetition: Int, _ value: Double) {
        if samples[figure] == nil { order.append(figure) }
        samples[figure, default: [:]][system, default: []].append(value)
        writeLine("{\"figure\": \"\(figure)\", \"system\": \"\(system.rawValue)\", \"repetition\": \(repetition), \"value\": \(Self.number(value))}", to: .standardOutput)
    }

    /// The median of a figure's samples for a system, nil when there are none.
    func median(_ figure: String, _ system: SideBySideSystem) -> Double? {
        samples[figure]?[system].flatMap(Self.median)
    }

    /// The samples of a figure for a system, in the order taken.
    func values(_ figure: String, _ system: SideBySideSystem) -> [Double] {
        samples[figure]?[system] ?? []
    }

    /// Every figure recorded, in the order first recorded.
    var figures: [String] { order }

    /// The median of `values` (the mean of the middle two for an even count); nil when empty.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// A JSON number (finite, 6 significant digits) or `null`.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return String(format: "%.6g", value)
    }
}

/// Progress on standard error (which phase runs), so that a long run shows where it is.
enum SideBySideLog {
    static let start = ContinuousClock.now

    static func note(_ text: String) {
        let seconds = Stopwatch.seconds(start.duration(to: .now))
        writeLine(String(format: "[%7.1f s] ", seconds) + text, to: .standardError)
    }
}
