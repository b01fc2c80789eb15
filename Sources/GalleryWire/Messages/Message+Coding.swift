import GalleryModel

extension Message {
    /// The message as a frame; an `ops_compact` frame as the first of its direction (empty tables).
    package var frame: Frame {
        var tables = CompactOpTables()
        return frame(compactTables: &tables)
    }

    /// The message as a frame, an `ops_compact` frame written with the sender's tables of the
    /// connection's direction (and adding to them what it names first).
    package func frame(compactTables: inout CompactOpTables) -> Frame {
        var writer = ByteWriter()
        switch self {
        case .hello(let hello):
            writer.append(Hello.magic)
            writer.byte(UInt8(hello.versions.count))
            for version in hello.versions { writer.fixed16(version) }
            writer.fixed64(hello.replica.rawValue)
            writer.append(hello.nonce)
            writer.fixed32(hello.maximumFrameSize)
            writer.string(hello.name)
        case .noiseHandshake(let bytes), .record(let bytes):
            return Frame(type, payload: bytes)
        case .identity(let info):
            writer.fixed16(info.version)
            writer.fixed64(info.replica.rawValue)
            writer.fixed32(info.maximumFrameSize)
            writer.string(info.name)
        case .error(let code, let message):
            writer.fixed16(code.rawValue)
            writer.string(message)
        case .heartbeat:
            break
        case .syncRequest(let version), .caughtUp(let version):
            Self.write(version, into: &writer)
        case .ihave(let version):
            // Added within version 2: ignorable, so that a node that does not relay skips them.
            Self.write(version, into: &writer)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .graft(let version, let origins):
            Self.write(version, into: &writer)
            Self.write(origins, into: &writer)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .prune(let origins):
            Self.write(origins, into: &writer)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .versionDigest(let digest):
            digest.write(into: &writer)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .tree(let beacon):
            beacon.write(into: &writer)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .ihaveTotal(let total):
            writer.varint(total)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .ops(let ops):
            return Frame(.ops, payload: OpCodec.encode(ops))
        case .opsCompact(let ops):
            return Frame(.opsCompact, payload: OpCodec.encodeCompact(ops, tables: &compactTables))
        case .features(let features):
            features.write(into: &writer)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .fetch(let request):
            writer.varint(request.id)
            writer.append(request.hash)
            writer.varint(request.offset)
            writer.varint(request.length)
        case .chunk(let chunk):
            writer.varint(chunk.id)
            writer.varint(chunk.offset)
            writer.varint(chunk.total)
            writer.append(chunk.data)
        case .fetchError(let id, let code, let message):
            writer.varint(id)
            writer.fixed16(code.rawValue)
            writer.string(message)
        case .cancel(let id):
            writer.varint(id)
        case .thumbnailFetch(let name):
            name.write(into: &writer)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .thumbnail(let name, let data):
            name.write(into: &writer)
            writer.append(data)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .holdsQuery(let id, let hashes):
            writer.varint(id)
            let sent = hashes.prefix(Self.maximumHoldsQuery).filter { $0.count == 32 }
            writer.varint(UInt64(sent.count))
            for hash in sent { writer.append(hash) }
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .holds(let id, let bitmap):
            writer.varint(id)
            writer.append(Array(bitmap.prefix((Self.maximumHoldsQuery + 7) / 8)))
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .controlRequest(let json), .controlResponse(let json):
            return Frame(type, payload: json)
        case .addresses(let announcement):
            // Ignorable: a node that does not know the type skips it (protocol.md, section 14).
            announcement.write(into: &writer)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        case .membership(let membership):
            membership.write(into: &writer)
            return Frame(type, flags: Frame.ignorableFlag, payload: writer.bytes)
        }
        return Frame(type, payload: writer.bytes)
    }

