@testable import GalleryModel
import GallerySimulation
import Testing

/// The counted B+tree against a plain array model, under seeded random operations.
@Suite("Slot forest")
struct SlotForestTests {
    @Test("Random links and visibility changes agree with an array model", arguments: [1, 2, 3, 4] as [UInt64])
    func differential(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var forest = SlotForest()
        var model: [[Int32]] = []
        var visible: [Bool] = []
        for _ in 0..<3 {
            _ = forest.addGallery()
            model.append([])
        }
        let steps = seed == 4 ? 60_000 : 12_000
        for step in 0..<steps {
            let gallery = Int.random(in: 0..<3, using: &random)
            if step % 3 != 2 || visible.isEmpty {
                let isVisible = Bool.random(using: &random)
                let slot = forest.makeSlot(
                    key: PackedID(replicaIndex: 0, counter: UInt64(step + 1)), item: 0, gallery: Int32(gallery),
                    originLeft: -1, originRight: -1, visible: isVisible)
                visible.append(isVisible)
                // Mostly near one end, as typing does, sometimes anywhere.
                let position = seed == 3 ? model[gallery].count : Int.random(in: 0...model[gallery].count, using: &random)
                let next = position < model[gallery].count ? model[gallery][position] : -1
                forest.link(slot, before: next)
                model[gallery].insert(slot, at: position)
            } else {
                let slot = Int32.random(in: 0..<Int32(visible.count), using: &random)
                visible[Int(slot)].toggle()
                forest.setVisible(slot, visible[Int(slot)])
            }
            if step % 1_999 == 0 || step == steps - 1 { check(forest, model, visible, stride: step == steps - 1 ? 1 : 17) }
        }
    }

    private func check(_ forest: SlotForest, _ model: [[Int32]], _ visible: [Bool], stride: Int) {
        // Each node's place in its parent, kept up through splits, is what a decoded forest rebuilds.
        var rebuilt = forest
        rebuilt.rebuildEntries()
        #expect(rebuilt.leafEntry == forest.leafEntry && rebuilt.innerEntry == forest.innerEntry)
        for (gallery, slots) in model.enumerated() {
            let shown = slots.filter { visible[Int($0)] }
            #expect(forest.totalCount(Int32(gallery)) == slots.count)
            #expect(forest.visibleCount(Int32(gallery)) == shown.count)
            #expect(forest.first(Int32(gallery)) == (slots.first ?? -1))
            #expect(forest.last(Int32(gallery)) == (slots.last ?? -1))
            var walked: [Int32] = []
            forest.forEachVisible(in: Int32(gallery)) { walked.append($0) }
            #expect(walked == shown)
            let wrong = shown.enumerated().filter { $0.offset % stride == 0 }
                .filter { forest.visibleSlot(at: $0.offset, in: Int32(gallery)) != $0.element }
            #expect(wrong.isEmpty, "gallery \(gallery): visibleSlot(at:) wrong at \(wrong.prefix(3).map(\.offset))")
            var visibleBefore = 0
            var mismatches = 0
            for (rank, slot) in slots.enumerated() {
                defer { if visible[Int(slot)] { visibleBefore += 1 } }
                guard rank % stride == 0 else { continue }
                if forest.totalRank(slot) != rank || forest.visibleRank(slot) != visibleBefore
                    || forest.successor(slot) != (rank + 1 < slots.count ? slots[rank + 1] : -1)
                    || forest.predecessor(slot) != (rank > 0 ? slots[rank - 1] : -1) {
                    mismatches += 1
                }
            }
            #expect(mismatches == 0, "gallery \(gallery): \(mismatches) slots with a wrong rank or neighbour")
        }
    }
}
