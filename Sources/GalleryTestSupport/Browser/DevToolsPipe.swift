import Foundation
import GalleryIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One DevTools event: method, params, and the flat session it belongs to (nil for the browser).
package struct DevToolsEvent: Sendable {
    /// "Page.loadEventFired".
    package let method: String
    /// `params` serialized: JSON bytes are `Sendable`, a `[String: Any]` is not.
    private let paramsJSON: Data
    /// The session the event came from; nil for browser-level events.
    package let sessionId: String?

    init(method: String, params: [String: Any], sessionId: String?) {
        self.method = method
        paramsJSON = (try? JSONSerialization.data(withJSONObject: params)) ?? Data("{}".utf8)
        self.sessionId = sessionId
    }

    /// The event's parameters (JSON object).
    package var params: [String: Any] {
        (try? JSONSerialization.jsonObject(with: paramsJSON)) as? [String: Any] ?? [:]
    }
}

/// The DevTools protocol over Chromium's `--remote-debugging-pipe`: NUL-terminated JSON messages.
///
/// A reader thread splits fd 4 into messages; replies are matched to commands by id and handed to the
/// blocked sender; events are buffered (the newest 10,000) so that one that arrives before anyone waits
/// for it is not lost.
final class DevToolsPipe: Sendable {
    /// The replies and events not yet taken, and the state of the pipe.
    private struct State {
        var nextId = 1
        var replies: [Int: [String: Any]] = [:]
        var events: [DevToolsEvent] = []
        var disconnected = false
        var readerFinished = false
    }

    private let writeDescriptor: Int32
    private let readDescriptor: Int32
    private let state = ConditionLock(State())
    private let writeLock = NSLock()
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
        let id = state.withLock { state -> Int in
            defer { state.nextId += 1 }
            return state.nextId
        }
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        guard var bytes = try? JSONSerialization.data(withJSONObject: message) else {
            throw .unexpectedReply("JSON-serializable parameters for \(method)")
        }
        bytes.append(0)
        try write(bytes)
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        let reply = try state.withLock(waitingUntil: deadline) { state throws(BrowserError) -> [String: Any]? in
            if let reply = state.replies.removeValue(forKey: id) { return reply }
            if state.disconnected { throw .disconnected }
            return nil
        }
        guard let reply else { throw .timeout("the reply to \(method)") }
        if let error = reply["error"] as? [String: Any] {
            throw .protocolError(method, error["message"] as? String ?? "\(error)")
        }
        return reply["result"] as? [String: Any] ?? [:]
    }

    /// Removes and returns the first buffered or arriving event named `method` (from `session`, when
    /// given) for which `matching` holds.
    func waitForEvent(_ method: String, session: String?, timeout: Duration,
                      matching: (DevToolsEvent) -> Bool = { _ in true }) throws(BrowserError) -> DevToolsEvent {
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        let event = try state.withLock(waitingUntil: deadline) { state throws(BrowserError) -> DevToolsEvent? in
            if let index = state.events.firstIndex(where: {
                $0.method == method && (session == nil || $0.sessionId == session) && matching($0)
            }) {
                return state.events.remove(at: index)
            }
            if state.disconnected { throw .disconnected }
            return nil
        }
        guard let event else { throw .timeout("the event \(method)") }
        return event
    }

    /// Drops buffered events named `method` from `session` (stale ones, before acting).
    func discardEvents(_ method: String, session: String?) {
        state.withLock { state in
            state.events.removeAll { $0.method == method && (session == nil || $0.sessionId == session) }
        }
    }

    /// Blocks until the reader has seen EOF (after the process exited), at most `timeout`.
    func waitForReaderEnd(timeout: Duration) {
        let deadline = Date().addingTimeInterval(Self.seconds(timeout))
        _ = state.withLock(waitingUntil: deadline) { $0.readerFinished ? () : nil }
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
            state.withLock { $0.disconnected = true }
            state.broadcast()
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
        state.withLock { state in
            state.disconnected = true
            state.readerFinished = true
        }
        state.broadcast()
    }

    /// Files one message as a reply (has "id") or an event (has "method").
    private func dispatch(_ data: Data) {
        guard let message = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return }
        state.withLock { state in
            if let id = message["id"] as? Int {
                state.replies[id] = message
            } else if let method = message["method"] as? String {
                state.events.append(DevToolsEvent(method: method, params: message["params"] as? [String: Any] ?? [:],
                                                  sessionId: message["sessionId"] as? String))
                if state.events.count > Self.maxBufferedEvents { state.events.removeFirst(state.events.count - Self.maxBufferedEvents) }
            }
        }
        state.broadcast()
    }

    /// A duration in seconds, for `Date` deadlines.
    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
