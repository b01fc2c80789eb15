import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Spawns children with no signals blocked.
///
/// A child starts with the signal mask of the thread that spawns it, and tests run on threads that
/// block most signals (libdispatch's workers): a `gallery watch` started from a test ignored SIGINT,
/// so stopping it waited for the timeout and a SIGKILL.
package enum SpawnSignalMask {
    /// Runs `body` (which spawns) with this thread's signal mask cleared, then restores it.
    package static func cleared<Result>(_ body: () throws -> Result) rethrows -> Result {
        var empty = sigset_t(), saved = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        return try body()
    }
}
