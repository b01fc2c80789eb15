import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the fuzz loop on its own thread, so that it does not hold a thread of the Swift concurrency
/// pool; nil when it did not finish within `timeout` (the thread is then left to run).
enum FuzzThread {
    static func run<T: Sendable>(timeout: Duration, _ body: @escaping @Sendable () -> T) async -> T? {
        let once = ResumeOnce()
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let resume: @Sendable (T?) -> Void = { value in
                if once.first() { continuation.resume(returning: value) }
            }
            let thread = Thread { resume(body()) }
            thread.stackSize = 8 << 20
            thread.start()
            let seconds = Double(timeout.components.seconds)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { resume(nil) }
        }
    }
}

/// True the first time only.
final class ResumeOnce: Sendable {
    private let done = Mutex(false)

    func first() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}

/// Prints the case seed when the process crashes inside the fuzz loop, then lets the previous
/// handler (the Swift backtracer or the default action) run.
enum CrashReporter {
    static let current = Atomic<UInt64>(0)
    private static let signals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE]
    nonisolated(unsafe) private static var previous: [Int32: sigaction] = [:]

    static func install() {
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                CrashReporter.report()
                CrashReporter.restore(signal)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous[signal] = old
        }
    }

    static func uninstall() {
        for signal in signals { restore(signal) }
    }

    private static func restore(_ signal: Int32) {
        guard var old = previous[signal] else { return }
        sigaction(signal, &old, nil)
    }

    /// Writes the current case seed to standard error without allocating.
    private static func report() {
        var text: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                   UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let value = current.load(ordering: .relaxed)
        withUnsafeMutableBytes(of: &text) { buffer in
            buffer[0] = UInt8(ascii: "0")
            buffer[1] = UInt8(ascii: "x")
            for index in 0..<16 {
                let nibble = UInt8((value >> (UInt64(15 - index) * 4)) & 0xF)
                buffer[2 + index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
            let prefix: StaticString = "\nFrameFuzz: crashed; if in the fuzz loop, replay with FRAME_FUZZ_CASE="
            _ = write(2, prefix.utf8Start, prefix.utf8CodeUnitCount)
            _ = write(2, buffer.baseAddress, 18)
            let suffix: StaticString = "\n"
            _ = write(2, suffix.utf8Start, suffix.utf8CodeUnitCount)
        }
    }
}
