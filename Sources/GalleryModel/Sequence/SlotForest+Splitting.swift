/// Growing a gallery's tree: putting a slot into a leaf, making nodes, splitting a full leaf or
/// inner node into two and registering the new one in its parent (growing a new root at the
/// top), and the entries that say where each node sits in its parent.
extension SlotForest {
    /// Inserts a slot into a leaf with room, at a position.
    mutating func put(_ slot: Int32, visible: Bool, into leaf: Int32, at position: Int) {
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

    mutating func makeLeaf() -> Int32 {
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
    mutating func splitLeaf(_ leaf: Int32, gallery: Int) -> Int32 {
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
