/// How a replica stores one item: compact, with fields other than the title kept aside.
struct ItemRecord {
    /// The item's ID (its insert slot's key).
    var key: PackedID
    /// The title field, kept inline since nearly every item has one.
    var title: String?
    /// The item's current slot: its place in some gallery. The slot's key is the ID of the op that
    /// put the item there (its insert or the winning move): the item's last-writer-wins register.
    var slot: Int32
    /// Deleted items stay, invisible, so that late ops on them resolve deterministically.
    var isDeleted: Bool
    /// Placeholder until committed.
    var isPlaceholder: Bool
}
