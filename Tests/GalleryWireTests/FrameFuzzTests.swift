import Foundation
import GalleryModel
import GalleryWire
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seeded random bytes and mutations of valid frames, fed to `FrameDecoder` in random-size pieces and
/// to `Message(frame:)` (and `OpCodec.decode`): every input must end in a value or a thrown
/// `WireError` / `DecodingError`, never a crash or a hang, and the decoder must never hold more than
/// one header plus its declared limit once it has returned what it could.
///
/// Environment (optional): `FRAME_FUZZ_SEED` (base seed, decimal or 0x-hex), `FRAME_FUZZ_COUNT`
/// (number of cases), `FRAME_FUZZ_CASE` (replay one case seed as printed by a failure).
@Suite("Frame fuzzing")
struct FrameFuzzTests {
    static let defaultSeed: UInt64 = 0x6A11_E5F0_2024_0001
    static let defaultCount = 100_000

    // MARK: The fuzz loop

    @Test("Mutated and random frames end in a value or a WireError/DecodingError, within bounded memory")
    func mutatedFrames() async throws {
        let environment = ProcessInfo.processInfo.environment
        let corpus = try Self.corpus()
        if let replay = environment["FRAME_FUZZ_CASE"].flatMap(Self.parseNumber) {
            var stats = FuzzStats()
            let failure = FuzzCase.run(seed: replay, corpus: corpus, stats: &stats)
            #expect(failure == nil, "case \(Self.hex(replay)): \(failure ?? "")")
            return
        }
        let seed = environment["FRAME_FUZZ_SEED"].flatMap(Self.parseNumber) ?? Self.defaultSeed
        let count = environment["FRAME_FUZZ_COUNT"].flatMap { Int($0) } ?? Self.defaultCount

        let started = ContinuousClock.now
        let outcome = await FuzzThread.run(timeout: .seconds(300)) { () -> FuzzReport in
            CrashReporter.install()
            defer { CrashReporter.uninstall() }
            var stats = FuzzStats()
            var failures: [(UInt64, String)] = []
            for index in 0..<count {
                let caseSeed = FuzzCase.seed(base: seed, index: index)
                CrashReporter.current.store(caseSeed, ordering: .relaxed)
                if let failure = FuzzCase.run(seed: caseSeed, corpus: corpus, stats: &stats) {
                    failures.append((caseSeed, failure))
                    print("FrameFuzz failure: base seed \(Self.hex(seed)), case \(index), case seed \(Self.hex(caseSeed)) "
                        + "(replay: FRAME_FUZZ_CASE=\(Self.hex(caseSeed))): \(failure)")
                }
            }
            return FuzzReport(stats: stats, failures: failures)
        }
        let elapsed = ContinuousClock.now - started
        guard let report = outcome else {
            let stuck = CrashReporter.current.load(ordering: .relaxed)
            Issue.record("the fuzz loop did not finish in 300 s; stuck in case seed \(Self.hex(stuck)) (base seed \(Self.hex(seed)))")
            return
        }
        let stats = report.stats
        print("FrameFuzz: base seed \(Self.hex(seed)): \(stats.cases) cases, \(stats.mutatedFrames) mutated frames, "
            + "\(stats.randomChunks) random chunks, \(stats.bytes) bytes, \(stats.frames) frames cut, "
            + "\(stats.messages) messages decoded, \(stats.wireErrors) WireErrors from Message(frame:), "
            + "\(stats.decoderErrors) decoder errors (\(stats.tooLarge) frame_too_large), "
            + "\(stats.opsDecoded)/\(stats.opsChecked) ops payloads decoded, max buffered \(stats.maxBuffered) B; "
            + "\(elapsed)")
        #expect(stats.cases >= 100_000 || count < 100_000)
        #expect(stats.mutatedFrames >= count)
        // Each kind of outcome actually happens, so that the mutations reach past the header.
        #expect(stats.messages > 1_000 && stats.wireErrors > 1_000 && stats.tooLarge > 1_000 && stats.opsDecoded > 100)
        for (caseSeed, failure) in report.failures.prefix(20) {
            Issue.record("case seed \(Self.hex(caseSeed)) (base \(Self.hex(seed))): \(failure)")
        }
        #expect(report.failures.isEmpty, "\(report.failures.count) failing cases")
    }

    @Test("The corpus is valid: every seed frame decodes and re-encodes to the same bytes")
    func corpusIsValid() throws {
        for entry in try Self.corpus() {
            var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
            decoder.append(entry.bytes)
            var frames: [Frame] = []
            while let frame = try decoder.next() { frames.append(frame) }
            #expect(decoder.bufferedCount == 0, "\(entry.name)")
            #expect(!frames.isEmpty, "\(entry.name)")
            for frame in frames where frame.knownType != nil {
                let message = try Message(frame: frame)
                #expect(message.frame.encoded == frame.encoded, "\(entry.name)")
                if entry.name == "errorUnknownCode" {
                    // Unknown codes are kept (and treated as protocol_error by receivers).
                    #expect(message == .error(code: ErrorCode(rawValue: 255), message: "A"))
                }
            }
        }
    }

