import Foundation
import Synchronization

/// What an event loop calls when a registered descriptor is ready, on the loop's thread.
package protocol ReadinessHandler: AnyObject {
    /// The descriptor is ready as the event says.
    func ready(_ event: ReadinessEvent)
    /// The loop is ending with the descriptor still registered: release it.
    func loopClosing()
}

/// One thread that waits for readiness of many descriptors (epoll on Linux, kqueue on Darwin)
/// and runs their handlers, the tasks given to it, and its timers, one at a time.
///
/// Everything registered with a loop is touched on the loop's thread only; other threads hand it
/// work with `execute` or `schedule`. The task queue is under a `Mutex`; the handlers, timers and
/// read buffer are `LoopBound` to the loop's thread (checked on every access in debug builds).
package final class EventLoop: Sendable {
    /// A timer's handle, to cancel it.
    package struct TimerID: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    /// What other threads hand the loop.
    private struct Inbox {
        var tasks: [@Sendable () -> Void] = []
        var stopping = false
        var nextTimer: UInt64 = 0
    }

    private let selector: any ReadinessSelecting
    private let inbox = Mutex(Inbox())
    /// Signalled once the loop's thread has ended.
    private let finished = DispatchSemaphore(value: 0)
    /// The loop's thread, for `inEventLoop` and the `LoopBound` state of what is registered here.
    package let owner = OwningThread()

    // Loop thread only.
    private var handlers: [Int32: any ReadinessHandler] { _read { yield boundHandlers.value } _modify { yield &boundHandlers.value } }
    private let boundHandlers: LoopBound<[Int32: any ReadinessHandler]>
    private typealias Timer = (deadline: UInt64, id: UInt64, task: @Sendable () -> Void)
    private var timers: [Timer] { _read { yield boundTimers.value } _modify { yield &boundTimers.value } }
    private let boundTimers: LoopBound<[Timer]>
    private var cancelled: Set<UInt64> { _read { yield boundCancelled.value } _modify { yield &boundCancelled.value } }
    private let boundCancelled: LoopBound<Set<UInt64>>
    /// Descriptors deregistered while the current batch of events is handled.
    private var deregisteredThisTurn: Set<Int32> {
        _read { yield boundDeregistered.value }
        _modify { yield &boundDeregistered.value }
    }
    private let boundDeregistered: LoopBound<Set<Int32>>
    /// When the current turn started (0 while waiting for readiness), and when the last turn
    /// longer than `longTurn` ended.
    private let turns = Mutex<(started: UInt64, lastLongEnded: UInt64)>((0, 0))
    /// One read buffer shared by every socket of the loop (loop thread only): an idle connection
    /// holds no read buffer of its own.
    package var readBuffer: UnsafeMutableBufferPointer<UInt8> { boundReadBuffer.value }
    private let boundReadBuffer: LoopBound<UnsafeMutableBufferPointer<UInt8>>

    /// Makes a loop and starts its thread, named `name`.
    package init(name: String) throws(TransportError) {
        #if canImport(Darwin)
        selector = try KqueueSelector()
        #else
        selector = try EpollSelector(owner: owner)
        #endif
        boundHandlers = LoopBound([:], owner: owner)
        boundTimers = LoopBound([], owner: owner)
        boundCancelled = LoopBound([], owner: owner)
        boundDeregistered = LoopBound([], owner: owner)
        boundReadBuffer = LoopBound(.allocate(capacity: 64 << 10), owner: owner)
        let started = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            self.owner.claim()
            started.signal()
            run()
            finished.signal()
        }
        thread.name = name
        thread.stackSize = 512 << 10
        thread.start()
        started.wait()
    }

    deinit {
        boundReadBuffer.uncheckedValue.deallocate()
    }

    /// Whether the caller runs on this loop's thread (claimed before `init` returns).
    package var inEventLoop: Bool { owner.isCurrent }

    /// Runs `task` on the loop's thread, soon (after the events being handled).
    ///
    /// Only the first task queued since the loop last took its tasks wakes it: the loop runs every
    /// task queued before it waits again, so a burst of tasks (a heartbeat to each of many
    /// connections) costs one wake-up.
    package func execute(_ task: @escaping @Sendable () -> Void) {
        let wake = inbox.withLock { inbox -> Bool in
            if inbox.stopping { return false }
            inbox.tasks.append(task)
            return inbox.tasks.count == 1
        }
        if wake { selector.wakeUp() }
    }

    /// Runs `task` on the loop's thread after `nanoseconds`; callable from any thread.
    @discardableResult
    package func schedule(after nanoseconds: UInt64, _ task: @escaping @Sendable () -> Void) -> TimerID {
        let id = inbox.withLock { inbox -> UInt64 in
            inbox.nextTimer += 1
            return inbox.nextTimer
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + nanoseconds
        if inEventLoop {
            insertTimer(deadline: deadline, id: id, task: task)
        } else {
            execute { [self] in insertTimer(deadline: deadline, id: id, task: task) }
        }
        return TimerID(value: id)
    }

    /// Cancels a timer that has not fired yet. Loop thread only.
    package func cancel(_ timer: TimerID) {
        if timers.contains(where: { $0.id == timer.value }) { cancelled.insert(timer.value) }
    }

    private func insertTimer(deadline: UInt64, id: UInt64, task: @escaping @Sendable () -> Void) {
        // Sorted by deadline; a loop has few timers (one per connection at most), so a binary
        // search and an array insert beat a heap's bookkeeping.
        var low = 0
        var high = timers.count
        while low < high {
            let middle = (low + high) / 2
            if timers[middle].deadline <= deadline { low = middle + 1 } else { high = middle }
        }
        timers.insert((deadline, id, task), at: low)
    }

    /// Watches `descriptor` for `interest` and calls `handler` when it is ready. Loop thread only.
    package func register(_ descriptor: Int32, interest: ReadinessInterest, handler: any ReadinessHandler) throws(TransportError) {
        try selector.register(descriptor, interest: interest)
        handlers[descriptor] = handler
    }

    /// Changes what `descriptor` is watched for. Loop thread only.
    package func setInterest(_ descriptor: Int32, _ interest: ReadinessInterest) {
        guard handlers[descriptor] != nil else { return }
        try? selector.modify(descriptor, interest: interest)
    }

    /// Stops watching `descriptor` (before it is closed). Loop thread only.
    package func deregister(_ descriptor: Int32) {
        guard handlers.removeValue(forKey: descriptor) != nil else { return }
        selector.deregister(descriptor)
        deregisteredThisTurn.insert(descriptor)
    }

    /// Ends the loop after the tasks queued so far and waits for its thread; pending timers are
    /// dropped. Do not call from the loop's own thread.
    package func shutdown() {
        let first = inbox.withLock { inbox -> Bool in
            if inbox.stopping { return false }
            inbox.stopping = true
            return true
        }
        guard first else { return }
        selector.wakeUp()
        if !inEventLoop {
            finished.wait()
            finished.signal()
        }
    }

    /// A turn of the loop (the work between two waits for readiness) longer than this holds up
    /// every socket of the loop: their peers cannot be heard meanwhile.
    package static let longTurn: UInt64 = 100_000_000

    /// Until when the peers of this loop's sockets could not be heard, whatever they sent: `now`
    /// while the current turn has run longer than `longTurn` (bytes wait in the sockets), else the
    /// end of the last such turn, 0 if none. Any thread.
    package func unheardUntil(now: UInt64) -> UInt64 {
        turns.withLock { turns in
            turns.started != 0 && now > turns.started && now - turns.started > Self.longTurn ? now : turns.lastLongEnded
        }
    }

    private func beginTurn() {
        let now = DispatchTime.now().uptimeNanoseconds
        turns.withLock { $0.started = now }
    }

    private func endTurn() {
        let now = DispatchTime.now().uptimeNanoseconds
        turns.withLock { turns in
            if now > turns.started && now - turns.started > Self.longTurn { turns.lastLongEnded = now }
            turns.started = 0
        }
    }

    private func run() {
        var ready: [ReadinessEvent] = []
        while true {
            beginTurn()
            deregisteredThisTurn.removeAll(keepingCapacity: true)
            for event in ready {
                // A descriptor closed by an earlier handler of this batch may already be reused
                // (a new accept): its stale event is not the new socket's. Level-triggered, the
                // new socket's own readiness comes with the next wait.
                guard !deregisteredThisTurn.contains(event.descriptor) else { continue }
                handlers[event.descriptor]?.ready(event)
            }
            let (batch, stop) = inbox.withLock { inbox -> ([@Sendable () -> Void], Bool) in
                let batch = inbox.tasks
                inbox.tasks.removeAll(keepingCapacity: true)
                return (batch, inbox.stopping)
            }
            for task in batch { task() }
            if stop { break }
            runDueTimers()
            let pending = inbox.withLock { !$0.tasks.isEmpty || $0.stopping }
            let timeout: Int32
            if pending {
                timeout = 0
            } else if let next = timers.first?.deadline {
                let now = DispatchTime.now().uptimeNanoseconds
                timeout = next <= now ? 0 : Int32(clamping: (next - now + 999_999) / 1_000_000)
            } else {
                timeout = -1
            }
            endTurn()
            ready = selector.wait(timeoutMilliseconds: timeout)
        }
        for handler in handlers.values { handler.loopClosing() }
        handlers.removeAll()
        timers.removeAll()
        selector.close()
    }

    private func runDueTimers() {
        let now = DispatchTime.now().uptimeNanoseconds
        var due = 0
        while due < timers.count && timers[due].deadline <= now { due += 1 }
        guard due > 0 else { return }
        let fired = timers[..<due]
        timers.removeFirst(due)
        for timer in fired {
            if cancelled.remove(timer.id) != nil { continue }
            timer.task()
        }
    }
}
