@testable import GalleryNode
import Testing

/// The liveness component alone (`Liveness`): which connections come up, a pass held up, the
/// slow pace of a quiet idle node and the wake that ends it, and what keeps it from slowing.
@Suite struct LivenessComponentTests {
    static let interval: UInt64 = 100_000_000

    @Test func connectionsComeUpWhenDueAndNotAfterTheyClosed() {
        var liveness = Liveness(previous: 0)
        liveness.due(1, at: 50)
        liveness.due(2, at: 20)
        liveness.due(3, at: 30)
        liveness.forget(3)
        #expect(liveness.nextDue(now: 10) == nil)
        #expect(liveness.nextDue(now: 60) == 2)
        #expect(liveness.nextDue(now: 60) == 1)
        #expect(liveness.nextDue(now: 60) == nil, "3 closed; each came up once")
    }

    @Test func aPassHeldUpBeyondItsIntervalExcusesTheSilenceSinceThePrevious() {
        var liveness = Liveness(previous: 1_000)
        #expect(liveness.beginPass(now: 1_000 + Self.interval, heartbeatInterval: Self.interval, quiet: false) == nil)
        let late = 1_000 + Self.interval + 3 * Self.interval
        #expect(liveness.beginPass(now: late, heartbeatInterval: Self.interval, quiet: false) == 3 * Self.interval)
        #expect(liveness.passes == 2 && liveness.previous == late)
        // With quiet liveness, a pass planned a second later was not held up by that second.
        _ = liveness.plan(after: Liveness.slowInterval)
        let planned = late + Liveness.slowInterval + Self.interval / 2
        #expect(liveness.beginPass(now: planned, heartbeatInterval: Self.interval, quiet: true) == nil)
        #expect(liveness.beginPass(now: planned + Liveness.slowInterval + 2 * Self.interval, heartbeatInterval: Self.interval, quiet: true)
            == 2 * Self.interval)
        // Without it the planned delay does not count.
        #expect(liveness.beginPass(now: planned + 2 * Liveness.slowInterval + 3 * Self.interval, heartbeatInterval: Self.interval, quiet: false)
            == Liveness.slowInterval + Self.interval)
    }

    @Test func aQuietIdleNodeSlowsDownAndAWakeStartsANewChainAtTheUsualPace() {
        var liveness = Liveness(previous: 0)
        let idleWake = liveness.wake()
        #expect(!idleWake, "not slowed: nothing to do")
        let first = liveness.plan(after: Self.interval)
        let firstFired = liveness.plannedPassFired(generation: first)
        #expect(firstFired)
        liveness.endPass(nothingDueSoon: true)
        #expect(liveness.slow && liveness.nextDelay(interval: Self.interval) == Liveness.slowInterval)
        let slowChain = liveness.plan(after: Liveness.slowInterval)
        // Something happened meanwhile: a new chain, at the usual pace; the slow timer is void.
        let woken = liveness.wake()
        #expect(woken)
        #expect(!liveness.slow && liveness.nextDelay(interval: Self.interval) == Self.interval)
        let wokenAgain = liveness.wake()
        #expect(!wokenAgain, "one wake per slowdown")
        let newChain = liveness.plan(after: Self.interval)
        #expect(newChain != slowChain)
        let slowFired = liveness.plannedPassFired(generation: slowChain)
        let newFired = liveness.plannedPassFired(generation: newChain)
        #expect(!slowFired && newFired)
        liveness.endPass(nothingDueSoon: false)
        #expect(liveness.nextDelay(interval: Self.interval) == Self.interval)
    }

    @Test func deadlinesHeldRequestsAndJoinsKeepANodeFromSlowing() {
        let now: UInt64 = 10_000_000_000
        var liveness = Liveness(previous: 0)
        liveness.relayLook.nextDue = .max
        #expect(liveness.quietForAWhile(now: now, relayTrees: true))
        liveness.due(1, at: now + Liveness.slowInterval - 1)
        #expect(!liveness.quietForAWhile(now: now, relayTrees: true), "a connection due within the second")
        _ = liveness.nextDue(now: now + Liveness.slowInterval)
        #expect(liveness.quietForAWhile(now: now, relayTrees: true))
        liveness.relayLook.nextDue = now + 1
        #expect(!liveness.quietForAWhile(now: now, relayTrees: true))
        #expect(liveness.quietForAWhile(now: now, relayTrees: false), "no relay tree, no relay decision")
        liveness.relayLook.nextDue = .max
        liveness.requestsDeferred = true
        #expect(!liveness.quietForAWhile(now: now, relayTrees: true))
        liveness.requestsDeferred = false
        liveness.joinSettleUntil = now + 1
        #expect(!liveness.quietForAWhile(now: now, relayTrees: true))
        #expect(liveness.quietForAWhile(now: now + 1, relayTrees: true))
    }
}
