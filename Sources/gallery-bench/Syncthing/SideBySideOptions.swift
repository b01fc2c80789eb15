/// The options of `gallery-bench syncthing`.
struct SideBySideOptions {
    var repetitions = 3
    var smallFiles = 10_000
    var smallBytes = 4_096
    var mediumFiles = 1_000
    var mediumBytes = 100 * 1_024
    var largeBytes = 256 << 20
    /// Seconds over which two connected idle nodes' CPU is read.
    var idleSeconds = 60
    /// Gallery sizes at which `watch` is measured (ours only); empty skips it.
    var watchItems = [100, 100_000]
    /// Changes timed per watch measurement.
    var watchChanges = 300
    /// Watchers attached at once in a watched block (the node's cost is divided by their number).
    var watchers = 8
    /// Blocks without and with watchers, interleaved, per gallery size.
    var watchBlocks = 3
    /// Which systems run (both by default; one alone to try the harness).
    var systems: [SideBySideSystem] = [.ours, .syncthing]
    /// Whether each import and scan waits for what the steps before left behind (`Settle`).
    var settle = true

    /// Parses `--NAME VALUE` pairs; throws a usage failure on anything else.
    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let option = rest.popFirst() {
            guard let value = rest.popFirst() else { throw BenchFailure.usage("\(option) needs a value") }
            func number() throws -> Int {
                guard let number = Int(value), number > 0 else { throw BenchFailure.usage("\(option) needs a positive number") }
                return number
            }
            switch option {
            case "--repetitions": repetitions = try number()
            case "--small-files": smallFiles = try number()
            case "--small-bytes": smallBytes = try number()
            case "--medium-files": mediumFiles = try number()
            case "--medium-bytes": mediumBytes = try number()
            case "--large-mib": largeBytes = try number() << 20
            case "--idle-seconds": idleSeconds = try number()
            case "--watch-changes": watchChanges = try number()
            case "--watchers": watchers = try number()
            case "--watch-blocks": watchBlocks = try number()
            case "--watch-items":
                let sizes = value.split(separator: ",").map { Int($0) }
                guard !sizes.isEmpty, sizes.allSatisfy({ ($0 ?? 0) >= 0 }) else { throw BenchFailure.usage("--watch-items takes N,N,... (0 skips)") }
                watchItems = sizes.compactMap { $0 }.filter { $0 > 1 }
            case "--settle":
                guard value == "on" || value == "off" else { throw BenchFailure.usage("--settle takes on or off") }
                settle = value == "on"
            case "--only":
                guard let system = SideBySideSystem(rawValue: value) else { throw BenchFailure.usage("--only takes ours or syncthing") }
                systems = [system]
            default: throw BenchFailure.usage("unknown option \(option)")
            }
        }
    }
}

/// The two systems compared.
enum SideBySideSystem: String {
    case ours
    case syncthing
}
