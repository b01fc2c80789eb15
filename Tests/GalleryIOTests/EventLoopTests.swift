import Foundation
@testable import GalleryIO
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// The event loop on its own: tasks, timers, and non-blocking socket streams whose delegates the
/// loop tells what happened.
@Suite("Event loop")
struct EventLoopTests {
    /// Waits until `condition` holds or `timeout` passes; true when it holds.
    static func waitUntil(_ timeout: Duration = .seconds(5), _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// A connected pair of stream sockets.
    static func socketPair() -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        #if canImport(Darwin)
        let type = SOCK_STREAM
        #else
        let type = Int32(SOCK_STREAM.rawValue)
        #endif
        #expect(socketpair(AF_UNIX, type, 0, &ends) == 0)
        return (ends[0], ends[1])
    }

    @Test("Tasks from other threads run on the loop's thread; timers fire in deadline order, cancelled ones never")
    func tasksAndTimers() throws {
        let loop = try EventLoop(name: "test-loop")
        defer { loop.shutdown() }
        let fired = Mutex<[String]>([])
        loop.execute { fired.withLock { $0.append(loop.inEventLoop ? "task on loop" : "task elsewhere") } }
        loop.schedule(after: 60_000_000) { fired.withLock { $0.append("late") } }
        loop.schedule(after: 20_000_000) { fired.withLock { $0.append("early") } }
        loop.execute {
            let timer = loop.schedule(after: 10_000_000) { fired.withLock { $0.append("cancelled") } }
            loop.cancel(timer)
        }
        #expect(Self.waitUntil { fired.withLock { $0.count } == 3 })
        usleep(30_000)
        #expect(fired.withLock { $0 } == ["task on loop", "early", "late"])
        #expect(!loop.inEventLoop)
    }

    @Test("A long turn of a loop excuses the silence of its sockets' peers: while it runs, and up to its end")
    func longTurnExcusesSilence() throws {
        let loop = try EventLoop(name: "test-turns")
        defer { loop.shutdown() }
        #expect(loop.unheardUntil(now: DispatchTime.now().uptimeNanoseconds) == 0)
        let release = DispatchSemaphore(value: 0)
        loop.execute { release.wait() }
        usleep(UInt32(EventLoop.longTurn / 1_000) + 50_000)
        let during = DispatchTime.now().uptimeNanoseconds
        #expect(loop.unheardUntil(now: during) == during)
        release.signal()
        // Asked with `now: 0`, the loop tells the end of its last long turn.
        #expect(Self.waitUntil { loop.unheardUntil(now: 0) >= during })
        // Short turns excuse nothing more.
        let after = loop.unheardUntil(now: 0)
        for _ in 0..<10 { loop.execute {} }
        usleep(20_000)
        #expect(loop.unheardUntil(now: DispatchTime.now().uptimeNanoseconds) == after)
    }

    /// Records the stream events a loop delivers.
    final class EventRecorder: NSObject, StreamDelegate, @unchecked Sendable {
        let events = Mutex<[Stream.Event]>([])
        let received = Mutex<[UInt8]>([])
        let loop: EventLoop

        init(loop: EventLoop) { self.loop = loop }

        func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
            #expect(loop.inEventLoop)
            events.withLock { $0.append(eventCode) }
            guard eventCode == .hasBytesAvailable, let input = aStream as? InputStream else { return }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while input.hasBytesAvailable {
                let count = input.read(&buffer, maxLength: buffer.count)
                if count > 0 { received.withLock { $0 += buffer[..<count] } }
            }
        }

        func count(_ event: Stream.Event) -> Int { events.withLock { $0.filter { $0 == event }.count } }
    }

    @Test("Non-blocking streams: the delegate hears hasBytesAvailable, hasSpaceAvailable after a full socket drains, and endEncountered")
    func streamEvents() throws {
        let loop = try EventLoop(name: "test-streams")
        defer { loop.shutdown() }
        let (mine, theirs) = Self.socketPair()
        defer { close(theirs) }
        let socket = NonBlockingSocket(descriptor: mine, remote: "pair", loop: loop)
        let recorder = EventRecorder(loop: loop)
        let registered = Mutex(false)
        loop.execute {
            socket.input.delegate = recorder
            socket.output.delegate = recorder
            registered.withLock { $0 = (try? socket.register()) != nil }
        }
        #expect(Self.waitUntil { registered.withLock { $0 } })

        _ = [UInt8](repeating: 7, count: 1_000).withUnsafeBytes { write(theirs, $0.baseAddress, $0.count) }
        #expect(Self.waitUntil { recorder.received.withLock { $0.count } == 1_000 })

        // Fill the socket: a write comes back short, then the loop says when there is room again.
        let short = Mutex(false)
        loop.execute {
            let chunk = [UInt8](repeating: 1, count: 64 << 10)
            for _ in 0..<256 {
                let written = chunk.withUnsafeBufferPointer { socket.output.write($0.baseAddress!, maxLength: $0.count) }
                if written < chunk.count {
                    short.withLock { $0 = true }
                    #expect(!socket.output.hasSpaceAvailable)
                    break
                }
            }
        }
        #expect(Self.waitUntil { short.withLock { $0 } })
        #expect(recorder.count(.hasSpaceAvailable) == 0)
        var sink = [UInt8](repeating: 0, count: 64 << 10)
        #expect(Self.waitUntil {
            _ = recv(theirs, &sink, sink.count, Int32(MSG_DONTWAIT))
            return recorder.count(.hasSpaceAvailable) > 0
        })

        shutdown(theirs, Int32(SHUT_WR))
        #expect(Self.waitUntil { recorder.count(.endEncountered) == 1 })
        // The socket's state is bound to its loop: read there.
        let atEnd = Mutex<Bool?>(nil)
        loop.execute { atEnd.withLock { $0 = socket.input.streamStatus == .atEnd } }
        #expect(Self.waitUntil { atEnd.withLock { $0 } != nil })
        #expect(atEnd.withLock { $0 } == true)
        loop.execute { socket.close() }
    }
}
