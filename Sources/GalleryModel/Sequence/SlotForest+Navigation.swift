/// Walking a gallery's slots: its ends, neighbours, the slot at a visible index, a slot's rank,
/// every visible slot in order.
extension SlotForest {
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
}
