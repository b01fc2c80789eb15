/// Measures the wall-clock time of a piece of work on a monotonic clock.
enum Stopwatch {
    /// Runs `body` once and returns its result with the elapsed time in seconds.
    ///
    /// Uses `ContinuousClock`, which is monotonic (it never goes back when the system time is set).
    static func time<Result>(_ body: () throws -> Result) rethrows -> (result: Result, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        let elapsed = start.duration(to: clock.now)
        return (result, seconds(elapsed))
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
