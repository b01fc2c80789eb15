/// One position slot of a gallery's sequence, stored in the `SlotForest` arena.
///
/// An insert creates one slot per item; a move creates one slot for the item in its target gallery.
/// A slot is visible while it is the current slot of an item that is not deleted; otherwise it stays
/// as a tombstone so that every op anchored to it still finds its place.
struct SlotNode {
    /// The slot's op ID, packed by `ReplicaTable` (replica index and counter).
    var key: PackedID
    /// The item this slot places (index into the replica's item table).
    var item: Int32
    /// The gallery whose sequence holds the slot.
    var gallery: Int32
    /// The slot that was immediately left of this one when it was created, or -1 for the start.
    var originLeft: Int32
    /// The slot that was immediately right of this one when it was created, or -1 for the end.
    var originRight: Int32
    /// The leaf of the gallery's tree that holds the slot, or -1 before it is linked.
    var leaf: Int32 = -1
    /// Whether the slot currently shows its item.
    var isVisible: Bool
}
