@testable import GalleryNode
import Testing

/// The redial component alone (`Redial`): one attempt at a time per target, addresses in turn,
/// the backoff and its reset, bad addresses, targets dropped once no longer wanted.
@Suite struct RedialScheduleTests {
    static let peer = DialTarget.Key.peer(PeerKey(rawValue: "node-b"))
    static let pending = DialTarget.Key.address("127.0.0.1:9001")
    static let second: UInt64 = 1_000_000_000

    @Test func aPassStartsOneAttemptPerTargetThroughItsAddressesInTurn() {
        var redial = Redial()
        let wanted: [(key: DialTarget.Key, addresses: [String])] = [
            (Self.peer, ["127.0.0.1:7001", "127.0.0.1:7002"]), (Self.pending, ["127.0.0.1:9001"]),
        ]
        let attempts = redial.pass(wanted: wanted, now: 5, badAddressDelay: Self.second)
        #expect(attempts.map(\.key) == [Self.peer, Self.pending])
        #expect(attempts.map(\.endpoint.description) == ["127.0.0.1:7001", "127.0.0.1:9001"])
        #expect(redial.pass(wanted: wanted, now: 6, badAddressDelay: Self.second).isEmpty, "attempts under way")
        #expect(redial.idle(until: .max), "an attempt under way ends with an event")

        // It failed: the next after the backoff, at the peer's next address.
        let firstFailure = redial.attemptEnded(Self.peer, gotThrough: false, error: "refused", now: 10) { _ in Self.second }
        #expect(firstFailure)
        #expect(redial.retry(Self.peer, now: 10).next == 1 && redial.retry(Self.peer, now: 10).error == "refused")
        #expect(!redial.idle(until: 10 + Self.second + 1))
        #expect(redial.pass(wanted: wanted, now: 10 + Self.second - 1, badAddressDelay: Self.second).isEmpty)
        let next = redial.pass(wanted: wanted, now: 10 + Self.second, badAddressDelay: Self.second)
        #expect(next.map(\.endpoint.description) == ["127.0.0.1:7002"])
    }

    @Test func theBackoffGrowsWithFailuresAndStartsOverAfterAHandshake() {
        var redial = Redial()
        var asked: [Int] = []
        let backoff: (Int) -> UInt64 = { attempt in asked.append(attempt); return 100 }
        for round in 0..<3 {
            _ = redial.pass(wanted: [(Self.pending, ["127.0.0.1:9001"])], now: UInt64(round) * 1_000, badAddressDelay: Self.second)
            let first = redial.attemptEnded(Self.pending, gotThrough: false, error: "timeout", now: UInt64(round) * 1_000, backoff: backoff)
            #expect(first == (round == 0), "only the first failure is worth a line")
        }
        _ = redial.pass(wanted: [(Self.pending, ["127.0.0.1:9001"])], now: 3_000, badAddressDelay: Self.second)
        let failure = redial.attemptEnded(Self.pending, gotThrough: true, error: nil, now: 3_000, backoff: backoff)
        #expect(!failure)
        #expect(asked == [0, 1, 2, 0])
        #expect(redial.retry(Self.pending, now: 3_000).error == nil)
    }

    @Test func aBadAddressWaitsTheLongestDelayAndAGoneTargetIsDropped() {
        var redial = Redial()
        let attempts = redial.pass(wanted: [(Self.pending, ["no port here"])], now: 0, badAddressDelay: 5 * Self.second)
        #expect(attempts.isEmpty)
        #expect(redial.retry(Self.pending, now: 0).error == "\"no port here\" is not HOST:PORT")
        #expect(redial.retry(Self.pending, now: 0).next == 5)
        // No longer wanted (connected, or gone from the book), nothing under way: dropped.
        _ = redial.pass(wanted: [], now: 1, badAddressDelay: 5 * Self.second)
        #expect(redial.targets.isEmpty)
    }

    @Test func aDisconnectOrADialSoonBringsTheNextAttemptForward() {
        var redial = Redial()
        _ = redial.pass(wanted: [(Self.peer, ["127.0.0.1:7001"])], now: 0, badAddressDelay: Self.second)
        redial.disconnected(Self.peer)
        #expect(redial.targets[Self.peer]?.dialing == true, "an attempt under way is left alone")
        _ = redial.attemptEnded(Self.peer, gotThrough: false, error: "refused", now: 0) { _ in 60 * Self.second }
        redial.disconnected(Self.peer)
        #expect(redial.targets[Self.peer]?.attempt == 0 && redial.targets[Self.peer]?.due == 0)
        _ = redial.attemptEnded(Self.peer, gotThrough: false, error: "refused", now: 0) { _ in 60 * Self.second }
        _ = redial.pass(wanted: [(Self.peer, ["127.0.0.1:7001"])], now: 1, badAddressDelay: Self.second)
        redial.dialSoon(Self.peer)
        #expect(redial.pass(wanted: [(Self.peer, ["127.0.0.1:7001"])], now: 2, badAddressDelay: Self.second).count == 1)
        redial.keep { $0 != Self.peer }
        #expect(redial.targets.isEmpty)
    }
}
