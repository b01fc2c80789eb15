import Foundation
import GalleryIO
import Synchronization
import Testing

/// `ConditionLock`, the `Mutex` with a condition that lets the package's queues and waiters be
/// plainly `Sendable`: exclusion, waiting for a change made on another thread, and deadlines.
@Suite("ConditionLock")
struct ConditionLockTests {
    /// Many threads adding under the lock lose no increment (a data race would, now and then).
    @Test func excludes() {
        let counter = ConditionLock(0)
        let threads = 8, rounds = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<rounds { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == threads * rounds)
    }

    /// A waiter returns the value another thread sets, once it is set and broadcast; its body ran
    /// again after the wake-up, seeing the new state (not a copy taken before the wait).
    @Test func waitsForAChangeOnAnotherThread() {
        let box = ConditionLock<Int?>(nil)
        let runs = Mutex(0)
        let started = DispatchSemaphore(value: 0)
        let result = Mutex<Int?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            started.signal()
            let value = box.withLock(waitingUntil: Date().addingTimeInterval(30)) { state -> Int? in
                runs.withLock { $0 += 1 }
                return state
            }
            result.withLock { $0 = value }
            finished.signal()
        }
        started.wait()
        // The waiter has checked at least once before the value is set (or it finds it set at
        // once): either way the answer is the value, not nil.
        box.withLock { $0 = 42 }
        box.broadcast()
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(result.withLock { $0 } == 42)
        #expect(runs.withLock { $0 } >= 1)
    }

    /// Past its deadline with nothing set, a waiter returns nil, having run its body at least
    /// twice (before waiting and once more after the deadline), and not much later than the deadline.
    @Test func givesUpAtTheDeadline() {
        let box = ConditionLock<Int?>(nil)
        var runs = 0
        let start = Date()
        let value = box.withLock(waitingUntil: start.addingTimeInterval(0.05)) { state -> Int? in
            runs += 1
            return state
        }
        #expect(value == nil)
        #expect(runs >= 2)
        #expect(Date().timeIntervalSince(start) >= 0.05)
    }

    /// A `signal` wakes a waiter too (the pool's threads wait for jobs that way), and a body that
    /// throws ends the wait with its error, the lock released.
    @Test func signalWakesAndThrowingEnds() throws {
        struct Stopped: Error {}
        let box = ConditionLock((ready: false, stop: false))
        let outcome = Mutex<String?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do {
                _ = try box.withLock(waitingUntil: nil) { state throws(Stopped) -> Bool? in
                    if state.stop { throw Stopped() }
                    return state.ready ? true : nil
                }
                outcome.withLock { $0 = "returned" }
            } catch {
                outcome.withLock { $0 = "threw" }
            }
            finished.signal()
        }
        box.withLock { $0.stop = true }
        box.signal()
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(outcome.withLock { $0 } == "threw")
        // Released: taking it again does not block.
        #expect(box.withLock { $0.stop })
    }
}
