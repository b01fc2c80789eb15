import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A minimal HTTP/1.1 client over one TCP connection to 127.0.0.1, for the web adapter's tests:
/// sends raw requests (so that a test can send anything, a bad one included) and reads responses
/// framed by `Content-Length`, or event-stream text until a condition holds. Every read waits at
/// most until its deadline.
final class WebClient: @unchecked Sendable {
    // `@unchecked Sendable`: used by one test thread at a time.
    /// One response.
    struct Response {
        var status: Int
        /// Header fields, names lower-cased (the last of a repeated name).
        var headers: [String: String]
        var body: [UInt8]

        /// The body as a JSON object.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let descriptor: Int32
    private var pending: [UInt8] = []
    /// True once the server closed the connection.
    private(set) var closedByServer = false

    /// Connects to 127.0.0.1:`port`.
    init(port: UInt16) throws {
        #if canImport(Darwin)
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, connected == 0 else { throw CocoaError(.fileReadUnknown) }
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// Sends bytes as they are; false when the connection is gone.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Sends a request built from its parts (`Content-Length` added for a body).
    @discardableResult
    func send(_ method: String, _ target: String, host: String, headers: [(String, String)] = [], body: [UInt8] = []) -> Bool {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || ["POST", "PUT"].contains(method) { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return send(Array(text.utf8) + body)
    }

    /// Reads one response (nil when the connection closed or the deadline passed first).
    func response(timeout: TimeInterval = 20, headOnly: Bool = false) -> Response? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = Self.find([13, 10, 13, 10], in: pending) {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                let lines = head.components(separatedBy: "\r\n")
                let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = headOnly ? 0 : Int(headers["content-length"] ?? "0") ?? 0
                while pending.count < end + 4 + length {
                    guard waitForBytes(until: deadline) else { return nil }
                }
                let body = Array(pending[(end + 4)..<(end + 4 + length)])
                pending.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            guard waitForBytes(until: deadline) else { return nil }
        }
    }

    /// Reads until some bytes came; false when the connection closed or the deadline passed.
    private func waitForBytes(until deadline: Date) -> Bool {
        while !closedByServer && Date() < deadline {
            if receive() { return true }
        }
        return false
    }

    /// Reads event-stream text until `done` holds for all read so far (or the deadline); returns it.
    func streamText(timeout: TimeInterval = 20, until done: (String) -> Bool) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while !done(String(decoding: pending, as: UTF8.self)) && Date() < deadline && !closedByServer {
            _ = receive()
        }
        return String(decoding: pending, as: UTF8.self)
    }

    /// Reads raw bytes until `done` holds for all read so far, the server closes, or the deadline;
    /// returns them (kept for the next read).
    func rawBytes(timeout: TimeInterval = 20, until done: ([UInt8]) -> Bool) -> [UInt8] {
        let deadline = Date().addingTimeInterval(timeout)
        while !done(pending) && Date() < deadline && !closedByServer {
            _ = receive()
        }
        return pending
    }

    /// Forgets what was read.
    func discardPending() { pending.removeAll() }

    /// Reads what is there (waiting up to 100 ms); false when nothing came.
    private func receive() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { closedByServer = true }
        guard count > 0 else { return false }
        pending += buffer[0..<count]
        return true
    }

    /// Waits (bounded) until the server closes the connection; true when it did.
    func waitForClose(timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !closedByServer && Date() < deadline { _ = receive() }
        return closedByServer
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}

/// `send(2)` without flags.
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    Darwin.send(descriptor, bytes, count, 0)
    #else
    Glibc.send(descriptor, bytes, count, 0)
    #endif
}
