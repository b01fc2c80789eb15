import Foundation

/// The settings of one chaos run: `gallery-bench chaos [--seed N] [--seconds S] [--nodes K]
/// [--workers W] [--largest-blob BYTES] [--drag-timeout S] [--keep]`.
struct ChaosOptions: Sendable {
    /// Seeds every random choice of the schedule (which command, which node, which fault, when).
    var seed: UInt64 = UInt64.random(in: 1...999_999)
    /// How long commands and faults are issued, before healing and checking.
    var seconds: Double = 60
    /// How many `gallery serve` processes (3 to 5).
    var nodes = 3
    /// How many threads issue commands at once.
    var workers = 3
    /// The largest image added, in bytes (sizes are drawn from 1 KiB up to it, most of them small).
    var largestBlob = 8 << 20
    /// The `--timeout` of every drag, which bounds how long healing waits for placeholders.
    var dragTimeout: Double = 20
    /// Keep the run's folder (nodes' directories and logs) even when nothing was violated.
    var keep = false

    /// Parses the arguments after `chaos`.
    static func parse(_ arguments: [String]) throws(ChaosError) -> ChaosOptions {
        var options = ChaosOptions()
        var rest = arguments[...]
        func number(_ flag: String) throws(ChaosError) -> Double {
            guard let text = rest.popFirst(), let value = Double(text), value.isFinite, value > 0 else {
                throw .usage("\(flag) needs a positive number")
            }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--seed":
                guard let text = rest.popFirst(), let seed = UInt64(text) else { throw .usage("--seed needs an unsigned integer") }
                options.seed = seed
            case "--seconds": options.seconds = try number(argument)
            case "--nodes":
                let nodes = try number(argument)
                guard nodes == nodes.rounded(), (3...5).contains(Int(nodes)) else { throw .usage("--nodes must be 3, 4 or 5") }
                options.nodes = Int(nodes)
            case "--workers":
                let workers = try number(argument)
                guard workers == workers.rounded(), (1...8).contains(Int(workers)) else { throw .usage("--workers must be 1 to 8") }
                options.workers = Int(workers)
            case "--largest-blob":
                let bytes = try number(argument)
                guard bytes >= 1_024, bytes <= Double(64 << 20) else { throw .usage("--largest-blob must be 1024 to 67108864") }
                options.largestBlob = Int(bytes)
            case "--drag-timeout": options.dragTimeout = try number(argument)
            case "--keep": options.keep = true
            default: throw .usage("unknown chaos argument \"\(argument)\"")
            }
        }
        return options
    }

    /// The command that replays this run's schedule.
    var replayCommand: String {
        "gallery-bench chaos --seed \(seed) --seconds \(Self.format(seconds)) --nodes \(nodes) --workers \(workers)"
            + " --largest-blob \(largestBlob) --drag-timeout \(Self.format(dragTimeout))"
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
