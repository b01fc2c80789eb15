/// The exit codes of `gallery`, as documented in the README.
enum ExitCode: Int32 {
    /// Success.
    case success = 0
    /// The operation failed; a one-line reason was printed.
    case failure = 1
    /// Bad usage: a one-line message and the command's usage were printed.
    case usage = 64
    /// No node serves the directory, or it cannot be reached.
    case unavailable = 69
    /// The node refused the directory's secret.
    case authRefused = 77
}
