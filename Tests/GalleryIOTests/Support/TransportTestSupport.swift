import Dispatch
import Foundation
@testable import GalleryIO
import Testing

// Helpers of the transport tests: blocking work on dedicated threads with timeouts, connected pairs,
// patterns and exact reads.

/// Runs blocking `body` on a fresh `Thread`; throws `TimedOut` if it does not finish within `timeout`.
func onThread<T: Sendable>(
    _ name: String, timeout: Duration = .seconds(90), _ body: @escaping @Sendable () throws -> T
) async throws -> T {
    let once = Once<T>()
    return try await withCheckedThrowingContinuation { continuation in
        once.install(continuation)
        let thread = Thread { once.resume(Result { try body() }) }
        thread.name = "transport-test-\(name)"
        thread.start()
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            once.resume(.failure(TimedOut(what: name)))
        }
    }
}

/// A blocking helper thread did not finish in time.
struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out: \(what)" }
}

/// Resumes a continuation at most once (whichever of result and timeout comes first).
final class Once<T: Sendable>: @unchecked Sendable {
    // @unchecked: both fields are only touched under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var pending: Result<T, any Error>?

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = lock.withLock {
            if let pending { return pending }
            self.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(_ result: Result<T, any Error>) {
        let target: CheckedContinuation<T, any Error>? = lock.withLock {
            if let continuation {
                self.continuation = nil
                pending = .failure(TimedOut(what: "already resumed"))
                return continuation
            }
            if pending == nil { pending = result }
            return nil
        }
        target?.resume(with: result)
    }
}

/// A one-shot signal from a helper thread to the test, awaited with a timeout.
final class Gate: @unchecked Sendable {
    // @unchecked: `isOpen` is only touched under `lock`.
    private let lock = NSLock()
    private var isOpen = false

    func open() { lock.withLock { isOpen = true } }

    func wait(timeout: Duration = .seconds(90)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !lock.withLock({ isOpen }) {
            guard clock.now < deadline else { throw TimedOut(what: "gate") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}

/// The transport error `body` threw, or nil (also when it threw something else).
func caught(_ body: () throws -> Void) -> TransportError? {
    do {
        try body()
        return nil
    } catch {
        return error as? TransportError
    }
}

/// Listens on 127.0.0.1:0 (or uses `listener`) and returns both ends of one connection.
func connectedPair(
    _ listener: Listener? = nil, to target: Endpoint? = nil
) async throws -> (client: StreamPair, server: StreamPair) {
    let owned = listener == nil ? try Listener(Endpoint(host: "127.0.0.1", port: 0)) : nil
    guard let listener = listener ?? owned else { throw TransportError.closed }
    defer { owned?.close() }
    let endpoint = target ?? listener.endpoint
    async let server = onThread("accept") { try listener.accept() }
    let client = try await onThread("connect") { try Connector.connect(to: endpoint) }
    return (client, try await server)
}

/// Sends one message each way and checks both arrive.
func expectRoundTrip(_ a: StreamPair, _ b: StreamPair) async throws {
    let ping = Array("ping".utf8)
    let pong = Array("pong!".utf8)
    let atB = try await onThread("ping") { () -> [UInt8]? in
        guard a.output.write(ping, maxLength: ping.count) == ping.count else { return nil }
        return readExactly(b.input, count: ping.count)
    }
    let atA = try await onThread("pong") { () -> [UInt8]? in
        guard b.output.write(pong, maxLength: pong.count) == pong.count else { return nil }
        return readExactly(a.input, count: pong.count)
    }
    #expect(atB == ping)
    #expect(atA == pong)
}

/// Deterministic pseudo-random bytes.
func pattern(count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { raw in
        var offset = 0
        while offset < count {
            var word = generator.next()
            let n = min(8, count - offset)
            withUnsafeBytes(of: &word) { raw.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: n) }
            offset += n
        }
    }
    return bytes
}

/// Writes `bytes` in chunks of pseudo-random sizes (1 byte to 256 KiB); false on a failed write.
func writeInChunks(_ output: OutputStream, _ bytes: [UInt8], seed: UInt64) -> Bool {
    var generator = SplitMix(seed: seed)
    return bytes.withUnsafeBufferPointer { buffer in
        var offset = 0
        while offset < buffer.count {
            let size = min(buffer.count - offset, Int(generator.next() % (256 << 10)) + 1)
            guard output.write(buffer.baseAddress! + offset, maxLength: size) == size else { return false }
            offset += size
        }
        return true
    }
}

/// Reads exactly `count` bytes; nil if the stream ends or fails first.
func readExactly(_ input: InputStream, count: Int) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: count)
    return readExactlyInto(input, &bytes, count: count).map { _ in bytes }
}

/// Fills the first `count` bytes of `buffer`; returns them, or nil if the stream ends or fails first.
func readExactlyInto(_ input: InputStream, _ buffer: inout [UInt8], count: Int) -> [UInt8]? {
    var offset = 0
    let complete = buffer.withUnsafeMutableBufferPointer { pointer -> Bool in
        while offset < count {
            let n = input.read(pointer.baseAddress! + offset, maxLength: count - offset)
            if n <= 0 { return false }
            offset += n
        }
        return true
    }
    return complete ? Array(buffer[0..<count]) : nil
}

/// Reads until end of stream (or an error) and returns everything read.
func readToEnd(_ input: InputStream) -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 256 << 10)
    while true {
        let n = input.read(&buffer, maxLength: buffer.count)
        if n <= 0 { return result }
        result.append(contentsOf: buffer[0..<n])
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