    /// Some fixed inputs whose outcome is known exactly.
    @Test("Known bad inputs throw the documented errors")
    func knownBadInputs() throws {
        // A 2 GiB header is refused as soon as the header is complete.
        var decoder = FrameDecoder()
        decoder.append([0x00, 0x00, 0x00, 0x80, 0x01])
        #expect(try decoder.next() == nil)
        decoder.append([0x00])
        #expect(throws: WireError.frameTooLarge(length: 1 << 31, limit: FrameLimits.handshakeMaximum)) { try decoder.next() }
        // One byte over the limit, and exactly at it.
        decoder = FrameDecoder()
        decoder.append([0x01, 0x10, 0x00, 0x00, 0x11, 0x00])
        #expect(throws: WireError.frameTooLarge(length: 4_097, limit: 4_096)) { try decoder.next() }
        decoder = FrameDecoder()
        decoder.append([0x00, 0x10, 0x00, 0x00, 0x21, 0x00] + [UInt8](repeating: 0, count: 4_095))
        #expect(try decoder.next() == nil)
        #expect(decoder.bufferedCount == 4_101)
        // Reserved flag bits.
        for flags: UInt8 in [0x02, 0x80, 0xFF, 0x03] {
            decoder = FrameDecoder()
            decoder.append([0x00, 0x00, 0x00, 0x00, 0x06, flags])
            #expect(throws: WireError.self) { try decoder.next() }
        }
        // Unknown types, with and without the ignorable flag, reach `Message(frame:)` as unknown.
        #expect(throws: WireError.unknownFrameType(0x7F)) { try Message(frame: Frame(rawType: 0x7F, flags: 1, payload: [1])) }
        #expect(throws: WireError.unknownFrameType(0x00)) { try Message(frame: Frame(rawType: 0x00, flags: 0, payload: [])) }
        // Bad varints in a sync_request: overlong, too long, overflowing, unterminated.
        for vector: [UInt8] in [[0x80, 0x00], [0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
                                [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02], [0xFF, 0xFF]] {
            #expect(throws: WireError.self) { try Message(frame: Frame(.syncRequest, payload: vector)) }
        }
        // An ops count far beyond the payload is refused before anything is reserved.
        #expect(throws: WireError.self) {
            try Message(frame: Frame(.ops, payload: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]))
        }
        #expect(throws: DecodingError.self) { try OpCodec.decode([0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) }
        // Trailing bytes, a short proof, a wrong magic.
        #expect(throws: WireError.self) { try Message(frame: Frame(.heartbeat, payload: [0])) }
        #expect(throws: WireError.self) { try Message(frame: Frame(.identity, payload: [UInt8](repeating: 7, count: 13))) }
        var hello = Message.hello(Hello(versions: [1], replica: ReplicaID(5), nonce: [UInt8](repeating: 1, count: 32),
                                        maximumFrameSize: 1 << 20, name: "x")).frame
        hello.payload[0] = UInt8(ascii: "X")
        #expect(throws: WireError.self) { try Message(frame: hello) }
    }

    // MARK: Corpus

    struct Seed: Sendable {
        var name: String
        var bytes: [UInt8]
    }

    /// Golden frames of protocol.md and more messages: every frame type, every op kind, field and
    /// reference form, extreme varints, and unknown types.
    static func corpus() throws -> [Seed] {
        // The golden frames of protocol.md: handshake frames, records, and the frames inside records.
        // (Not `opsCompactNext`: it reads only with the tables the frame before it left.)
        var seeds = try GoldenFrameTests.documentedFrames().sorted { $0.key < $1.key }.filter { $0.key != "opsCompactNext" }.map {
            Seed(name: $0.key, bytes: $0.value)
        }
        let me = ReplicaID(0x0102_0304_0506_0708)
        let other = ReplicaID(0xFFEE_DDCC_BBAA_9988)
        let nonce = (0..<32).map { UInt8(0x40 + $0) }
        let hash = (0..<32).map { UInt8(0xD0 &+ $0) }
        let item = OpID(counter: 2, replica: me)
        let everyField: [ItemField: FieldValue] = [
            .title: .text("sunset.jpg"), .url: .text("https://example.org/p/1?q=ü"), .aspectRatio: .number(0.75),
            .contentHash: .text(String(repeating: "ab", count: 32)), .byteSize: .integer(123_456_789),
            .mediaType: .text("image/jpeg"), .origin: .id(OpID(counter: 5, replica: other)),
        ]
        let ops: [Op] = [
            Op(id: OpID(counter: 1, replica: me), previous: 0, action: .createGallery(name: "trips")),
            Op(id: item, previous: 1, action: .insert(
                gallery: "trips", after: nil, before: nil,
                items: [ItemDraft(isPlaceholder: true, fields: everyField), .titled("b"), ItemDraft()])),
            Op(id: OpID(counter: 5, replica: me), previous: 4, action: .insert(
                gallery: "trips", after: OpID(counter: 3, replica: me), before: OpID(counter: 9, replica: other),
                items: [.titled("c")])),
            Op(id: OpID(counter: 6, replica: me), previous: 5, action: .move(
                item: item, gallery: "other", after: OpID(counter: 4, replica: me), before: OpID(counter: 7, replica: other))),
            Op(id: OpID(counter: 7, replica: me), previous: 6, action: .delete(item: OpID(counter: 3, replica: me))),
            Op(id: OpID(counter: 8, replica: me), previous: 7, action: .update(item: item, field: .title, value: .none)),
            Op(id: OpID(counter: 9, replica: me), previous: 8, action: .update(item: item, field: .byteSize, value: .integer(FieldLimits.byteSizes.upperBound))),
            Op(id: OpID(counter: 10, replica: me), previous: 9, action: .update(item: item, field: .aspectRatio, value: .number(0.25))),
            Op(id: OpID(counter: 11, replica: me), previous: 10, action: .update(
                item: OpID(counter: 1, replica: other), field: .origin, value: .id(OpID(counter: 1, replica: me)))),
            Op(id: OpID(counter: 12, replica: me), previous: 11, action: .commit(item: item)),
            Op(id: OpID(counter: 300, replica: other), previous: 0, action: .createGallery(name: "ünïcødé ✓")),
            Op(id: OpID(counter: .max, replica: other), previous: 300, action: .delete(item: OpID(counter: .max - 1, replica: other))),
        ]
        // Membership (section 4.3): records of both kinds, a join's request and grant, a space key.
        var added = MemberRecord(kind: .added, nodeKey: Array(repeating: 0x11, count: 32), signingKey: Array(repeating: 0x22, count: 32),
                                 name: "ünï", at: 1_700_000_000_000)
        added.signer = Array(repeating: 0x33, count: 32)
        added.signature = Array(repeating: 0x44, count: 64)
        var revoked = added
        revoked.kind = .revoked
        revoked.cutoffs = [me: 12, other: .max]
        let messages: [(String, Message)] = [
            ("membershipRecords", .membership(.records([added, revoked]))),
            ("membershipJoinRequest", .membership(.joinRequest(signingKey: Array(repeating: 0x55, count: 32)))),
            ("membershipJoinGrant", .membership(.joinGrant(secret: Array(repeating: 0x66, count: 32), generation: .max,
                                                           space: Array(repeating: 0x77, count: 16), records: [revoked]))),
            ("membershipSpaceKey", .membership(.spaceKey(secret: [1], generation: 0))),
            ("hello3", .hello(Hello(versions: [1, 2, 0xFFFF], replica: other, nonce: nonce, maximumFrameSize: .max, name: "ünï"))),
            ("identityMin", .identity(PeerInfo(version: 4, replica: other, maximumFrameSize: 0, name: ""))),
            ("syncEmpty", .syncRequest(VersionVector())),
            ("caughtUp3", .caughtUp(VersionVector([me: 12, other: .max, ReplicaID(0): 1]))),
            ("opsEveryKind", .ops(ops)),
            ("opsEmpty", .ops([])),
            ("opsCompactEveryKind", .opsCompact(ops + ops)),
            ("features", .features(Features(rawValue: .max))),
            ("fetch", .fetch(FetchRequest(id: 0x1234_5678, hash: hash, offset: 1 << 40, length: 0))),
            ("chunk", .chunk(Chunk(id: 7, offset: 3, total: 100, data: Array(repeating: 0x5A, count: 20)))),
            ("fetchError", .fetchError(id: 9, code: .notFound, message: "no blob store")),
            ("cancel", .cancel(id: .max)),
            ("errorTimeout", .error(code: .timeout, message: "")),
        ]
        seeds += messages.map { Seed(name: $0.0, bytes: $0.1.frame.encoded) }
        seeds.append(Seed(name: "errorUnknownCode", bytes: Frame(.error, payload: [0xFF, 0x00, 0x01, 0x41]).encoded))
        seeds.append(Seed(name: "unknownIgnorable", bytes: Frame(rawType: 0x7E, flags: Frame.ignorableFlag, payload: [1, 2, 3]).encoded))
        seeds.append(Seed(name: "unknownRequired", bytes: Frame(rawType: 0x7F, flags: 0, payload: []).encoded))
        return seeds
    }

    // MARK: Helpers

    static func hex(_ value: UInt64) -> String {
        "0x" + String(value, radix: 16)
    }

    static func parseNumber(_ text: String) -> UInt64? {
        text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }
}
