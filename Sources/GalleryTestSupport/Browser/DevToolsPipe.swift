import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One DevTools event: method, params, and the flat session it belongs to (nil for the browser).
package struct DevToolsEvent: @unchecked Sendable {
    /// "Page.loadEventFired".
    package let method: String
    /// The event's parameters (JSON object).
    package let params: [String: Any]
    /// The session the event came from; nil for browser-level events.
    package let sessionId: String?
}

/// The DevTools protocol over Chromium's `--remote-debugging-pipe`: NUL-terminated JSON messages.
///
/// A reader thread splits fd 4 into messages; replies are matched to commands by id and handed to the
/// blocked sender; events are buffered (the newest 10,000) so that one that arrives before anyone waits
/// for it is not lost. `@unchecked Sendable`: all mutable state is guarded by `condition`.
final class DevToolsPipe: @unchecked Sendable {
    private let writeDescriptor: Int32
    private let readDescriptor: Int32
    private let condition = NSCondition()
    private let writeLock = NSLock()
    private var nextId = 1
    private var replies: [Int: [String: Any]] = [:]
    private var events: [DevToolsEvent] = []
    private var disconnected = false
    private var readerFinished = false
    private static let maxBufferedEvents = 10_000

    /// Starts reading `readDescriptor` on a new thread; commands are written to `writeDescriptor`.
    init(writeDescriptor: Int32, readDescriptor: Int32) {
        self.writeDescriptor = writeDescriptor
        self.readDescriptor = readDescriptor
        let thread = Thread { [self] in readLoop() }
        thread.name = "DevToolsPipe reader"
        thread.start()
    }

    /// Sends a command and blocks until its reply; returns the reply's `result`.
    /// - Throws: `.protocolError` for an error reply, `.timeout`, `.disconnected`.
    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:], session: String? = nil,
              timeout: Duration = .seconds(10)) throws(BrowserError) -> [String: Any] {
        let id = condition.withLock { () -> Int in
            defer { nextId += 1 }
            return nextId
        }
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        guard var bytes = try? JSONSerialization.data(withJSONObject: message) else {
            throw .unexpectedReply("JSON-serializable parameters for \(method)")
        }
        bytes.append(0)
        try write(bytes)
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let reply = replies.removeValue(forKey: id) {
                if let error = reply["error"] as? [String: Any] {
                    throw .protocolError(method, error["message"] as? String ?? "\(error)")
                }
                return reply["result"] as? [String: Any] ?? [:]
            }
            if disconnected { throw .disconnected }
            if !condition.wait(until: deadline) { throw .timeout("the reply to \(method)") }
        }
    }

    /// Removes and returns the first buffered or arriving event named `method` (from `session`, when
    /// given) for which `matching` holds.
    func waitForEvent(_ method: String, session: String?, timeout: Duration,
                      matching: (DevToolsEvent) -> Bool = { _ in true }) throws(BrowserError) -> DevToolsEvent {
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let index = events.firstIndex(where: {
                $0.method == method && (session == nil || $0.sessionId == session) && matching($0)
            }) {
                return events.remove(at: index)
            }
            if disconnected { throw .disconnected }
            if !condition.wait(until: deadline) { throw .timeout("the event \(method)") }
        }
    }

    /// Drops buffered events named `method` from `session` (stale ones, before acting).
    func discardEvents(_ method: String, session: String?) {
        condition.withLock {
            events.removeAll { $0.method == method && (session == nil || $0.sessionId == session) }
        }
    }

    /// Blocks until the reader has seen EOF (after the process exited), at most `timeout`.
    func waitForReaderEnd(timeout: Duration) {
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        condition.lock()
        defer { condition.unlock() }
        while !readerFinished && condition.wait(until: deadline) {}
    }

    /// Writes every byte, retrying short writes and EINTR.
    private func write(_ bytes: Data) throws(BrowserError) {
        let failed = writeLock.withLock { () -> Bool in
            bytes.withUnsafeBytes { raw -> Bool in
                var offset = 0
                while offset < raw.count {
                    let written = systemWrite(writeDescriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return true
                    }
                    offset += written
                }
                return false
            }
        }
        if failed {
            condition.withLock { disconnected = true; condition.broadcast() }
            throw .disconnected
        }
    }

    /// Reads fd 4 until EOF, dispatching each NUL-terminated message.
    private func readLoop() {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(readDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: chunk[0..<count])
            while let end = pending.firstIndex(of: 0) {
                dispatch(Data(pending[..<end]))
                pending.removeSubrange(...end)
            }
        }
        systemClose(readDescriptor)
        condition.withLock {
            disconnected = true
            readerFinished = true
            condition.broadcast()
        }
    }

    /// Files one message as a reply (has "id") or an event (has "method").
    private func dispatch(_ data: Data) {
        guard let message = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return }
        condition.withLock {
            if let id = message["id"] as? Int {
                replies[id] = message
            } else if let method = message["method"] as? String {
                events.append(DevToolsEvent(method: method, params: message["params"] as? [String: Any] ?? [:],
                                            sessionId: message["sessionId"] as? String))
                if events.count > Self.maxBufferedEvents { events.removeFirst(events.count - Self.maxBufferedEvents) }
            }
            condition.broadcast()
        }
    }

    /// A duration in seconds, for `Date` deadlines.
    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
