import Foundation
import GalleryIO
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Part 4 of `gallery-bench web`: many open event streams on one node (`GET /api/events` held by
/// this process, never read after their head), and what they cost: the node's resident memory per
/// stream, and the page's requests timed on a fresh connection before and while they are open.
enum OpenStreams {
    /// The page's requests, in the order a browser makes them (the items of the 10,000-item gallery
    /// aside: their 2.3 MB are the grid's figure, not the server's).
    static let pagePaths = ["/", "/assets/app.css", "/assets/app.js", "/api/status", "/api/galleries"]

    /// Opens `count` event streams on `127.0.0.1:port`, each read up to its head.
    static func open(_ count: Int, port: UInt16, token: String) throws -> [StreamPair] {
        raiseDescriptorLimit(to: UInt64(count) + 512)
        var streams: [StreamPair] = []
        for _ in 0..<count {
            let pair = try Connector.connect(to: Endpoint(host: "127.0.0.1", port: port))
            streams.append(pair)
            _ = pair.output.writeAll(request("/api/events", port: port, token: token))
        }
        for pair in streams {
            guard try readHead(pair).hasPrefix("HTTP/1.1 200") else { throw BenchFailure.failed("web: an event stream was refused") }
        }
        return streams
    }

    /// Milliseconds for the page's requests, one after the other on a fresh keep-alive connection.
    static func pageLoad(port: UInt16, token: String) throws -> Double {
        let started = ContinuousClock.now
        let pair = try Connector.connect(to: Endpoint(host: "127.0.0.1", port: port))
        defer { pair.close() }
        for path in pagePaths {
            _ = pair.output.writeAll(request(path, port: port, token: token))
            let head = try readHead(pair)
            guard head.hasPrefix("HTTP/1.1 200") else { throw BenchFailure.failed("web: \(path): \(head.prefix(40))") }
            let length = head.split(separator: "\r\n").compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                return parts.count == 2 && parts[0].lowercased() == "content-length" ? Int(parts[1].trimmingCharacters(in: .whitespaces)) : nil
            }.first ?? 0
            try readBody(pair, length: length)
        }
        return Stopwatch.seconds(started.duration(to: ContinuousClock.now)) * 1000
    }

    /// The resident memory of process `pid`, in KiB (`VmRSS`), nil when it cannot be read.
    static func residentKiB(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    private static func request(_ path: String, port: UInt16, token: String) -> [UInt8] {
        Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nCookie: gallery_session=\(token)\r\n\r\n".utf8)
    }

    /// Reads one byte at a time up to the empty line (heads are small; no byte of a body is taken).
    private static func readHead(_ pair: StreamPair) throws -> String {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard pair.input.read(&byte, maxLength: 1) == 1 else { throw BenchFailure.failed("web: a connection closed mid-head") }
            head.append(byte)
        }
        return String(decoding: head, as: UTF8.self)
    }

    private static func readBody(_ pair: StreamPair, length: Int) throws {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var left = length
        while left > 0 {
            let count = pair.input.read(&buffer, maxLength: min(buffer.count, left))
            guard count > 0 else { throw BenchFailure.failed("web: a connection closed mid-body") }
            left -= count
        }
    }

    private static func raiseDescriptorLimit(to wanted: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
