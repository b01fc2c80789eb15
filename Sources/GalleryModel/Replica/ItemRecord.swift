/// How a replica stores one item: compact, with fields other than the title kept aside.
struct ItemRecord {
    /// The item's ID (its insert slot's key).
    var key: PackedID
    /// The ID of the op that set `slot` (the insert or the winning move), compared Lamport-wise.
    var slotStamp: PackedID
    /// The title field, kept inline since nearly every item has one.
    var title: String?
    /// The item's current slot: its place in some gallery.
    var slot: Int32
    /// Deleted items stay, invisible, so that late ops on them resolve deterministically.
    var isDeleted: Bool
    /// Placeholder until committed.
    var isPlaceholder: Bool
}
