import Foundation
import GalleryIO
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// `LoopBound`, the one checked box for state confined to an event loop's thread (or the
/// simulation's): every access on the owner's thread passes, and in debug builds an access from
/// any other thread stops the process (shown in a child process, so the suite goes on).
@Suite("Loop-bound state")
struct LoopBoundTests {
    /// Runs `body` on a new thread and waits for it (the access "from another thread").
    static func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        done.wait()
    }

    @Test("Accesses on the owning loop pass, from tasks queued by many threads; the owner is the loop's thread only")
    func accessOnTheLoopPasses() throws {
        let loop = try EventLoop(name: "bound-test")
        defer { loop.shutdown() }
        let counter = LoopBound(0, owner: loop.owner)
        let threads = 4, rounds = 500
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<rounds { loop.execute { counter.value += 1 } }
        }
        let seen = Mutex<(count: Int, onLoop: Bool)>((0, false))
        loop.execute {
            seen.withLock { $0 = (counter.value, loop.owner.isCurrent) }
            finished.signal()
        }
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(seen.withLock { $0.count } == threads * rounds)
        #expect(seen.withLock { $0.onLoop })
        #expect(!loop.owner.isCurrent)
        #expect(!loop.inEventLoop)
    }

    @Test("An owner no thread claimed yet lets any thread set up; once claimed, only the claimer")
    func claiming() {
        let owner = OwningThread()
        let before = Mutex(false)
        Self.onAnotherThread { before.withLock { $0 = owner.isCurrent } }
        #expect(before.withLock { $0 })
        owner.claim()
        #expect(owner.isCurrent)
        let after = Mutex(true)
        Self.onAnotherThread { after.withLock { $0 = owner.isCurrent } }
        #expect(!after.withLock { $0 })
    }

    #if DEBUG
    @Test("Reading a loop-bound value off its loop stops a debug build")
    func readOffTheLoopStops() async {
        await #expect(processExitsWith: .failure) {
            let loop = try! EventLoop(name: "bound-test-read")
            let value = LoopBound(7, owner: loop.owner)
            _ = value.value
        }
    }

    @Test("Writing a loop-bound value off its loop stops a debug build")
    func writeOffTheLoopStops() async {
        await #expect(processExitsWith: .failure) {
            let loop = try! EventLoop(name: "bound-test-write")
            let value = LoopBound(7, owner: loop.owner)
            value.value += 1
        }
    }

    @Test("A confined type's state touched off its loop (a socket's reading switch) stops a debug build")
    func confinedTypeOffTheLoopStops() async {
        await #expect(processExitsWith: .failure) {
            let loop = try! EventLoop(name: "bound-test-socket")
            let socket = NonBlockingSocket(descriptor: EventLoopTests.socketPair().0, remote: "pair", loop: loop)
            socket.setReading(false)
        }
    }

    @Test("The same switch on the socket's loop passes (the child exits normally)")
    func confinedTypeOnTheLoopPasses() async {
        await #expect(processExitsWith: .success) {
            let loop = try! EventLoop(name: "bound-test-socket-ok")
            let socket = NonBlockingSocket(descriptor: EventLoopTests.socketPair().0, remote: "pair", loop: loop)
            let done = DispatchSemaphore(value: 0)
            loop.execute {
                socket.setReading(false)
                socket.close()
                done.signal()
            }
            done.wait()
            loop.shutdown()
        }
    }
    #endif
}
