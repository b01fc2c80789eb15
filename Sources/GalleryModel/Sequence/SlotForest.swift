/// The ordered slots of every gallery: one treap per gallery over a shared arena of nodes.
///
/// Each node keeps the total and the visible size of its subtree, so that a visible index finds
/// its slot, and a slot finds its index, by one walk down or up the tree. Priorities are a hash of
/// the node's arena index, so the shape is deterministic for a given sequence of operations.
///
/// - Complexity: insertion, rank, lookup by index, and visibility changes are O(log n) expected,
///   where n is the number of slots (tombstones included) of the gallery.
struct SlotForest {
    /// The arena of all slots of all galleries.
    private(set) var nodes: [SlotNode] = []
    /// The root slot of each gallery's treap, or -1 for an empty gallery.
    private(set) var roots: [Int32] = []

    /// Adds an empty gallery sequence and returns its index.
    mutating func addGallery() -> Int32 {
        roots.append(-1)
        return Int32(roots.count - 1)
    }

    /// Number of slots in a gallery, tombstones included.
    func totalCount(_ gallery: Int32) -> Int {
        let root = roots[Int(gallery)]
        return root < 0 ? 0 : Int(nodes[Int(root)].size)
    }

    /// Number of visible slots (items shown) in a gallery.
    func visibleCount(_ gallery: Int32) -> Int {
        let root = roots[Int(gallery)]
        return root < 0 ? 0 : Int(nodes[Int(root)].visibleSize)
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
            key: key, visibleSize: visible ? 1 : 0, item: item, gallery: gallery,
            originLeft: originLeft, originRight: originRight, isVisible: visible))
        return Int32(nodes.count - 1)
    }

    /// Links a detached slot into its gallery immediately before `next` (-1: at the end).
    ///
    /// - Complexity: O(log n) expected.
    mutating func link(_ slot: Int32, before next: Int32) {
        let gallery = nodes[Int(slot)].gallery
        var parent: Int32
        var asLeft: Bool
        if next < 0 {
            let root = roots[Int(gallery)]
            if root < 0 {
                roots[Int(gallery)] = slot
                return
            }
            parent = rightmost(from: root)
            asLeft = false
        } else if nodes[Int(next)].left < 0 {
            parent = next
            asLeft = true
        } else {
            parent = rightmost(from: nodes[Int(next)].left)
            asLeft = false
        }
        if asLeft { nodes[Int(parent)].left = slot } else { nodes[Int(parent)].right = slot }
        nodes[Int(slot)].parent = parent
        let visible: Int32 = nodes[Int(slot)].isVisible ? 1 : 0
        var ancestor = parent
        while ancestor >= 0 {
            nodes[Int(ancestor)].size &+= 1
            nodes[Int(ancestor)].visibleSize &+= visible
            ancestor = nodes[Int(ancestor)].parent
        }
        let priority = Self.priority(slot)
        while true {
            let up = nodes[Int(slot)].parent
            if up < 0 || Self.priority(up) >= priority { break }
            rotateUp(slot)
        }
    }

    /// Shows or hides a slot, keeping the visible sizes of its ancestors.
    ///
    /// - Complexity: O(log n) expected.
    mutating func setVisible(_ slot: Int32, _ visible: Bool) {
        guard nodes[Int(slot)].isVisible != visible else { return }
        nodes[Int(slot)].isVisible = visible
        let delta: Int32 = visible ? 1 : -1
        var node = slot
        while node >= 0 {
            nodes[Int(node)].visibleSize &+= delta
            node = nodes[Int(node)].parent
        }
    }

    // MARK: Navigation

    /// The first slot of a gallery (tombstones included), or -1.
    func first(_ gallery: Int32) -> Int32 {
        let root = roots[Int(gallery)]
        return root < 0 ? -1 : leftmost(from: root)
    }

    /// The last slot of a gallery (tombstones included), or -1.
    func last(_ gallery: Int32) -> Int32 {
        let root = roots[Int(gallery)]
        return root < 0 ? -1 : rightmost(from: root)
    }

    /// The slot after `slot` in its gallery (tombstones included), or -1.
    ///
    /// - Complexity: O(log n) worst case, O(1) amortized over a walk.
    func successor(_ slot: Int32) -> Int32 {
        let right = nodes[Int(slot)].right
        if right >= 0 { return leftmost(from: right) }
        var node = slot
        var parent = nodes[Int(node)].parent
        while parent >= 0 && nodes[Int(parent)].right == node {
            node = parent
            parent = nodes[Int(node)].parent
        }
        return parent
    }

    /// The slot before `slot` in its gallery (tombstones included), or -1.
    func predecessor(_ slot: Int32) -> Int32 {
        let left = nodes[Int(slot)].left
        if left >= 0 { return rightmost(from: left) }
        var node = slot
        var parent = nodes[Int(node)].parent
        while parent >= 0 && nodes[Int(parent)].left == node {
            node = parent
            parent = nodes[Int(node)].parent
        }
        return parent
    }

    /// The visible slot at a visible index of a gallery; the index must be in range.
    ///
    /// - Complexity: O(log n) expected.
    func visibleSlot(at index: Int, in gallery: Int32) -> Int32 {
        var remaining = Int32(index)
        var node = roots[Int(gallery)]
        while node >= 0 {
            let current = nodes[Int(node)]
            let leftVisible = current.left < 0 ? 0 : nodes[Int(current.left)].visibleSize
            if remaining < leftVisible {
                node = current.left
            } else if remaining == leftVisible && current.isVisible {
                return node
            } else {
                remaining -= leftVisible + (current.isVisible ? 1 : 0)
                node = current.right
            }
        }
        preconditionFailure("visible index \(index) out of range")
    }

    /// The number of slots before `slot` in its gallery, tombstones included.
    ///
    /// - Complexity: O(log n) expected.
    func totalRank(_ slot: Int32) -> Int {
        let left = nodes[Int(slot)].left
        var rank = left < 0 ? 0 : Int(nodes[Int(left)].size)
        var node = slot
        var parent = nodes[Int(node)].parent
        while parent >= 0 {
            if nodes[Int(parent)].right == node {
                let parentLeft = nodes[Int(parent)].left
                rank += 1 + (parentLeft < 0 ? 0 : Int(nodes[Int(parentLeft)].size))
            }
            node = parent
            parent = nodes[Int(node)].parent
        }
        return rank
    }

    /// The number of visible slots before `slot` in its gallery: its index when it is visible.
    ///
    /// - Complexity: O(log n) expected.
    func visibleRank(_ slot: Int32) -> Int {
        let left = nodes[Int(slot)].left
        var rank = left < 0 ? 0 : Int(nodes[Int(left)].visibleSize)
        var node = slot
        var parent = nodes[Int(node)].parent
        while parent >= 0 {
            let parentNode = nodes[Int(parent)]
            if parentNode.right == node {
                rank += (parentNode.isVisible ? 1 : 0)
                    + (parentNode.left < 0 ? 0 : Int(nodes[Int(parentNode.left)].visibleSize))
            }
            node = parent
            parent = parentNode.parent
        }
        return rank
    }

    /// Calls `body` with each visible slot of a gallery in order.
    ///
    /// - Complexity: O(n) for the whole walk; subtrees without visible slots are skipped.
    func forEachVisible(in gallery: Int32, _ body: (Int32) throws -> Void) rethrows {
        var stack: [Int32] = []
        var node = roots[Int(gallery)]
        while node >= 0 || !stack.isEmpty {
            while node >= 0 && nodes[Int(node)].visibleSize > 0 {
                stack.append(node)
                node = nodes[Int(node)].left
            }
            guard let top = stack.popLast() else { break }
            if nodes[Int(top)].isVisible { try body(top) }
            node = nodes[Int(top)].right
        }
    }

    // MARK: Internals

    private func leftmost(from start: Int32) -> Int32 {
        var node = start
        while nodes[Int(node)].left >= 0 { node = nodes[Int(node)].left }
        return node
    }

    private func rightmost(from start: Int32) -> Int32 {
        var node = start
        while nodes[Int(node)].right >= 0 { node = nodes[Int(node)].right }
        return node
    }

    /// A deterministic pseudo-random treap priority for an arena index.
    @inline(__always)
    private static func priority(_ slot: Int32) -> UInt32 {
        var x = UInt64(UInt32(bitPattern: slot)) &+ 0x9E37_79B9_7F4A_7C15
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt32(truncatingIfNeeded: x ^ (x >> 31))
    }

    /// Rotates `node` above its parent, keeping subtree sizes.
    private mutating func rotateUp(_ node: Int32) {
        let parent = nodes[Int(node)].parent
        let grand = nodes[Int(parent)].parent
        let parentSize = nodes[Int(parent)].size
        let parentVisible = nodes[Int(parent)].visibleSize
        if nodes[Int(parent)].left == node {
            let moved = nodes[Int(node)].right
            nodes[Int(parent)].left = moved
            if moved >= 0 { nodes[Int(moved)].parent = parent }
            nodes[Int(node)].right = parent
        } else {
            let moved = nodes[Int(node)].left
            nodes[Int(parent)].right = moved
            if moved >= 0 { nodes[Int(moved)].parent = parent }
            nodes[Int(node)].left = parent
        }
        nodes[Int(parent)].parent = node
        nodes[Int(node)].parent = grand
        if grand < 0 {
            roots[Int(nodes[Int(node)].gallery)] = node
        } else if nodes[Int(grand)].left == parent {
            nodes[Int(grand)].left = node
        } else {
            nodes[Int(grand)].right = node
        }
        recount(parent)
        nodes[Int(node)].size = parentSize
        nodes[Int(node)].visibleSize = parentVisible
    }

    private mutating func recount(_ node: Int32) {
        let current = nodes[Int(node)]
        var size: Int32 = 1
        var visible: Int32 = current.isVisible ? 1 : 0
        if current.left >= 0 {
            size += nodes[Int(current.left)].size
            visible += nodes[Int(current.left)].visibleSize
        }
        if current.right >= 0 {
            size += nodes[Int(current.right)].size
            visible += nodes[Int(current.right)].visibleSize
        }
        nodes[Int(node)].size = size
        nodes[Int(node)].visibleSize = visible
    }
}
