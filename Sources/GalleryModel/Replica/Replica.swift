/// One replica of a space: its galleries, their items, the op log, and what it has of each peer.
///
/// All changes go through ops. Local commands (`insert`, `move`, ...) make an op, apply it, and
/// return it to be sent to peers; ops from peers go through `receive(_:)`, which applies each one
/// exactly once and only after its dependencies, holding early ones in a bounded buffer. The state
/// is a pure function of the set of applied ops: replicas with the same ops show the same galleries.
///
/// Galleries are sequences of slots ordered by a Fugue-style list CRDT (FugueMax semantics, in the
/// list-with-origins form used by diamond-types and Loro), so concurrent multi-item drops at one
/// place never interleave. Each item holds a last-writer-wins register pointing at its current slot;
/// a move adds a slot and sets the register (Kleppmann, "Moving elements in list CRDTs", 2020).
package struct Replica: Sendable {
    /// This replica's ID.
    package internal(set) var id: ReplicaID

    var table = ReplicaTable()
    var slots = SlotForest()
    var items: [ItemRecord] = []
    /// Fields other than the title, for the items that have any.
    var extraFields: [Int32: [ItemField: FieldValue]] = [:]
    /// The op that last set each updated field, keyed by `fieldKey(item:field:)`; a field never
    /// updated was set by the item's insert.
    var fieldStamps: [UInt64: PackedID] = [:]
    /// Gallery identities (the names ops carry), by gallery index.
    var galleryNames: [String] = []
    var galleryIndex: [String: Int32] = [:]
    /// The registers of the galleries renamed or deleted (`Replica+Galleries`), by gallery index.
    var galleryRegisters: [Int32: GalleryRegister] = [:]
    /// The galleries shown, by the name people see; kept only once a gallery was renamed or
    /// deleted (until then every gallery is shown under its identity).
    var shownIndex: [String: Int32] = [:]
    /// The reverse of `shownIndex`.
    var shownNames: [Int32: String] = [:]
    /// The Lamport clock: the greatest counter this replica has used or seen.
    var clock: UInt64 = 0
    var log = OpLog()
    var buffer: CausalBuffer
    /// Checks peers' ops and seals this replica's own (`OpAuthenticator`); nil: ops are neither
    /// signed nor checked (the model's tests, the simulator).
    package var authenticator: (any OpAuthenticator)?
    /// Held ops refused as forged when released, until the node takes them.
    var forgedHeldOps: [ForgedHeldOp] = []

    /// Creates an empty replica.
    ///
    /// - Parameters:
    ///   - id: The replica's ID, unique in the space and never reused.
    ///   - bufferLimit: The most early ops held in all while their dependencies are missing.
    package init(id: ReplicaID, bufferLimit: Int = 100_000) {
        self.init(id: id, bufferLimits: BufferLimits(ops: bufferLimit))
    }

    /// Creates an empty replica that holds early ops within `bufferLimits`, in all and per source.
    package init(id: ReplicaID, bufferLimits: BufferLimits) {
        self.id = id
        self.buffer = CausalBuffer(limits: bufferLimits)
        _ = table.register(id)
    }

    // MARK: What the replica has

    /// The version vector: the last counter applied from each replica.
    ///
    /// - Complexity: O(r) for r replicas.
    package var version: VersionVector {
        var counters: [ReplicaID: UInt64] = [:]
        for (index, replica) in table.ids.enumerated() where table.applied[index] > 0 {
            counters[replica] = table.applied[index]
        }
        return VersionVector(counters)
    }

    /// The Lamport clock: the greatest counter used or seen here.
    package var lamportClock: UInt64 { clock }

    /// Whether the op with this ID has been applied here.
    ///
    /// - Complexity: O(1).
    package func contains(_ id: OpID) -> Bool {
        table.contains(id)
    }

    /// Number of ops applied.
    package var opCount: Int { log.count }

    /// Size in bytes of the op log in its binary encoding (`OpCodec`), as kept in memory.
    package var encodedLogSize: Int { log.byteCount }

    /// All applied ops in the order they were applied.
    ///
    /// - Complexity: O(n): the log is kept encoded and decoded on demand.
    package var ops: [Op] { log.ops }

    /// The last `count` ops applied, in the order they were applied (what a command just made).
    ///
    /// - Complexity: O(count).
    package func lastOps(_ count: Int) -> [Op] {
        log.last(min(count, log.count))
    }

    /// The applied ops that a replica at `version` lacks, in an order that respects dependencies.
    ///
    /// - Complexity: O(r log n + k log k) for k ops returned.
    package func ops(missingFrom version: VersionVector) -> [Op] {
        log.ops(missingFrom: version, replicas: table)
    }

    /// The ops a replica at `version` lacks, encoded as `OpCodec` batches of at most `maximumBytes`
    /// each, straight from the log: what a catch-up sends.
    ///
    /// - Complexity: O(r log n + k log k + b) for k ops of b bytes.
    package func encodedOps(missingFrom version: VersionVector, maximumBytes: Int) -> [[UInt8]] {
        log.encodedBatches(missingFrom: version, replicas: table, maximumBytes: maximumBytes)
    }

    /// Number of early ops held until their dependencies arrive.
    package var bufferedCount: Int { buffer.count }

    /// Number of early ops held for `source` (`receive(_:from:applied:)`).
    package func bufferedCount(from source: Int) -> Int { buffer.count(from: source) }

    /// Bytes of early ops held, by the bound of their encoded size.
    package var bufferedBytes: Int { buffer.byteCount }

    /// The op IDs that held ops wait for: what to ask peers for.
    package var missingDependencies: [OpID] { buffer.missing }

    // MARK: Internals shared by the extensions

    /// Lamport order on packed IDs: counter, then replica ID.
    @inline(__always)
    func lamportPrecedes(_ a: PackedID, _ b: PackedID) -> Bool {
        a.counter != b.counter ? a.counter < b.counter : table.ids[a.replicaIndex] < table.ids[b.replicaIndex]
    }

    /// The key of one field register of one item.
    static func fieldKey(item: Int32, field: ItemField) -> UInt64 {
        UInt64(UInt32(bitPattern: item)) << 8 | UInt64(field.rawValue)
    }

    /// The index of a known item by ID: the slot its insert created, if that is what `id` names.
    @inline(__always)
    func itemIndex(of id: OpID) -> Int32? {
        guard let key = table.pack(id), let slot = table.slot(for: key) else { return nil }
        let item = slots[slot].item
        return items[Int(item)].key == key ? item : nil
    }

    /// The index of a gallery by name; the first few galleries are found without hashing.
    @inline(__always)
    func galleryLookup(_ name: String) -> Int32? {
        for index in 0..<min(galleryNames.count, 4) where galleryNames[index] == name { return Int32(index) }
        return galleryNames.count > 4 ? galleryIndex[name] : nil
    }
}
