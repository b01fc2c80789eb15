/// The shape of one gallery's counted B+tree inside a `SlotForest`.
struct GalleryTree {
    /// The root node: a leaf when `height` is 0, else an inner node; -1 while the gallery is empty.
    var root: Int32 = -1
    /// Number of inner levels above the leaves.
    var height = 0
    /// The leftmost leaf, or -1.
    var firstLeaf: Int32 = -1
    /// The rightmost leaf, or -1.
    var lastLeaf: Int32 = -1
    /// Number of slots, tombstones included.
    var total = 0
    /// Number of visible slots.
    var visible = 0
}
