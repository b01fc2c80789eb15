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
    private static let half = fanout / 2

    /// The arena of all slots of all galleries.
    var nodes: [SlotNode] = []
    var galleries: [GalleryTree] = []

    // The arenas below are written by this file and SlotForest+Encoding only (internal for that).

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

    // MARK: Navigation

    /// The first slot of a gallery (tombstones included), or -1.
    func first(_ gallery: Int32) -> Int32 {
        let leaf = galleries[Int(gallery)].firstLeaf
        return leaf < 0 ? -1 : leafSlots[Int(leaf) * Self.fanout]
    }

    /// The last slot of a gallery (tombstones included), or -1.
    func last(_ gallery: Int32) -> Int32 {
        let leaf = galleries[Int(gallery)].lastLeaf
        return leaf < 0 ? -1 : leafSlots[Int(leaf) * Self.fanout + Int(leafCount[Int(leaf)]) - 1]
    }

    /// The slot after `slot` in its gallery (tombstones included), or -1.
    ///
    /// - Complexity: O(1).
    func successor(_ slot: Int32) -> Int32 {
        let (leaf, position) = locate(slot)
        if position + 1 < Int(leafCount[Int(leaf)]) { return leafSlots[Int(leaf) * Self.fanout + position + 1] }
        let next = leafNext[Int(leaf)]
        return next < 0 ? -1 : leafSlots[Int(next) * Self.fanout]
    }

    /// The slot before `slot` in its gallery (tombstones included), or -1.
    ///
    /// - Complexity: O(1).
    func predecessor(_ slot: Int32) -> Int32 {
        let (leaf, position) = locate(slot)
        if position > 0 { return leafSlots[Int(leaf) * Self.fanout + position - 1] }
        let previous = leafPrev[Int(leaf)]
        return previous < 0 ? -1 : leafSlots[Int(previous) * Self.fanout + Int(leafCount[Int(previous)]) - 1]
    }

    /// The visible slot at a visible index of a gallery; the index must be in range.
    ///
    /// - Complexity: O(log n).
    func visibleSlot(at index: Int, in gallery: Int32) -> Int32 {
        let (leaf, position) = visibleLocation(at: index, in: gallery)
        return leafSlots[Int(leaf) * Self.fanout + position]
    }

    /// The slot before the one at visible `index` (tombstones included), or -1, and that slot.
    ///
    /// - Complexity: O(log n), one walk down.
    func visibleSlotAndPredecessor(at index: Int, in gallery: Int32) -> (slot: Int32, predecessor: Int32) {
        let (leaf, position) = visibleLocation(at: index, in: gallery)
        let slot = leafSlots[Int(leaf) * Self.fanout + position]
        if position > 0 { return (slot, leafSlots[Int(leaf) * Self.fanout + position - 1]) }
        let previous = leafPrev[Int(leaf)]
        return (slot, previous < 0 ? -1 : leafSlots[Int(previous) * Self.fanout + Int(leafCount[Int(previous)]) - 1])
    }

    /// The leaf and position of the visible slot at a visible index.
    private func visibleLocation(at index: Int, in gallery: Int32) -> (leaf: Int32, position: Int) {
        precondition(index >= 0 && index < galleries[Int(gallery)].visible, "visible index out of range")
        var remaining = Int32(index)
        var node = galleries[Int(gallery)].root
        for _ in 0..<galleries[Int(gallery)].height {
            let (child, rest) = Self.descend(
                into: innerVisible, node: node, count: Int(innerCount[Int(node)]), remaining: remaining)
            remaining = rest
            node = innerChild[Int(node) * Self.fanout + child]
        }
        return (node, Self.positionOfSetBit(remaining, in: leafMask[Int(node)]))
    }

    /// The number of slots before `slot` in its gallery, tombstones included.
    ///
    /// - Complexity: O(log n).
    func totalRank(_ slot: Int32) -> Int {
        let (leaf, position) = locate(slot)
        return position + countBefore(leaf: leaf, in: innerTotal)
    }

    /// The number of visible slots before `slot` in its gallery: its index when it is visible.
    ///
    /// - Complexity: O(log n).
    func visibleRank(_ slot: Int32) -> Int {
        let (leaf, position) = locate(slot)
        let before = leafMask[Int(leaf)] & ((1 << UInt64(position)) - 1)
        return before.nonzeroBitCount + countBefore(leaf: leaf, in: innerVisible)
    }

    /// Calls `body` with each visible slot of a gallery in order.
    ///
    /// - Complexity: O(n / 64 + k) for k visible slots.
    func forEachVisible(in gallery: Int32, _ body: (Int32) throws -> Void) rethrows {
        var leaf = galleries[Int(gallery)].firstLeaf
        while leaf >= 0 {
            var mask = leafMask[Int(leaf)]
            while mask != 0 {
                try body(leafSlots[Int(leaf) * Self.fanout + mask.trailingZeroBitCount])
                mask &= mask - 1
            }
            leaf = leafNext[Int(leaf)]
        }
    }

    // MARK: Internals

    /// The leaf holding a linked slot and the slot's position in it.
    @inline(__always)
    private func locate(_ slot: Int32) -> (leaf: Int32, position: Int) {
        let leaf = nodes[Int(slot)].leaf
        return (leaf, Self.find(slot, in: leafSlots, node: leaf, count: Int(leafCount[Int(leaf)])))
    }

    /// The sum of `counts` over everything left of `leaf` in its tree.
    private func countBefore(leaf: Int32, in counts: [Int32]) -> Int {
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
    private func index(of child: Int32, level: Int32, in parent: Int32) -> Int {
        let position = Int(level == 0 ? leafEntry[Int(child)] : innerEntry[Int(child)])
        assert(innerChild[Int(parent) * Self.fanout + position] == child, "stale entry of \(child) in \(parent)")
        return Int(parent) * Self.fanout + position
    }

    /// Inserts a slot into a leaf with room, at a position.
    private mutating func put(_ slot: Int32, visible: Bool, into leaf: Int32, at position: Int) {
        let base = Int(leaf) * Self.fanout
        let count = Int(leafCount[Int(leaf)])
        precondition(position <= count && count < Self.fanout)
        leafSlots.withUnsafeMutableBufferPointer { buffer in
            let entry = buffer.baseAddress! + base + position
            (entry + 1).update(from: entry, count: count - position)
            entry.pointee = slot
        }
        let mask = leafMask[Int(leaf)]
        let low = mask & ((1 << UInt64(position)) - 1)
        leafMask[Int(leaf)] = low | ((mask ^ low) << 1) | (visible ? 1 << UInt64(position) : 0)
        leafCount[Int(leaf)] = Int32(count + 1)
        nodes[Int(slot)].leaf = leaf
    }

    private mutating func makeLeaf() -> Int32 {
        leafSlots.append(contentsOf: repeatElement(-1, count: Self.fanout))
        leafMask.append(0)
        leafCount.append(0)
        leafParent.append(-1)
        leafNext.append(-1)
        leafPrev.append(-1)
        leafEntry.append(0)
        return Int32(leafCount.count - 1)
    }

    private mutating func makeInner(level: Int32) -> Int32 {
        innerChild.append(contentsOf: repeatElement(-1, count: Self.fanout))
        innerTotal.append(contentsOf: repeatElement(0, count: Self.fanout))
        innerVisible.append(contentsOf: repeatElement(0, count: Self.fanout))
        innerCount.append(0)
        innerParent.append(-1)
        innerLevel.append(level)
        innerEntry.append(0)
        return Int32(innerCount.count - 1)
    }

    /// Moves the upper half of a full leaf to a new leaf after it; returns the new leaf.
    private mutating func splitLeaf(_ leaf: Int32, gallery: Int) -> Int32 {
        let right = makeLeaf()
        let from = Int(leaf) * Self.fanout
        let to = Int(right) * Self.fanout
        for offset in 0..<Self.half {
            let slot = leafSlots[from + Self.half + offset]
            leafSlots[to + offset] = slot
            leafSlots[from + Self.half + offset] = -1
            nodes[Int(slot)].leaf = right
        }
        let mask = leafMask[Int(leaf)]
        leafMask[Int(right)] = mask >> UInt64(Self.half)
        leafMask[Int(leaf)] = mask & ((1 << UInt64(Self.half)) - 1)
        leafCount[Int(leaf)] = Int32(Self.half)
        leafCount[Int(right)] = Int32(Self.half)
        let next = leafNext[Int(leaf)]
        leafNext[Int(right)] = next
        leafPrev[Int(right)] = leaf
        leafNext[Int(leaf)] = right
        if next >= 0 { leafPrev[Int(next)] = right } else { galleries[gallery].lastLeaf = right }
        addSibling(
            right, after: leaf, level: 0, gallery: gallery,
            leftCounts: (Int32(Self.half), Int32(leafMask[Int(leaf)].nonzeroBitCount)),
            rightCounts: (Int32(Self.half), Int32(leafMask[Int(right)].nonzeroBitCount)))
        return right
    }

    /// Registers `sibling`, split off `node` (at `level`, 0 for leaves), in their parent, splitting
    /// the parent (and so on up) or growing a new root as needed.
    private mutating func addSibling(
        _ sibling: Int32, after node: Int32, level: Int32, gallery: Int,
        leftCounts: (Int32, Int32), rightCounts: (Int32, Int32)
    ) {
        var parent = level == 0 ? leafParent[Int(node)] : innerParent[Int(node)]
        if parent < 0 {
            parent = makeInner(level: level + 1)
            let base = Int(parent) * Self.fanout
            innerChild[base] = node
            innerCount[Int(parent)] = 1
            setParent(of: node, level: level, to: parent, entry: 0)
            galleries[gallery].root = parent
            galleries[gallery].height += 1
        }
        var entry = index(of: node, level: level, in: parent)
        if innerCount[Int(parent)] == Int32(Self.fanout) {
            let right = splitInner(parent, gallery: gallery)
            if entry - Int(parent) * Self.fanout >= Self.half {
                entry = entry - Int(parent) * Self.fanout - Self.half + Int(right) * Self.fanout
                parent = right
            }
        }
        let base = Int(parent) * Self.fanout
        let count = Int(innerCount[Int(parent)])
        var index = base + count
        while index > entry + 1 {
            innerChild[index] = innerChild[index - 1]
            innerTotal[index] = innerTotal[index - 1]
            innerVisible[index] = innerVisible[index - 1]
            setEntry(of: innerChild[index], level: level, to: index - base)
            index -= 1
        }
        innerTotal[entry] = leftCounts.0
        innerVisible[entry] = leftCounts.1
        innerChild[entry + 1] = sibling
        innerTotal[entry + 1] = rightCounts.0
        innerVisible[entry + 1] = rightCounts.1
        innerCount[Int(parent)] = Int32(count + 1)
        setParent(of: sibling, level: level, to: parent, entry: entry + 1 - base)
    }

    /// Moves the upper half of a full inner node to a new node after it; returns the new node.
    private mutating func splitInner(_ node: Int32, gallery: Int) -> Int32 {
        let level = innerLevel[Int(node)]
        let right = makeInner(level: level)
        let from = Int(node) * Self.fanout + Self.half
        let to = Int(right) * Self.fanout
        var leftSums: (Int32, Int32) = (0, 0)
        var rightSums: (Int32, Int32) = (0, 0)
        for offset in 0..<Self.half {
            leftSums.0 += innerTotal[from - Self.half + offset]
            leftSums.1 += innerVisible[from - Self.half + offset]
            innerChild[to + offset] = innerChild[from + offset]
            innerTotal[to + offset] = innerTotal[from + offset]
            innerVisible[to + offset] = innerVisible[from + offset]
            rightSums.0 += innerTotal[from + offset]
            rightSums.1 += innerVisible[from + offset]
            setParent(of: innerChild[from + offset], level: level - 1, to: right, entry: offset)
            innerChild[from + offset] = -1
        }
        innerCount[Int(node)] = Int32(Self.half)
        innerCount[Int(right)] = Int32(Self.half)
        addSibling(right, after: node, level: level, gallery: gallery, leftCounts: leftSums, rightCounts: rightSums)
        return right
    }

    private mutating func setParent(of node: Int32, level: Int32, to parent: Int32, entry: Int) {
        if level == 0 { leafParent[Int(node)] = parent } else { innerParent[Int(node)] = parent }
        setEntry(of: node, level: level, to: entry)
    }

    private mutating func setEntry(of node: Int32, level: Int32, to entry: Int) {
        if level == 0 { leafEntry[Int(node)] = Int32(entry) } else { innerEntry[Int(node)] = Int32(entry) }
    }

    /// Sets `leafEntry` and `innerEntry` from the children of every inner node (after decoding).
    ///
    /// - Complexity: O(leaves + inner nodes).
    mutating func rebuildEntries() {
        leafEntry = Array(repeating: 0, count: leafCount.count)
        innerEntry = Array(repeating: 0, count: innerCount.count)
        for node in innerCount.indices {
            for position in 0..<Int(innerCount[node]) {
                let child = Int(innerChild[node * Self.fanout + position])
                if innerLevel[node] == 1 { leafEntry[child] = Int32(position) } else { innerEntry[child] = Int32(position) }
            }
        }
    }
}
