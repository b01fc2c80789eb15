@testable import GalleryNode
import Testing

/// The relay hold as a component (`RelayHold`), without a node: when durable batches go at once,
/// when they are held, when the flush at the latest is scheduled, and what it sends.
@Suite("Relay hold component")
struct RelayHoldComponentTests {
    /// A batch told apart by its log end.
    static func batch(_ end: Int) -> Durability.Batch {
        Durability.Batch(ops: [], end: end, source: nil)
    }

    /// The steps `take` answers for `batches`, each taken alone, with `idle` as the pipeline.
    static func steps(_ hold: inout RelayHold, _ ends: [Int], idle: Bool) -> [RelayHold.Step] {
        ends.map { hold.take([batch($0)], pipelineIdle: idle) }
    }

    @Test("A hold of 0 holds nothing: every batch is sent at once")
    func noHold() {
        var hold = RelayHold(cap: 0)
        let busy = Self.steps(&hold, [1], idle: false)
        let idle = Self.steps(&hold, [2], idle: true)
        let held = hold.takeHeld()
        #expect(busy == [.send])
        #expect(idle == [.send])
        #expect(held.isEmpty)
        #expect(!hold.armed)
    }

    @Test("On an idle pipeline the batch is flushed at once, with what was held before it, in log order")
    func idleFlushes() {
        var hold = RelayHold(cap: 10_000_000)
        let busy = Self.steps(&hold, [1], idle: false)
        let idle = hold.take([Self.batch(2), Self.batch(3)], pipelineIdle: true)
        let held = hold.takeHeld()
        let after = hold.takeHeld()
        #expect(busy == [.arm])
        #expect(idle == .flush)
        #expect(held.map(\.end) == [1, 2, 3])
        #expect(after.isEmpty)
    }

    @Test("While writes are in flight batches are held; the flush is scheduled once, and again after it fired")
    func busyHoldsAndArmsOnce() {
        var hold = RelayHold(cap: 10_000_000)
        let first = Self.steps(&hold, [1, 2], idle: false)
        #expect(first == [.arm, .wait])
        #expect(hold.armed)
        let fired = hold.fired()
        #expect(fired.held.map(\.end) == [1, 2])
        #expect(fired.corked.isEmpty)
        #expect(!hold.armed)
        let left = hold.takeHeld()
        let next = Self.steps(&hold, [3], idle: false)
        #expect(left.isEmpty)
        #expect(next == [.arm])
    }

    @Test("Corked batches wait per link and go first when the flush fires, links in order; corking arms the flush once")
    func corked() {
        var hold = RelayHold(cap: 10_000_000)
        let arms = [hold.cork([Self.batch(1)], on: 7), hold.cork([Self.batch(2)], on: 3), hold.cork([Self.batch(3)], on: 7)]
        let step = Self.steps(&hold, [4], idle: false)
        #expect(arms == [true, false, false])
        #expect(step == [.wait])
        let fired = hold.fired()
        #expect(fired.corked.map(\.link) == [3, 7])
        #expect(fired.corked.map { $0.batches.map(\.end) } == [[2], [1, 3]])
        #expect(fired.held.map(\.end) == [4])
        #expect(hold.corked.isEmpty)
        let again = hold.cork([Self.batch(5)], on: 3)
        #expect(again)
    }
}
