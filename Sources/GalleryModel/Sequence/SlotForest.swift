/// The ordered slots of every gallery: one counted B+tree per gallery over shared arenas.
///
/// Leaves hold up to 64 slots in order, with a bit mask of which are visible; inner nodes hold up
/// to 64 children with the total and visible slot counts of each. A slot knows its leaf and every
/// node its place in its parent, so a slot's index is found by walking up (one vector sum per level),
/// and an index finds its slot by walking down.
/// The nodes live in flat arrays, so a lookup touches a handful of cache lines rather than one per
/// level of a binary tree.
///
/// - Complexity: insertion, rank, lookup by index, and visibility changes are O(log n) (base 32 to
///   64, times a scan of one node per level), where n is the number of slots (tombstones included)
///   of the gallery.
struct SlotForest {
    /// Children per inner node and slots per leaf.
    static let fanout = 64
    static let half = fanout / 2

    /// The arena of all slots of all galleries.
    var nodes: [SlotNode] = []
    var galleries: [GalleryTree] = []

    // The arenas below are written by this file, SlotForest+Splitting and SlotForest+Encoding only
    // (internal for that).

    // Leaves: `fanout` slot entries each, a visibility mask, a count, a parent and neighbours.
    var leafSlots: [Int32] = []
    var leafMask: [UInt64] = []
    var leafCount: [Int32] = []
    var leafParent: [Int32] = []
    var leafNext: [Int32] = []
    var leafPrev: [Int32] = []
    /// Where each leaf's entry is in its parent's block (0 for a root). Not encoded: rebuilt from
    /// `innerChild` (`rebuildEntries()`), so that walks up never search a parent for the child.
    var leafEntry: [Int32] = []

    // Inner nodes: `fanout` child entries each, with the counts of each child's subtree.
    var innerChild: [Int32] = []
    var innerTotal: [Int32] = []
    var innerVisible: [Int32] = []
    var innerCount: [Int32] = []
    var innerParent: [Int32] = []
    /// 1 when an inner node's children are leaves, 2 above that, and so on.
    var innerLevel: [Int32] = []
    /// Where each inner node's entry is in its parent's block (0 for a root); as `leafEntry`.
    var innerEntry: [Int32] = []

    /// Adds an empty gallery sequence and returns its index.
    mutating func addGallery() -> Int32 {
        galleries.append(GalleryTree())
        return Int32(galleries.count - 1)
    }

    /// Number of galleries.
    var galleryCount: Int { galleries.count }

    /// Number of slots in a gallery, tombstones included.
    func totalCount(_ gallery: Int32) -> Int {
        galleries[Int(gallery)].total
    }

    /// Number of visible slots (items shown) in a gallery.
    func visibleCount(_ gallery: Int32) -> Int {
        galleries[Int(gallery)].visible
    }

    subscript(slot: Int32) -> SlotNode {
        nodes[Int(slot)]
    }

    // MARK: Creating slots

    /// Appends a detached slot to the arena and returns its index.
    mutating func makeSlot(
        key: PackedID, item: Int32, gallery: Int32, originLeft: Int32, originRight: Int32, visible: Bool
    ) -> Int32 {
        nodes.append(SlotNode(
            key: key, item: item, gallery: gallery, originLeft: originLeft, originRight: originRight,
            isVisible: visible))
        return Int32(nodes.count - 1)
    }

    /// Links a detached slot into its gallery immediately before `next` (-1: at the end).
    ///
    /// - Complexity: O(log n).
    mutating func link(_ slot: Int32, before next: Int32) {
        let gallery = Int(nodes[Int(slot)].gallery)
        let visible = nodes[Int(slot)].isVisible
        galleries[gallery].total += 1
        galleries[gallery].visible += visible ? 1 : 0
        guard galleries[gallery].root >= 0 else {
            let leaf = makeLeaf()
            galleries[gallery].root = leaf
            galleries[gallery].firstLeaf = leaf
            galleries[gallery].lastLeaf = leaf
            put(slot, visible: visible, into: leaf, at: 0)
            return
        }
        var leaf: Int32
        var position: Int
        if next < 0 {
            leaf = galleries[gallery].lastLeaf
            position = Int(leafCount[Int(leaf)])
        } else {
            (leaf, position) = locate(next)
        }
        if leafCount[Int(leaf)] == Int32(Self.fanout) {
            let right = splitLeaf(leaf, gallery: gallery)
            if position > Self.half {
                leaf = right
                position -= Self.half
            }
        }
        put(slot, visible: visible, into: leaf, at: position)
        adjustAncestors(ofLeaf: leaf, total: 1, visible: visible ? 1 : 0)
    }

    /// Shows or hides a slot, keeping the counts of its ancestors.
    ///
    /// - Complexity: O(log n).
    mutating func setVisible(_ slot: Int32, _ visible: Bool) {
        guard nodes[Int(slot)].isVisible != visible else { return }
        nodes[Int(slot)].isVisible = visible
        let (leaf, position) = locate(slot)
        leafMask[Int(leaf)] ^= 1 << UInt64(position)
        let delta: Int32 = visible ? 1 : -1
        galleries[Int(nodes[Int(slot)].gallery)].visible += Int(delta)
        adjustAncestors(ofLeaf: leaf, total: 0, visible: delta)
    }

    // MARK: Internals

    /// The leaf holding a linked slot and the slot's position in it.
    @inline(__always)
    func locate(_ slot: Int32) -> (leaf: Int32, position: Int) {
        let leaf = nodes[Int(slot)].leaf
        return (leaf, Self.find(slot, in: leafSlots, node: leaf, count: Int(leafCount[Int(leaf)])))
    }

    /// The sum of `counts` over everything left of `leaf` in its tree.
    func countBefore(leaf: Int32, in counts: [Int32]) -> Int {
        var sum = 0
        var position = Int(leafEntry[Int(leaf)])
        var parent = leafParent[Int(leaf)]
        while parent >= 0 {
            sum += Self.prefixSum(of: counts, node: parent, count: position)
            position = Int(innerEntry[Int(parent)])
            parent = innerParent[Int(parent)]
        }
        return sum
    }

    /// Adds to the counts that every ancestor keeps for the subtree holding `leaf`.
    private mutating func adjustAncestors(ofLeaf leaf: Int32, total: Int32, visible: Int32) {
        var position = Int(leafEntry[Int(leaf)])
        var parent = leafParent[Int(leaf)]
        while parent >= 0 {
            let entry = Int(parent) * Self.fanout + position
            innerTotal[entry] += total
            innerVisible[entry] += visible
            position = Int(innerEntry[Int(parent)])
            parent = innerParent[Int(parent)]
        }
    }

    /// The arena index of the entry for `child` (at `level`, 0 for leaves) in its parent `parent`.
    func index(of child: Int32, level: Int32, in parent: Int32) -> Int {
        let position = Int(level == 0 ? leafEntry[Int(child)] : innerEntry[Int(child)])
        assert(innerChild[Int(parent) * Self.fanout + position] == child, "stale entry of \(child) in \(parent)")
        return Int(parent) * Self.fanout + position
    }
}
