import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import GalleryControl
import GalleryIO
import GalleryWire
import Testing

/// What command-line sessions cost a real `gallery serve` process: they run on the node's event
/// loops, so 50 long-lived `watch` sessions add no thread (they added two each before), and one
/// feed of the node's events serves them all.
@Suite("control sessions on the event loops", .serialized)
struct ControlSessionThreadsTests {
    /// One `watch` client over a raw socket, read by the test's own thread (no thread per client).
    private struct WatchClient {
        let fd: Int32
        var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
        var answers: [ControlResponse] = []

        init(socket path: String, request: Int, gallery: String) throws {
            fd = try UnixSocket.connect(to: path, deadline: .now + .seconds(5))
            let watch = ControlRequest(id: request, command: .watch(gallery: gallery))
            let frame = Message.controlRequest(Array(try JSONEncoder().encode(watch))).frame.encoded
            let failure = frame.withUnsafeBytes { POSIX.sendAll(fd, $0.baseAddress!, $0.count) }
            #expect(failure == nil)
        }

        /// Reads what is there (the socket is readable); answers heartbeats.
        mutating func readAvailable() throws {
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            let result = buffer.withUnsafeMutableBytes { POSIX.receive(fd, $0.baseAddress!, $0.count) }
            guard case .success(let count) = result, count > 0 else { return }
            decoder.append(Array(buffer[..<count]))
            while let frame = try decoder.next() {
                switch try Message(frame: frame) {
                case .controlResponse(let json):
                    answers.append(try JSONDecoder().decode(ControlResponse.self, from: Data(json)))
                case .heartbeat:
                    let reply = Message.heartbeat.frame.encoded
                    _ = reply.withUnsafeBytes { POSIX.sendAll(fd, $0.baseAddress!, $0.count) }
                default:
                    break
                }
            }
        }
    }

    /// Polls every client until `done` holds for all, or `deadline`; false on timeout.
    private func pump(_ clients: inout [WatchClient], until deadline: ContinuousClock.Instant,
                      _ done: (WatchClient) -> Bool) throws -> Bool {
        while !clients.allSatisfy(done) {
            guard ContinuousClock.now < deadline else { return false }
            var entries = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&entries, nfds_t(entries.count), 100)
            guard ready > 0 else { continue }
            for index in entries.indices where entries[index].revents != 0 {
                try clients[index].readAvailable()
            }
        }
        return true
    }

    /// Waits until the process has at most `limit` threads (command threads that end), or the
    /// deadline, reading the clients meanwhile (they answer heartbeats, so the node keeps them);
    /// returns the last count.
    private func threads(of pid: Int32, settlingTo limit: Int, by deadline: ContinuousClock.Instant,
                         _ clients: inout [WatchClient]) throws -> Int {
        var count = IdlePeersTests.threadCount(pid)
        while count > limit && ContinuousClock.now < deadline {
            _ = try pump(&clients, until: .now + .milliseconds(50)) { _ in false }
            count = IdlePeersTests.threadCount(pid)
        }
        return count
    }

    @Test("50 concurrent watch sessions add no thread to the node, and every one receives the next change")
    func fiftyWatches() throws {
        #if os(Linux)
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("hub")
        let pid = try #require(space.process("hub")).processID
        let socket = ControlClient.socketPath(of: space.directory("hub"))
        // A first change, so that the threads a change wakes (the inbox, the group commit) exist.
        #expect(try space.gallery("hub", "add", "https://example.org/first.png").status == 0)
        let before = IdlePeersTests.threadCount(pid)
        #expect(before > 0)
        // Threads that come and go: one per command being carried out (each `watch` request, until
        // it has subscribed), and the one subscriber thread of every watch together.
        let slack = 4

        var clients: [WatchClient] = []
        defer { for client in clients { POSIX.closeDescriptor(client.fd) } }
        for index in 0..<50 { clients.append(try WatchClient(socket: socket, request: index + 1, gallery: "hub")) }
        let listed = try pump(&clients, until: .now + .seconds(20)) { !$0.answers.isEmpty }
        #expect(listed, "every watch answers with the listing first")
        for client in clients {
            guard case .success(.galleries(let galleries))? = client.answers.first?.result else {
                Issue.record("first answer: \(String(describing: client.answers.first))")
                continue
            }
            #expect(galleries.first?.items.count == 1)
        }
        let watching = try threads(of: pid, settlingTo: before + slack, by: .now + .seconds(10), &clients)
        #expect(watching <= before + slack, "\(before) threads before, \(watching) with 50 watch sessions")

        #expect(try space.gallery("hub", "add", "https://example.org/second.png").status == 0)
        let told = try pump(&clients, until: .now + .seconds(20)) { $0.answers.count >= 2 }
        #expect(told, "every watch session receives the change")
        for client in clients where client.answers.count >= 2 {
            guard case .success(.changes(let events))? = client.answers.last?.result else {
                Issue.record("second answer: \(String(describing: client.answers.last))")
                continue
            }
            #expect(events.map(\.event) == [.inserted])
            #expect(events.first?.index == 1)
            #expect(client.answers.last?.id == client.answers.first?.id)
        }
        let after = try threads(of: pid, settlingTo: before + slack, by: .now + .seconds(10), &clients)
        #expect(after <= before + slack, "\(before) threads before, \(after) after a change sent to 50 watch sessions")
        #endif
    }
}