    /// Decodes a frame of a known type.
    ///
    /// - Throws: `WireError.unknownFrameType` for a type this version does not know (the caller
    ///   skips it when it carries `Frame.ignorableFlag`), `WireError.rejectedOp` for an op outside
    ///   the bounds of its fields, `WireError.malformed` for another bad payload.
    package init(frame: Frame) throws(WireError) {
        var tables = CompactOpTables()
        try self.init(frame: frame, compactTables: &tables)
    }

    /// Decodes a frame of a known type, an `ops_compact` frame with the receiver's tables of the
    /// connection's direction (adding to them what it names first). Throws as `init(frame:)`;
    /// an index past a table is `WireError.malformed`.
    package init(frame: Frame, compactTables: inout CompactOpTables) throws(WireError) {
        guard let type = frame.knownType else { throw .unknownFrameType(frame.type) }
        var reader = ByteReader(frame.payload)
        do {
            self = try Self.decode(type, from: &reader, compactTables: &compactTables)
        } catch .outOfBounds(let reason) {
            throw .rejectedOp(reason)
        } catch {
            throw .malformed("\(type): \(error.localizedDescription)")
        }
        guard reader.isAtEnd else { throw .malformed("\(type): \(reader.remaining) bytes after the message") }
    }

    private static func decode(_ type: FrameType, from reader: inout ByteReader,
                               compactTables: inout CompactOpTables) throws(DecodingError) -> Message {
        switch type {
        case .hello:
            try magic(&reader)
            let count = Int(try reader.byte())
            guard (1...16).contains(count) else { throw .invalidValue("version count \(count)") }
            var versions: [UInt16] = []
            for _ in 0..<count { versions.append(try reader.fixed16()) }
            guard zip(versions, versions.dropFirst()).allSatisfy({ $0 < $1 }) else {
                throw .invalidValue("versions not ascending")
            }
            return .hello(Hello(
                versions: versions, replica: ReplicaID(try reader.fixed64()), nonce: Array(try reader.bytes(32)),
                maximumFrameSize: try reader.fixed32(), name: try reader.string(limit: 255)))
        case .noiseHandshake:
            return .noiseHandshake(Array(try reader.bytes(reader.remaining)))
        case .record:
            return .record(Array(try reader.bytes(reader.remaining)))
        case .identity:
            return .identity(PeerInfo(
                version: try reader.fixed16(), replica: ReplicaID(try reader.fixed64()),
                maximumFrameSize: try reader.fixed32(), name: try reader.string(limit: 255)))
        case .error:
            return .error(code: try code(&reader), message: try reader.string(limit: 1_024))
        case .heartbeat:
            return .heartbeat
        case .syncRequest:
            return .syncRequest(try version(&reader))
        case .caughtUp:
            return .caughtUp(try version(&reader))
        case .ihave:
            return .ihave(try version(&reader))
        case .graft:
            return .graft(try version(&reader), origins: try replicas(&reader))
        case .prune:
            return .prune(try replicas(&reader))
        case .versionDigest:
            return .versionDigest(try VersionDigest.read(from: &reader))
        case .tree:
            return .tree(try TreeBeacon.read(from: &reader))
        case .ihaveTotal:
            return .ihaveTotal(try reader.varint())
        case .ops:
            let ops = try OpCodec.decode(Array(try reader.bytes(reader.remaining)))
            return .ops(ops)
        case .opsCompact:
            return .opsCompact(try OpCodec.decodeCompact(Array(try reader.bytes(reader.remaining)), tables: &compactTables))
        case .features:
            return .features(try Features.read(from: &reader))
        case .fetch:
            return .fetch(FetchRequest(
                id: try reader.varint(), hash: Array(try reader.bytes(32)), offset: try reader.varint(),
                length: try reader.varint()))
        case .chunk:
            let id = try reader.varint()
            let offset = try reader.varint()
            let total = try reader.varint()
            let data = Array(try reader.bytes(reader.remaining))
            guard offset <= total, UInt64(data.count) <= total - offset else { throw .invalidValue("chunk range") }
            return .chunk(Chunk(id: id, offset: offset, total: total, data: data))
        case .fetchError:
            return .fetchError(id: try reader.varint(), code: try code(&reader), message: try reader.string(limit: 1_024))
        case .cancel:
            return .cancel(id: try reader.varint())
        case .thumbnailFetch:
            return .thumbnailFetch(try ThumbnailName.read(from: &reader))
        case .thumbnail:
            return .thumbnail(try ThumbnailName.read(from: &reader), data: Array(try reader.bytes(reader.remaining)))
        case .holdsQuery:
            let id = try reader.varint()
            let count = try reader.varint()
            guard count <= UInt64(maximumHoldsQuery) else { throw .invalidValue("holds_query of \(count) hashes") }
            var hashes: [[UInt8]] = []
            for _ in 0..<Int(count) { hashes.append(Array(try reader.bytes(32))) }
            return .holdsQuery(id: id, hashes: hashes)
        case .holds:
            let id = try reader.varint()
            guard reader.remaining <= (maximumHoldsQuery + 7) / 8 else { throw .invalidValue("holds bitmap of \(reader.remaining) bytes") }
            return .holds(id: id, bitmap: Array(try reader.bytes(reader.remaining)))
        case .controlRequest:
            return .controlRequest(Array(try reader.bytes(reader.remaining)))
        case .controlResponse:
            return .controlResponse(Array(try reader.bytes(reader.remaining)))
        case .addresses:
            return .addresses(try AddressAnnouncement.read(from: &reader))
        case .membership:
            return .membership(try MembershipMessage.read(from: &reader))
        }
    }

