import Foundation
@testable import GalleryControl
import GalleryIO
import GalleryWire
import Synchronization
import Testing
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The path of one command, client to command thread, without the thread starts it used to pay:
/// `ControlClient.send` reads its one answer on the calling thread (answering the node's heartbeats
/// there), and the node's command threads are parked between commands and reused.
@Suite("Control command path")
struct ControlCommandPathTests {
    // MARK: The client

    @Test("send answers the node's heartbeats while it waits, on the calling thread, and returns the answer that follows")
    func sendAnswersHeartbeats() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-send-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A node that answers only once the client has answered its heartbeat: a client that does
        // not answer heartbeats while it waits gets no answer and fails after its timeout.
        let node = try HeartbeatFirstNode(path: ControlClient.socketPath(of: directory))
        defer { node.stop() }
        let response = try ControlClient.send(ControlRequest(id: 41, command: .galleries), to: directory, timeout: .seconds(20))
        #expect(response.id == 41)
        #expect(response.error == "answered after a heartbeat")
        #expect(node.heartbeatsAnswered.value.load(ordering: .relaxed) == 1)
    }

    @Test("send against a node that closes without answering fails at once with a clear reason")
    func sendToClosingNode() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-send-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let node = try HeartbeatFirstNode(path: ControlClient.socketPath(of: directory), closeInstead: true)
        defer { node.stop() }
        let started = ContinuousClock.now
        #expect(throws: ControlClient.Failure.failed("the node closed the connection")) {
            _ = try ControlClient.send(ControlRequest(id: 1, command: .galleries), to: directory, timeout: .seconds(20))
        }
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    // MARK: The node's command threads

    @Test("200 commands one after the other run on one parked thread, not 200 started")
    func parkedThreadReused() throws {
        let threads = CommandThreads()
        let ran = Atomic<Int>(0)
        for _ in 0..<200 {
            let done = DispatchSemaphore(value: 0)
            threads.run {
                ran.add(1, ordering: .relaxed)
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 10) == .success)
            // The next command comes once the thread is parked again (as a command line's next).
            #expect(try waitUntil { threads.parkedThreads == 1 })
        }
        #expect(ran.load(ordering: .relaxed) == 200)
        #expect(threads.threadsStarted == 1)
    }

    @Test("Commands that wait run at once, each on its own thread: 8 blocked commands do not hold up a 9th; 2 stay parked after")
    func blockedCommandsDoNotQueue() throws {
        let threads = CommandThreads()
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<8 {
            threads.run {
                arrived.signal()
                release.wait()
            }
        }
        for _ in 0..<8 { #expect(arrived.wait(timeout: .now() + 10) == .success) }
        let ninth = DispatchSemaphore(value: 0)
        threads.run { ninth.signal() }
        #expect(ninth.wait(timeout: .now() + 10) == .success)
        for _ in 0..<8 { release.signal() }
        // A burst leaves `maximumParked` threads parked; the others end as they finish.
        #expect(try waitUntil { threads.liveThreads == threads.maximumParked && threads.parkedThreads == threads.maximumParked })
        #expect(threads.threadsStarted == 9)
    }

    @Test("A parked thread ends after its idle timeout; the next command starts one again")
    func idleThreadEnds() throws {
        let threads = CommandThreads(idleTimeout: 0.05)
        let done = DispatchSemaphore(value: 0)
        threads.run { done.signal() }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(try waitUntil { threads.liveThreads == 0 })
        threads.run { done.signal() }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(threads.threadsStarted == 2)
    }

    /// Polls `condition` every millisecond for up to 10 s; true once it holds.
    private func waitUntil(_ condition: () -> Bool) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            usleep(1_000)
        }
        return true
    }
}

/// A stand-in node on a control socket, for one connection: reads the request, sends a heartbeat,
/// waits up to 10 s for the client's heartbeat, then answers with a refusal that says so (or, with
/// `closeInstead`, closes without a word once the request is read).
private final class HeartbeatFirstNode: Sendable {
    /// A count shared with the connection's thread.
    final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    let heartbeatsAnswered = Count()
    private let listening: Int32
    private let finished = DispatchSemaphore(value: 0)

    init(path: String, closeInstead: Bool = false) throws {
        listening = try UnixSocket.listen(at: path)
        // The node's listener is non-blocking; this one's thread waits in `accept`.
        _ = POSIX.setNonBlocking(listening, false)
        let fd = listening, answered = heartbeatsAnswered, finished = finished
        Thread.detachNewThread {
            defer { finished.signal() }
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            defer { POSIX.closeDescriptor(connection) }
            var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
            guard case .controlRequest(let json)? = Self.next(connection, &decoder),
                  let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(json)) else { return }
            if closeInstead { return }
            Self.send(.heartbeat, on: connection)
            guard case .heartbeat? = Self.next(connection, &decoder) else { return }
            answered.value.add(1, ordering: .relaxed)
            let answer = ControlResponse(id: request.id, refused: "answered after a heartbeat")
            guard let bytes = try? JSONEncoder().encode(answer) else { return }
            Self.send(.controlResponse(Array(bytes)), on: connection)
            // Held open until the client closes: the answer is read before any end of stream.
            var scratch = [UInt8](repeating: 0, count: 256)
            _ = scratch.withUnsafeMutableBytes { POSIX.receive(connection, $0.baseAddress!, $0.count) }
        }
    }

    /// Stops listening; waits for the connection's thread.
    func stop() {
        _ = shutdown(listening, Int32(SHUT_RDWR))
        _ = finished.wait(timeout: .now() + 10)
        POSIX.closeDescriptor(listening)
    }

    private static func send(_ message: Message, on fd: Int32) {
        let bytes = message.frame.encoded
        _ = bytes.withUnsafeBytes { POSIX.sendAll(fd, $0.baseAddress!, $0.count) }
    }

    /// The next whole message, waiting up to 10 s; nil at the end, on an error or a timeout.
    private static func next(_ fd: Int32, _ decoder: inout FrameDecoder) -> Message? {
        let deadline = ContinuousClock.now + .seconds(10)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            if let frame = try? decoder.next() { return try? Message(frame: frame) }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) >= 0 else { return nil }
            guard entry.revents != 0 else { continue }
            guard case .success(let count) = buffer.withUnsafeMutableBytes({ POSIX.receive(fd, $0.baseAddress!, $0.count) }), count > 0 else {
                return nil
            }
            buffer.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return nil
    }
}
