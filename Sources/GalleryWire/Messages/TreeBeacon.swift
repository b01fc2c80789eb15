import GalleryModel

/// Where the sender stands in the mesh's relay tree (protocol.md, "Relay"): the root it follows
/// and since when that node has been a root (the oldest root wins, the smaller replica ID among
/// roots as old), the latest round of beacons from that root, its distance from the root in links,
/// and its parent (the neighbour through which that round came first). Carried by `tree` frames
/// (ignorable): the root sends one on every link each round, and each node forwards the first
/// copy of each round it gets.
package struct TreeBeacon: Hashable, Sendable {
    /// The replica ID of the root.
    package var root: ReplicaID
    /// When the root became a root (Unix time, milliseconds, by the root's clock).
    package var since: UInt64
    /// The root's round: a root starts each round above every round it sent before.
    package var round: UInt64
    /// Links from the root (0: the sender is the root).
    package var hops: UInt64
    /// The replica ID of the sender's parent; nil for the root.
    package var parent: ReplicaID?

    /// A beacon.
    package init(root: ReplicaID, since: UInt64, round: UInt64, hops: UInt64, parent: ReplicaID?) {
        self.root = root
        self.since = since
        self.round = round
        self.hops = hops
        self.parent = parent
    }

    /// Whether the root this beacon follows is preferred to `other`'s: older, or as old and smaller.
    package func prefersRoot(over other: TreeBeacon) -> Bool {
        (since, root) < (other.since, other.root)
    }

    /// The payload: root u64, since varint, round varint, hops varint, parent u64 (0 for none).
    func write(into writer: inout ByteWriter) {
        writer.fixed64(root.rawValue)
        writer.varint(since)
        writer.varint(round)
        writer.varint(hops)
        writer.fixed64(parent?.rawValue ?? 0)
    }

    /// Reads a payload written by `write`.
    static func read(from reader: inout ByteReader) throws(DecodingError) -> TreeBeacon {
        let root = ReplicaID(try reader.fixed64())
        let since = try reader.varint()
        let round = try reader.varint()
        let hops = try reader.varint()
        let parent = try reader.fixed64()
        return TreeBeacon(root: root, since: since, round: round, hops: hops, parent: parent == 0 ? nil : ReplicaID(parent))
    }
}
