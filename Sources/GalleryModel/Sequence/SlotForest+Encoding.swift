/// The forest's state encoding for snapshots: every arena written as it is, read back exactly.
extension SlotForest {
    /// Writes the forest as it is, arena by arena, for `init(decoding:)` to restore exactly.
    ///
    /// ```
    /// forest    = slots galleries leaves inners
    /// slots     = n:varint key:u64*n item:i32*n gallery:i32*n originLeft:i32*n originRight:i32*n
    ///             leaf:i32*n visible:u8*n
    /// galleries = g:varint root:i32*g height:i32*g firstLeaf:i32*g lastLeaf:i32*g total:i64*g visible:i64*g
    /// leaves    = l:varint slots:i32*(64*l) mask:u64*l count:i32*l parent:i32*l next:i32*l prev:i32*l
    /// inners    = m:varint child:i32*(64*m) total:i32*(64*m) visible:i32*(64*m) count:i32*m parent:i32*m
    ///             level:i32*m
    /// ```
    ///
    /// - Complexity: O(n) for n slots.
    func encodeState(into writer: inout ByteWriter) {
        writer.varint(UInt64(nodes.count))
        writer.integers(nodes.map(\.key.raw))
        writer.integers(nodes.map(\.item))
        writer.integers(nodes.map(\.gallery))
        writer.integers(nodes.map(\.originLeft))
        writer.integers(nodes.map(\.originRight))
        writer.integers(nodes.map(\.leaf))
        writer.integers(nodes.map { UInt8($0.isVisible ? 1 : 0) })

        writer.varint(UInt64(galleries.count))
        writer.integers(galleries.map(\.root))
        writer.integers(galleries.map { Int32($0.height) })
        writer.integers(galleries.map(\.firstLeaf))
        writer.integers(galleries.map(\.lastLeaf))
        writer.integers(galleries.map { Int64($0.total) })
        writer.integers(galleries.map { Int64($0.visible) })

        writer.varint(UInt64(leafCount.count))
        writer.integers(leafSlots)
        writer.integers(leafMask)
        writer.integers(leafCount)
        writer.integers(leafParent)
        writer.integers(leafNext)
        writer.integers(leafPrev)

        writer.varint(UInt64(innerCount.count))
        writer.integers(innerChild)
        writer.integers(innerTotal)
        writer.integers(innerVisible)
        writer.integers(innerCount)
        writer.integers(innerParent)
        writer.integers(innerLevel)
    }

    /// Restores what `encodeState(into:)` wrote, for a replica with `itemCount` items.
    ///
    /// Every index is checked to be in range, so that a damaged state cannot make later lookups
    /// trap; the shape of the trees (which the file's checksum protects) is trusted.
    ///
    /// - Complexity: O(n) for n slots.
    init(decoding reader: inout ByteReader, itemCount: Int) throws(DecodingError) {
        let count = try reader.count(limit: reader.remaining / 29)
        let keys = try reader.integers(count, as: UInt64.self)
        let items = try reader.integers(count, as: Int32.self)
        let galleryIndices = try reader.integers(count, as: Int32.self)
        let lefts = try reader.integers(count, as: Int32.self)
        let rights = try reader.integers(count, as: Int32.self)
        let leaves = try reader.integers(count, as: Int32.self)
        let visible = try reader.integers(count, as: UInt8.self)

        let galleryCount = try reader.count(limit: reader.remaining / 32)
        let roots = try reader.integers(galleryCount, as: Int32.self)
        let heights = try reader.integers(galleryCount, as: Int32.self)
        let firstLeaves = try reader.integers(galleryCount, as: Int32.self)
        let lastLeaves = try reader.integers(galleryCount, as: Int32.self)
        let totals = try reader.integers(galleryCount, as: Int64.self)
        let visibles = try reader.integers(galleryCount, as: Int64.self)

        let leafTotal = try reader.count(limit: reader.remaining / (Self.fanout * 4))
        leafSlots = try reader.integers(leafTotal * Self.fanout)
        leafMask = try reader.integers(leafTotal)
        leafCount = try reader.integers(leafTotal)
        leafParent = try reader.integers(leafTotal)
        leafNext = try reader.integers(leafTotal)
        leafPrev = try reader.integers(leafTotal)

        let innerTotalCount = try reader.count(limit: reader.remaining / (Self.fanout * 12))
        innerChild = try reader.integers(innerTotalCount * Self.fanout)
        innerTotal = try reader.integers(innerTotalCount * Self.fanout)
        innerVisible = try reader.integers(innerTotalCount * Self.fanout)
        innerCount = try reader.integers(innerTotalCount)
        innerParent = try reader.integers(innerTotalCount)
        innerLevel = try reader.integers(innerTotalCount)

        func check(_ values: [Int32], below limit: Int, _ what: String) throws(DecodingError) {
            for value in values where value < -1 || Int(value) >= limit { throw .invalidValue("snapshot \(what) index") }
        }
        try check(items, below: itemCount, "slot item")
        try check(galleryIndices, below: galleryCount, "slot gallery")
        try check(lefts, below: count, "slot origin")
        try check(rights, below: count, "slot origin")
        try check(leaves, below: leafTotal, "slot leaf")
        try check(roots, below: max(leafTotal, innerTotalCount), "gallery root")
        try check(firstLeaves, below: leafTotal, "gallery leaf")
        try check(lastLeaves, below: leafTotal, "gallery leaf")
        try check(leafSlots, below: count, "leaf slot")
        try check(leafParent, below: innerTotalCount, "leaf parent")
        try check(leafNext, below: leafTotal, "leaf neighbour")
        try check(leafPrev, below: leafTotal, "leaf neighbour")
        try check(innerChild, below: max(leafTotal, innerTotalCount), "inner child")
        try check(innerParent, below: innerTotalCount, "inner parent")
        for value in leafCount + innerCount where value < 0 || Int(value) > Self.fanout {
            throw .invalidValue("snapshot node count")
        }
        for index in 0..<count where items[index] < 0 || galleryIndices[index] < 0 {
            throw .invalidValue("snapshot slot without item or gallery")
        }

        nodes = (0..<count).map { index in
            SlotNode(
                key: PackedID(raw: keys[index]), item: items[index], gallery: galleryIndices[index],
                originLeft: lefts[index], originRight: rights[index], leaf: leaves[index],
                isVisible: visible[index] != 0)
        }
        galleries = (0..<galleryCount).map { index in
            GalleryTree(
                root: roots[index], height: Int(heights[index]), firstLeaf: firstLeaves[index],
                lastLeaf: lastLeaves[index], total: Int(totals[index]), visible: Int(visibles[index]))
        }
        rebuildEntries()
    }
}