    /// The most hashes one `holds_query` asks about.
    package static let maximumHoldsQuery = 1_024

    private static func magic(_ reader: inout ByteReader) throws(DecodingError) {
        guard Array(try reader.bytes(4)) == Hello.magic else { throw .invalidValue("magic") }
    }

    private static func code(_ reader: inout ByteReader) throws(DecodingError) -> ErrorCode {
        ErrorCode(rawValue: try reader.fixed16())
    }

    /// A version vector: a varint count, then per replica (ascending) its ID (u64) and counter (varint).
    static func write(_ version: VersionVector, into writer: inout ByteWriter) {
        let entries = version.counters.sorted { $0.key < $1.key }
        writer.varint(UInt64(entries.count))
        for (replica, counter) in entries {
            writer.fixed64(replica.rawValue)
            writer.varint(counter)
        }
    }

    /// A set of replica IDs: a varint count, then each ID (u64), ascending.
    static func write(_ replicas: [ReplicaID], into writer: inout ByteWriter) {
        writer.varint(UInt64(replicas.count))
        for replica in replicas.sorted() { writer.fixed64(replica.rawValue) }
    }

    private static func replicas(_ reader: inout ByteReader) throws(DecodingError) -> [ReplicaID] {
        let count = try reader.count(limit: reader.remaining / 8)
        var replicas: [ReplicaID] = []
        for _ in 0..<count {
            let replica = ReplicaID(try reader.fixed64())
            guard replicas.last.map({ $0 < replica }) ?? true else { throw .invalidValue("replica list order") }
            replicas.append(replica)
        }
        return replicas
    }

    private static func version(_ reader: inout ByteReader) throws(DecodingError) -> VersionVector {
        let count = try reader.count(limit: reader.remaining / 9)
        var counters: [ReplicaID: UInt64] = [:]
        var previous: ReplicaID?
        for _ in 0..<count {
            let replica = ReplicaID(try reader.fixed64())
            guard previous.map({ $0 < replica }) ?? true else { throw .invalidValue("version vector order") }
            previous = replica
            let counter = try reader.varint()
            guard counter > 0 else { throw .invalidValue("version vector counter 0") }
            counters[replica] = counter
        }
        return VersionVector(counters)
    }
}
