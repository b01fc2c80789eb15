import GalleryModel
@testable import GalleryNode
import GalleryWire
import Testing

/// The sessions component alone (`PeerSessions`): sessions begin and end in connection order,
/// a catch-up's steps, requests deferred while storing fails, the gap watch's requests and
/// backoff, the version exchange's schedule and the reactions to a peer's digests.
@Suite struct PeerSessionsTests {
    static let alice = ReplicaID(deriving: "alice")
    static let bob = ReplicaID(deriving: "bob")
    static let second: UInt64 = 1_000_000_000

    /// Sessions on `ids`, each live and caught up at `version` when `synced`.
    static func sessions(_ ids: [Int], synced: Bool = true, version: VersionVector = VersionVector()) -> PeerSessions {
        var sessions = PeerSessions(gapTimeout: second)
        for id in ids {
            sessions.begin(id, now: 0, relayTrees: true)
            if synced {
                sessions.sessions[id]?.live = true
                _ = sessions.caughtUp(id, at: version)
            }
        }
        return sessions
    }

    @Test func sessionsKeepConnectionOrderAndEveryWriteCounts() {
        var sessions = PeerSessions(gapTimeout: Self.second)
        for id in [5, 2, 9] { sessions.begin(id, now: 7, relayTrees: false) }
        #expect(sessions.order == [2, 5, 9])
        #expect(sessions.sessions[5]?.lastVersionSent == 7 && sessions.sessions[5]?.live == false)
        // A session begun again on the same connection starts afresh, once in the order.
        sessions.sessions[5]?.live = true
        sessions.begin(5, now: 8, relayTrees: false)
        #expect(sessions.order == [2, 5, 9] && sessions.sessions[5]?.live == false)

        let before = sessions.changes
        _ = sessions.sessions[2]
        #expect(sessions.changes == before, "a read is no write")
        sessions.sessions[2]?.digestMisses = 1
        #expect(sessions.changes == before + 1)

        sessions.deferCatchUp(5, from: VersionVector([Self.alice: 3]))
        let ended = sessions.end(5)
        #expect(ended?.lastVersionSent == 8)
        #expect(sessions.order == [2, 9] && sessions.deferredCatchUps.isEmpty)
        let endedAgain = sessions.end(5)
        #expect(endedAgain?.lastVersionSent == nil)
    }

    @Test func caughtUpTellsThePreviousVectorAndTheFirstCatchUp() {
        var sessions = PeerSessions(gapTimeout: Self.second)
        sessions.begin(1, now: 0, relayTrees: true)
        sessions.sessions[1]?.relay.firstCatchUpPending = true
        let first = sessions.caughtUp(1, at: VersionVector([Self.alice: 2]))
        #expect(first.previous == nil && first.first)
        let second = sessions.caughtUp(1, at: VersionVector([Self.alice: 4]))
        #expect(second.previous == VersionVector([Self.alice: 2]) && !second.first)
        #expect(sessions.sessions[1]?.syncedUpTo == VersionVector([Self.alice: 4]))
        #expect(sessions.sessions[1]?.relay.known == VersionVector([Self.alice: 4]))
        #expect(sessions.syncedPeers.isEmpty, "not live yet: its own catch-up is not sent")
    }

