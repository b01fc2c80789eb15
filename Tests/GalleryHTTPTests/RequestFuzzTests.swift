import Foundation
import GalleryHTTP
import GallerySimulation
import Testing

/// Seeded mutations of valid requests, fed to the parser in random-size pieces: every input must end in
/// requests or one `HTTPRequestError`, never a crash or a hang, and the parser must never hold more
/// than one head limit plus the last piece once it has returned what it could.
///
/// Environment (optional): `HTTP_FUZZ_SEED` (base seed), `HTTP_FUZZ_COUNT` (cases).
@Suite("HTTP request fuzzing")
struct RequestFuzzTests {
    /// Valid requests the mutations start from.
    static let corpus: [[UInt8]] = [
        crlf("GET / HTTP/1.1\nHost: 127.0.0.1:8080\n\n"),
        crlf("GET /blobs/0123abcd HTTP/1.1\nHost: 127.0.0.1:1\nRange: bytes=0-99\nCookie: token=abc\n\n"),
        crlf("POST /api/move HTTP/1.1\nHost: h\nContent-Type: application/json\nOrigin: http://h\nContent-Length: 13\n\n{\"index\": 42}"),
        crlf("GET /events HTTP/1.1\nHost: h\nAccept: text/event-stream\nLast-Event-ID: 17\n\nGET / HTTP/1.0\n\n"),
        crlf("PUT /upload?name=a.png HTTP/1.1\nHost: h\nExpect: 100-continue\nContent-Length: 4\n\n\u{1}\u{2}\u{3}\u{4}"),
    ]

    /// Tokens that mutations splice in, chosen to hit framing decisions.
    static let splices: [[UInt8]] = [
        "\r\n", "\n", "\r", " ", "\t", ":", "\r\n\r\n", "Content-Length: 5\r\n", "Content-Length: 99999999999\r\n",
        "Transfer-Encoding: chunked\r\n", "Host: x\r\n", " folded\r\n", "HTTP/1.0", "HTTP/9.9", "\0", "\u{7F}",
        "Content-Length: -1\r\n", "Connection: close\r\n", "Expect: 100-continue\r\n",
    ].map { Array($0.utf8) }

    @Test("Mutated requests end in requests or an HTTPRequestError, within bounded memory and time")
    func mutatedRequests() {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["HTTP_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0x4854_5450_2024_0013
        let count = environment["HTTP_FUZZ_COUNT"].flatMap { Int($0) } ?? 30_000
        var outcomes: [String: Int] = [:]
        let started = ContinuousClock.now
        for index in 0..<count {
            var random = SeededGenerator(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
            let input = Self.mutate(Self.corpus[Int(random.next() % UInt64(Self.corpus.count))], &random)
            let outcome = Self.run(input, &random)
            guard let outcome else {
                Issue.record("case \(index) (seed \(seed)): parser held too much or looped on \(Array(input.prefix(200)))")
                return
            }
            outcomes[outcome, default: 0] += 1
        }
        let elapsed = ContinuousClock.now - started
        print("HTTP fuzz: \(count) cases in \(elapsed): \(outcomes.sorted { $0.key < $1.key })")
        #expect(outcomes["ok", default: 0] > count / 20, "the mutations should leave some requests valid")
        #expect(outcomes.keys.filter { $0 != "ok" }.count >= 5, "the mutations should reach several refusals")
    }

    @Test("Random bytes and an endless header stream are refused with bounded buffering")
    func randomAndEndless() throws {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let length = Int(random.next() % 300)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(Self.run(bytes, &random) != nil)
        }
        // A client that never ends its head: refused once the head limit is passed, not buffered for ever.
        var parser = HTTPRequestParser()
        parser.receive(Array("GET / HTTP/1.1\r\nHost: h\r\n".utf8))
        var refused: HTTPRequestError?
        for _ in 0..<1000 where refused == nil {
            parser.receive(Array("X-Long: yes\r\n".utf8))
            do { _ = try parser.next() } catch { refused = error }
            #expect(parser.bufferedByteCount <= HTTPLimits.standard.maxHeaderBytes + 13)
        }
        #expect(refused?.status == .headerFieldsTooLarge)
    }

    /// Feeds `input` in random pieces; returns "ok" or the refusal's status, or nil when the parser
    /// broke a bound (more buffered than a head plus one piece, or more events than bytes).
    static func run(_ input: [UInt8], _ random: inout SeededGenerator) -> String? {
        var parser = HTTPRequestParser()
        var offset = 0
        var events = 0
        var bodyBytes = 0
        var declared: UInt64 = 0
        while offset < input.count {
            let piece = 1 + Int(random.next() % 64)
            let end = min(offset + piece, input.count)
            parser.receive(input[offset..<end])
            offset = end
            do {
                while let event = try parser.next() {
                    events += 1
                    if events > 4 * input.count + 8 { return nil }
                    switch event {
                    case .head(let head): declared += head.contentLength
                    case .body(let chunk): bodyBytes += chunk.count
                    case .end: break
                    }
                }
            } catch {
                return String(error.status.code)
            }
            if parser.bufferedByteCount > HTTPLimits.standard.maxHeaderBytes + piece { return nil }
            if UInt64(bodyBytes) > declared { return nil }
        }
        return "ok"
    }

    /// One to four mutations: flip a byte, delete a range, duplicate a range, splice a token, truncate.
    static func mutate(_ original: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var bytes = original
        for _ in 0...(random.next() % 4) where !bytes.isEmpty {
            let position = Int(random.next() % UInt64(bytes.count))
            switch random.next() % 6 {
            case 0:
                bytes[position] = UInt8(truncatingIfNeeded: random.next())
            case 1:
                let length = min(Int(random.next() % 8) + 1, bytes.count - position)
                bytes.removeSubrange(position..<position + length)
            case 2:
                let length = min(Int(random.next() % 40) + 1, bytes.count - position)
                bytes.insert(contentsOf: bytes[position..<position + length], at: position)
            case 3, 4:
                bytes.insert(contentsOf: splices[Int(random.next() % UInt64(splices.count))], at: position)
            default:
                bytes.removeSubrange(position...)
            }
        }
        return bytes
    }
}
