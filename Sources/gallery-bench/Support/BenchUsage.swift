/// The help text of `gallery-bench`.
enum BenchUsage {
    static let text = """
        usage: gallery-bench model [--only WORKLOAD]

        Runs the model benchmarks (build with -c release) and prints one JSON line per workload:
        {"workload", "ops", "seconds", "opsPerSecond", "bytes", "peakRSSBytes"} (W6 adds "bytesPerItem").
        Each workload runs in its own child process so that its peak RSS is its own.

          --only WORKLOAD   run one workload in this process: \(ModelWorkloads.names.joined(separator: ", "))

        exit codes: 0 success, 1 a benchmark failed, 64 usage error
        """
}