    @Test func aCatchUpSendsBatchesThenWhatBecameDurableThenCaughtUp() {
        var sessions = Self.sessions([1], synced: false)
        let asked = VersionVector([Self.alice: 2])
        let sending = VersionVector([Self.alice: 2, Self.bob: 9])
        let starts = sessions.startCatchUp(1, requested: asked, sending: sending, next: 3, end: 10)
        #expect(starts)
        #expect(sessions.sessions[1]?.live == false && sessions.sessions[1]?.relay.known == asked)
        // A second request while it runs moves its cursor; the running catch-up carries on.
        let startsAgain = sessions.startCatchUp(1, requested: asked, sending: sending, next: 4, end: 10)
        #expect(!startsAgain)

        let step = sessions.nextCatchUpStep(1, queuedBytes: 0, budget: 100, durableCount: 10)
        #expect(step == .sendBatch(missingFrom: sending, from: 4, below: 10, maximumBytes: 100))
        sessions.catchUpSent(1, upTo: 7)
        #expect(sessions.nextCatchUpStep(1, queuedBytes: 199, budget: 100, durableCount: 10)
            == .sendBatch(missingFrom: sending, from: 7, below: 10, maximumBytes: 100))
        // Two batches wait in the outbox: nothing is read until it drains; nothing changes.
        let changes = sessions.changes
        #expect(sessions.nextCatchUpStep(1, queuedBytes: 200, budget: 100, durableCount: 10) == .waitForRoom(highWater: 200))
        #expect(sessions.changes == changes)
        sessions.catchUpSent(1, upTo: 10)
        // Two ops became durable meanwhile: they follow before `caught_up`.
        #expect(sessions.nextCatchUpStep(1, queuedBytes: 0, budget: 100, durableCount: 12) == .extended)
        #expect(sessions.nextCatchUpStep(1, queuedBytes: 0, budget: 100, durableCount: 12)
            == .sendBatch(missingFrom: sending, from: 10, below: 12, maximumBytes: 100))
        sessions.catchUpSent(1, upTo: 12)
        #expect(sessions.nextCatchUpStep(1, queuedBytes: 0, budget: 100, durableCount: 12) == .finish)
        let durable = VersionVector([Self.alice: 5, Self.bob: 9])
        sessions.finishCatchUp(1, at: durable)
        #expect(sessions.sessions[1]?.live == true && sessions.sessions[1]?.catchUp == nil)
        #expect(sessions.sessions[1]?.relay.known == durable)
        #expect(sessions.nextCatchUpStep(1, queuedBytes: 0, budget: 100, durableCount: 12) == nil)
        let startsWithoutSession = sessions.startCatchUp(2, requested: asked, sending: asked, next: 0, end: 1)
        #expect(!startsWithoutSession, "no session on 2")
    }

    @Test func requestsDeferredWhileStoringFailsAreTakenOnce() {
        var sessions = Self.sessions([1, 2])
        sessions.deferCatchUp(1, from: VersionVector([Self.alice: 1]))
        sessions.deferCatchUp(2, from: VersionVector([Self.bob: 2]))
        sessions.deferCatchUp(1, from: VersionVector([Self.alice: 3]))
        #expect(sessions.takeDeferredCatchUps() == [1: VersionVector([Self.alice: 3]), 2: VersionVector([Self.bob: 2])])
        #expect(sessions.takeDeferredCatchUps().isEmpty)
    }

    @Test func gapsAskTheSyncedPeersAfterTheTimeoutThenBackOff() {
        var sessions = Self.sessions([1, 2, 3])
        sessions.begin(4, now: 0, relayTrees: true)
        sessions.sessions[4]?.live = true  // Live, its `caught_up` not come yet.
        let second = Self.second
        let connected: (Int) -> Bool = { $0 != 3 }
        #expect(sessions.checkGaps(buffered: 0, now: 0, isConnected: connected) == nil)
        #expect(sessions.checkGaps(buffered: 2, now: 10, isConnected: connected) == nil, "the wait starts")
        #expect(sessions.checkGaps(buffered: 2, now: 10 + second - 1, isConnected: connected) == nil)
        let request = sessions.checkGaps(buffered: 2, now: 10 + second, isConnected: connected)
        #expect(request.map { Set($0.peers) } == [1, 2] && request?.waitingSince == 10)
        // The gap stays: asked again after the timeout, then after twice as long each time.
        #expect(sessions.checkGaps(buffered: 2, now: 10 + 2 * second, isConnected: connected) != nil)
        #expect(sessions.gaps.interval == 2 * second)
        #expect(sessions.checkGaps(buffered: 2, now: 10 + 3 * second, isConnected: connected) == nil)
        #expect(sessions.checkGaps(buffered: 2, now: 10 + 4 * second, isConnected: connected) != nil)
        #expect(sessions.gaps.interval == 4 * second)
        // Emptied: the watch starts over, at the timeout.
        #expect(sessions.checkGaps(buffered: 0, now: 10 + 5 * second, isConnected: connected) == nil)
        #expect(sessions.gaps.waitingSince == nil && sessions.gaps.interval == second)
    }

    @Test func gapsAskEveryLivePeerWhenNoneHasCaughtThisNodeUp() {
        var sessions = Self.sessions([1, 2], synced: false)
        sessions.sessions[1]?.live = true
        _ = sessions.checkGaps(buffered: 1, now: 1, isConnected: { _ in true })
        let request = sessions.checkGaps(buffered: 1, now: 1 + Self.second, isConnected: { _ in true })
        #expect(request?.peers == [1])
    }

    @Test func theVersionExchangeIsDuePerSessionAndSkippedWhileNothingChanged() {
        let interval = 10 * Self.second
        var sessions = Self.sessions([3, 1, 2])
        sessions.sessions[2]?.live = false
        _ = sessions.received(.speaks, on: 3, holding: VersionVector(), now: 0, enabled: true)
        let early = sessions.versionExchangesDue(now: interval - 1, interval: interval)
        #expect(early?.due.isEmpty == true && early?.nextDue == interval)
        sessions.lookedAtVersions(nextDue: interval)
        #expect(sessions.versionExchangesDue(now: interval - 1, interval: interval) == nil, "nothing changed, nothing due")

        let due = sessions.versionExchangesDue(now: interval, interval: interval)
        #expect(due?.due == [.init(id: 1, byDigest: false), .init(id: 3, byDigest: true)])
        for exchange in due?.due ?? [] { sessions.versionExchangeSent(exchange, now: interval) }
        sessions.lookedAtVersions(nextDue: due?.nextDue ?? 0)
        #expect(sessions.sessions[3]?.lastVersionSent == interval)
        #expect(sessions.versionExchangesDue(now: 2 * interval - 1, interval: interval) == nil)
        #expect(sessions.versionExchangesDue(now: 2 * interval, interval: interval)?.due.count == 2)
        // A session written brings the next look forward, whatever the time.
        sessions.sessions[2]?.live = true
        #expect(sessions.versionExchangesDue(now: interval + 1, interval: interval)?.due == [.init(id: 2, byDigest: false)])
    }

    @Test func digestsMatchDifferAndConfirmBeforeTheFullExchange() {
        let held = VersionVector([Self.alice: 4])
        var sessions = Self.sessions([1], version: VersionVector([Self.alice: 2]))
        #expect(sessions.received(.speaks, on: 1, holding: held, now: 0, enabled: false) == .ignore)
        #expect(sessions.sessions[1]?.peerSpeaksDigests == false)
        #expect(sessions.received(.speaks, on: 2, holding: held, now: 0, enabled: true) == .ignore, "no session")
        #expect(sessions.received(.speaks, on: 1, holding: held, now: 0, enabled: true) == .noted)
        #expect(sessions.sessions[1]?.peerSpeaksDigests == true)

        let other = VersionDigest.of(VersionVector([Self.alice: 3]))
        #expect(sessions.received(.digest(other), on: 1, holding: held, now: 0, enabled: true) == .answerDiffers)
        let same = VersionDigest.of(held)
        #expect(sessions.received(.digest(same), on: 1, holding: held, now: 0, enabled: true) == .matched(changed: true))
        #expect(sessions.sessions[1]?.syncedUpTo == held && sessions.sessions[1]?.relay.known == held)
        #expect(sessions.received(.digest(same), on: 1, holding: held, now: 0, enabled: true) == .matched(changed: false))

        for round in 1...VersionDigest.confirmations {
            #expect(sessions.received(.differs, on: 1, holding: held, now: 5, enabled: true) == .confirmLater)
            #expect(sessions.sessions[1]?.digestMisses == round)
            #expect(sessions.sessions[1]?.digestConfirmAt == 5 + VersionDigest.confirmationDelay)
        }
        // The confirmation is due at once, whatever the interval.
        let due = sessions.versionExchangesDue(now: 5 + VersionDigest.confirmationDelay, interval: 100 * Self.second)
        #expect(due?.due == [.init(id: 1, byDigest: true)])
        sessions.versionExchangeSent(.init(id: 1, byDigest: true), now: 5 + VersionDigest.confirmationDelay)
        #expect(sessions.sessions[1]?.digestMisses == VersionDigest.confirmations, "a confirmation keeps the misses")
        #expect(sessions.received(.differs, on: 1, holding: held, now: 6, enabled: true) == .requestFull)
        #expect(sessions.sessions[1]?.digestMisses == 0 && sessions.sessions[1]?.digestConfirmAt == nil)
    }
}
