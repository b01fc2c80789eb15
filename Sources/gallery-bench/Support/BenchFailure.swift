/// Why `gallery-bench` stopped: bad usage (exit 64, usage printed) or a failed run (exit 1).
struct BenchFailure: Error {
    /// The one-line message printed after `gallery-bench: `.
    var message: String
    /// Whether the usage text follows the message (and the exit status is 64).
    var isUsage: Bool

    /// Bad arguments.
    static func usage(_ message: String) -> BenchFailure {
        BenchFailure(message: message, isUsage: true)
    }

    /// A benchmark that could not run or whose result is wrong.
    static func failed(_ message: String) -> BenchFailure {
        BenchFailure(message: message, isUsage: false)
    }
}
