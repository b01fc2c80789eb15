#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Signal state a process inherits from whoever started it.
enum InheritedSignals {
    /// Makes SIGINT and SIGTERM stop the process again even when the parent left them blocked or
    /// ignored (a test runner, a shell's background job), so that `watch` and `drag --wait` end
    /// when asked to; `serve` installs its own handlers afterwards.
    static func restoreDefaults() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in [SIGINT, SIGTERM] {
            sigaddset(&set, number)
            signal(number, SIG_DFL)
        }
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }
}
